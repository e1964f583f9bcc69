"""``overcloud deploy`` of small templates whose outputs are
config-download's: the stack, then the deploy workflow in Mistral runs
their Ansible on the loopback's servers (127.0.0.2 the Controller,
127.0.0.3 the Compute: ``tools/loopback start sshd``), and the step
records both parts.

The templates have no resources, only outputs: ``RoleData`` whose
``deploy_steps_tasks`` write a file and run a command on each server,
``RoleConfig``'s ``deploy_steps_playbook`` that runs them per role, and
``RoleNetHostnameMap``/``RoleNetIpMap`` naming the servers. A login of
our own checks each server afterwards. A failing task, servers where
nothing answers, ``--stack-only``, a rerun with ``--tags``, ``config
download`` of the newest and of a past step, and a client killed while
Ansible runs. Skipped when sshd does not answer, unless
``FUNCTIONAL_REQUIRE_SSHD`` is set.
"""

import json
import os
import tarfile
import time

from tests.functional import deploy_base
from tests.functional import servers

SERVERS = ('127.0.0.2', '127.0.0.3')
NOBODY = ('127.0.0.250', '127.0.0.251')
CONTROLLER = 'overcloud-controller-0'
COMPUTE = 'overcloud-novacompute-0'

TASKS = '''
        # each task tagged: the loopback's config_skip_tags skips the
        # untagged ones (THT's need root there)
        - name: Write the marker
          copy:
            dest: {list_join: ['', ['~/cd-', {get_param: Marker}]]}
            content: {list_join: ['', [{get_param: Marker}, "\\n"]]}
          tags: [marker]
        - name: Run a command
          shell: {list_join: ['', ['id -un > ~/cd-who-',
                                   {get_param: Marker}]]}
          tags: [commands]
        - name: Wait when asked
          command: {list_join: [' ', ['sleep', {get_param: Wait}]]}
          when: {get_param: Slow}
          tags: [wait]
        - name: Refuse when asked
          fail: {msg: refused on purpose}
          when: %s
          tags: [refuse]
'''

OVERCLOUD = '''heat_template_version: rocky
parameters:
  Marker: {type: string, default: none}
  Wait: {type: string, default: '0'}
  Slow: {type: boolean, default: false}
  FailCompute: {type: boolean, default: false}
  ControllerAddress: {type: string, default: '%s'}
  ComputeAddress: {type: string, default: '%s'}
outputs:
  RoleNetHostnameMap:
    value:
      Controller: {ctlplane: [%s]}
      Compute: {ctlplane: [%s]}
  RoleNetIpMap:
    value:
      Controller: {ctlplane: [{get_param: ControllerAddress}]}
      Compute: {ctlplane: [{get_param: ComputeAddress}]}
  RoleConfig:
    value:
      deploy_steps_playbook:
        - name: Deploy steps
          hosts: Controller:Compute
          gather_facts: false
          tasks:
            - include_tasks: "{{ tripleo_role_name }}/deploy_steps_tasks.yaml"
              # the included tasks' own tags choose (--tags)
              tags: [always]
  RoleData:
    value:
      Controller:
        deploy_steps_tasks:%s
      Compute:
        deploy_steps_tasks:%s
''' % (SERVERS + (CONTROLLER, COMPUTE, TASKS % 'false',
                  TASKS % '{get_param: FailCompute}'))


class TestDeployConfigures(deploy_base.DeployTest):

    TEMPLATES = {'overcloud.yaml': OVERCLOUD,
                 'roles_data.yaml': '- name: Controller\n- name: Compute\n'}

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.port = servers.required_port(cls.env, SERVERS)
        cls.user = cls.env['LOOPBACK_SSHD_USER']
        cls.key = cls.env['LOOPBACK_SSHD_KEY']

    def on(self, address, command):
        """``command``'s stdout over a login of our own to ``address``."""
        done = servers.login(self.env, address, command)
        return done.returncode, done.stdout.strip()

    def settings(self, **values):
        values.setdefault('Marker', self.plan)
        return self.write('%s/settings-%d.yaml' % (self.plan, len(values)),
                          'parameter_defaults: %s\n' % json.dumps(values))

    def run_deploy(self, *args, fail=False):
        """``(row, stderr)`` of a deploy of the templates."""
        out, err = self.openstack(
            'overcloud', 'deploy', '--stack', self.plan, '--templates',
            self.templates, '-f', 'json', *args, fail=fail, timeout=900)
        return json.loads(out), err

    def last(self):
        return self.record()['history'][-1]

    def test_the_servers_are_configured_then_again_with_tags(self):
        row, err = self.run_deploy('-e', self.settings())
        self.assertEqual(('CREATE_COMPLETE', 'SUCCESS', 'SUCCESS'), (
            row['stack_status'], row['config_status'], row['status']), err)
        self.assertIn('Ansible: %s | Write the marker | CHANGED' % CONTROLLER,
                      err)
        self.assertIn('Ansible: %s | Run a command | CHANGED' % COMPUTE, err)
        # each server has its own file, written by the configured user
        for address in SERVERS:
            self.assertEqual((0, self.plan), self.on(
                address, 'cat ~/cd-%s' % self.plan))
            self.assertEqual((0, self.user), self.on(
                address, 'cat ~/cd-who-%s' % self.plan))
        first = self.last()
        self.assertEqual(('SUCCESS', 'SUCCESS'), (
            first['outcome']['status'], first['config']['status']))
        self.assertEqual({CONTROLLER, COMPUTE}, set(first['config']['hosts']))
        self.assertEqual(0, sum(h['failed'] + h['unreachable']
                                for h in first['config']['hosts'].values()))
        # nothing changed: Heat not asked, the servers configured again
        # (only the tagged task), one more step
        for address in SERVERS:
            self.on(address, 'rm ~/cd-%s ~/cd-who-%s'
                    % (self.plan, self.plan))
        row, err = self.run_deploy('--tags', 'commands')
        self.assertEqual(('NONE', 'SUCCESS'), (row['operation'],
                                               row['status']), err)
        self.assertEqual(first['step'] + 1, self.last()['step'])
        for address in SERVERS:
            self.assertEqual(1, self.on(address, 'test -e ~/cd-%s'
                                        % self.plan)[0])
            self.assertEqual((0, self.user), self.on(
                address, 'cat ~/cd-who-%s' % self.plan))
        self.assertEqual(['commands'], self.last()['config']['tags'])
        # configuration only: a step that says Heat was not asked
        row, err = self.run_deploy('--config-download-only')
        self.assertEqual(('NONE', 'SUCCESS'), (row['operation'],
                                               row['status']), err)
        self.assertEqual((True, 'only'), (
            self.last()['stack']['config_only'],
            self.last()['config']['mode']))
        # the tree of the newest step, and of the first
        where = os.path.join(self.tmp, self.plan, 'config')
        found = self.openstack_json('overcloud', 'config', 'download',
                                    '--name', self.plan, '--config-dir',
                                    where)
        self.assertEqual((self.last()['id'], False), (found['id'],
                                                      found['built']))
        for name in ('deploy_steps_playbook.yaml',
                     'Controller/deploy_steps_tasks.yaml',
                     'tripleo-ansible-inventory.yaml'):
            self.assertTrue(os.path.isfile(os.path.join(where, name)), name)
        past = self.openstack_json(
            'overcloud', 'config', 'download', '--name', self.plan,
            '--config-dir', where + '-first', '--step', str(first['step']))
        self.assertEqual(first['id'], past['id'])
        self.assertTrue(os.path.isfile(os.path.join(
            where + '-first', 'deploy_steps_playbook.yaml')))
        # the first step's export holds its configuration
        exported = os.path.join(self.tmp, self.plan, 'first.tar.gz')
        self.openstack('overcloud', 'plan', 'export', self.plan, '--step',
                       str(first['step']), '-o', exported)
        with tarfile.open(exported) as tar:
            self.assertIn('user-environments/config/%s.tar.gz'
                          % first['id'], tar.getnames())
        history = self.openstack_json('overcloud', 'plan', 'show-history',
                                      self.plan)
        self.assertEqual('SUCCESS', history[-1]['config']['status'])

    def test_a_failing_task_fails_the_step_with_host_task_and_message(self):
        row, err = self.run_deploy('-e', self.settings(FailCompute=True),
                                   fail=True)
        self.assertEqual(('CREATE_COMPLETE', 'FAILED', 'FAILED'), (
            row['stack_status'], row['config_status'], row['status']))
        self.assertIn('failed on %s: Refuse when asked: ' % COMPUTE, err)
        # why, in the row: the task, its host and its message
        self.assertTrue(row['reason'].startswith(
            'Ansible task Refuse when asked failed on %s: ' % COMPUTE),
            row['reason'])
        self.assertIn('refused on purpose', row['reason'])
        failure, = self.last()['config']['failures']
        self.assertEqual((COMPUTE, 'Refuse when asked'), (
            failure['host'], failure['task']))
        self.assertIn('refused on purpose', failure['message'])
        rows = self.openstack_json('overcloud', 'failures', '--stack',
                                   self.plan)
        self.assertEqual([(COMPUTE, 'Refuse when asked', 'FAILED')], [
            (r['host'], r['task'], r['status']) for r in rows
            if r['type'] == 'Ansible task'])

    def test_servers_where_nothing_answers_are_each_unreachable(self):
        row, err = self.run_deploy('-e', self.settings(
            ControllerAddress=NOBODY[0], ComputeAddress=NOBODY[1]),
            fail=True)
        self.assertEqual(('FAILED', 'FAILED'), (row['config_status'],
                                                row['status']), err)
        hosts = self.last()['config']['hosts']
        self.assertEqual({CONTROLLER: 1, COMPUTE: 1},
                         {h: c['unreachable'] for h, c in hosts.items()})
        self.assertTrue(CONTROLLER in row['reason'] or
                        COMPUTE in row['reason'], row['reason'])

    def test_the_plans_recorded_login_user_logs_in(self):
        # what overcloud node provision --overcloud-ssh-user records in
        # the plan (nodes.login) is who config-download logs in as: one
        # the servers do not have leaves each unreachable
        row, err = self.run_deploy('-e', self.settings(), '--stack-only')
        self.assertEqual('SUCCESS', row['status'], err)
        self.swift.request('PUT', '%s/baremetal-login.yaml' % self.plan,
                           b'ssh_user: nobody-here\n')
        row, err = self.run_deploy('-e', self.settings(),
                                   '--config-download-only', fail=True)
        self.assertEqual(('FAILED', 'FAILED'), (row['config_status'],
                                                row['status']), err)
        hosts = self.last()['config']['hosts']
        self.assertEqual({CONTROLLER: 1, COMPUTE: 1},
                         {h: c['unreachable'] for h, c in hosts.items()})
        self.assertIn('nobody-here@', err)
        # --config-download-only's row says why too
        self.assertTrue(CONTROLLER in row['reason'] or
                        COMPUTE in row['reason'], row['reason'])

    def test_stack_only_runs_no_ansible(self):
        row, err = self.run_deploy('-e', self.settings(), '--stack-only')
        self.assertEqual(('SUCCESS', None), (row['status'],
                                             row['config_status']))
        self.assertNotIn('Ansible:', err)
        self.assertEqual(1, self.on(SERVERS[0], 'test -e ~/cd-%s'
                                    % self.plan)[0])

    def test_a_killed_client_leaves_mistral_to_record_the_end(self):
        self.killed_once_started(
            'overcloud', 'deploy', '--stack', self.plan, '--templates',
            self.templates, '-e', self.settings(Slow=True, Wait='10'),
            until='configuring the servers')
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            last = self.last()
            if last['outcome']['status'] != 'IN_PROGRESS':
                break
            time.sleep(3)
        self.assertEqual(('SUCCESS', 'SUCCESS'), (
            last['outcome']['status'], last['config']['status']), last)
        self.assertEqual((0, self.plan), self.on(SERVERS[1], 'cat ~/cd-%s'
                                                 % self.plan))
