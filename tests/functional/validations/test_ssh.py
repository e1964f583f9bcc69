"""Validations on a deployed server, over a real SSH login.

The plan's stack has no resources, only the outputs that name its
servers (``RoleNetHostnameMap``, ``RoleNetIpMap``): one Controller at
127.0.0.1, where the loopback's ``sshd`` listens (``tools/loopback start
sshd``, before Mistral, whose configuration then names its user, key and
port). A validation on ``hosts: overcloud`` runs in Mistral's sandbox,
logs in through the egress proxy with the run's ssh-agent (the key
itself is nowhere in the sandbox: a playbook hunting for it under ``/``
finds nothing) and runs its tasks on the server as the dedicated user,
who sees neither the loopback's state nor its services (the session's
own network namespace: only the Swift port is tried); a wrong user, or
a login that offers no key, is refused by sshd, and the server is a
failed host with ssh's reason. The loopback lets only the admin
project's plans reach the server (``[tripleoplan] validation_servers``):
another project's stack naming 127.0.0.1 reaches nothing. Skipped when
sshd does not answer, unless ``FUNCTIONAL_REQUIRE_SSHD`` is set
(``tools/run-tests.sh`` sets it where it starts sshd): there a silent
sshd fails the test.
"""

import json
import os
import subprocess
import urllib.parse
import uuid

from tests.functional import base
from tests.functional import servers

SERVER = 'overcloud-controller-0'
STACK = '''heat_template_version: rocky
outputs:
  RoleNetHostnameMap:
    value: {Controller: {ctlplane: [%s]}}
  RoleNetIpMap:
    value: {Controller: {ctlplane: ['127.0.0.1']}}
''' % SERVER


def on_the_server(name, tasks, play_vars=''):
    """A plan's own validation whose tasks run on the servers."""
    return ('- hosts: overcloud\n  gather_facts: false\n  vars:\n'
            '    metadata:\n      name: %s\n      description: A test\'s '
            'own.\n      groups: [post-deployment]\n'
            '      requires: [inventory]\n%s  tasks:\n%s'
            % (name, play_vars, tasks))


class TestValidationsOverSsh(servers.DeployedPlanTest):

    PREFIX = 'valssh'

    @classmethod
    def setUpClass(cls):
        env = base.loopback_env()
        servers.required_port(env)
        cls.user = env['LOOPBACK_SSHD_USER']
        cls.sshd_log = env['LOOPBACK_SSHD_LOG']
        # what the server must not see: the loopback's state
        secret = os.path.join(env['LOOPBACK_DIR'], 'mistral', 'mistral.conf')
        swift = urllib.parse.urlsplit(env['LOOPBACK_SWIFT_URL']).port
        cls.TEMPLATES = {
            'overcloud.yaml': STACK,
            'roles_data.yaml': '- name: Controller\n',
            'custom-validations/who-runs-there.yaml': on_the_server(
                'Who runs there', '''\
    - name: Who I am on the server
      command: id -un
      register: who
    - name: What the server shows of the undercloud's loopback
      stat: {path: %s}
      register: secret
    - name: What the server reaches of the undercloud's services
      command: >-
        python3 -c "import socket;
        socket.create_connection(('127.0.0.1', %d), 2)"
      register: service
      failed_when: false
    - name: Logged in as the validations' user, not root, state unseen
      assert:
        that:
          - who.stdout == "%s"
          - not secret.stat.exists
          - service.rc != 0
        success_msg: "{{ inventory_hostname }}: ran as {{ who.stdout }}"
''' % (secret, swift, cls.user)),
            # a play may set its own login: sshd decides
            'custom-validations/as-root.yaml': on_the_server(
                'As root', '    - command: id -un\n',
                '    ansible_user: root\n'),
            # a login that offers no key (the agent's unused): refused
            'custom-validations/without-a-key.yaml': on_the_server(
                'Without a key', '    - command: id -un\n',
                '    ansible_ssh_private_key_file: /nonexistent/key\n'
                '    ansible_ssh_extra_args: -o PubkeyAuthentication=no\n'),
            'custom-validations/key-hunt.yaml': servers.key_hunt(
                env['LOOPBACK_SSHD_KEY'], play_vars=(
                    '    metadata:\n      name: Key hunt\n      '
                    'description: A member\'s playbook after private '
                    'keys.\n      groups: [post-deployment]\n')),
        }
        super().setUpClass()

    def sshd_says(self, offset):
        with open(self.sshd_log, 'rb') as f:
            f.seek(offset)
            return f.read().decode('utf-8', 'replace')

    def test_tasks_run_on_the_server_as_the_ssh_user(self):
        mark = os.path.getsize(self.sshd_log)
        rc, run, err = self.run_validations('who-runs-there',
                                            'deployed-servers-reachable')
        self.assertEqual((0, 'PASSED'), (rc, run['status']), err)
        self.assertEqual(['who-runs-there: PASSED',
                          'deployed-servers-reachable: PASSED'],
                         run['validations'])
        kept = json.loads(self.swift.get(
            'tripleo-validations-results',
            '%s/who-runs-there.json' % run['run']))
        checked = kept['plays'][0]['tasks'][-1]['hosts']
        self.assertEqual({SERVER: {'status': 'ok', 'msg': '%s: ran as %s' % (
            SERVER, self.user)}}, checked)
        self.assertEqual([SERVER], list(kept['stats']))
        self.assertIn('Accepted publickey for %s from 127.0.0.1'
                      % self.user, self.sshd_says(mark))
        rows = [r for r in self.results() if r['run'] == run['run']]
        self.assertEqual({'PASSED'}, {r['status'] for r in rows})

    def test_no_private_key_is_within_a_playbooks_reach(self):
        # beside a run that logs in with it
        rc, run, err = self.run_validations('key-hunt', 'who-runs-there')
        self.assertEqual((0, 'PASSED'), (rc, run['status']), err)
        self.assertEqual(['key-hunt: PASSED', 'who-runs-there: PASSED'],
                         run['validations'])

    def test_a_wrong_user_or_no_key_is_refused_by_the_server(self):
        mark = os.path.getsize(self.sshd_log)
        rc, run, _ = self.run_validations('as-root', 'without-a-key')
        self.assertEqual((1, 'FAILED'), (rc, run['status']))
        self.assertEqual(['as-root: FAILED', 'without-a-key: FAILED'],
                         run['validations'])
        self.assertEqual([SERVER], run['failed_hosts'])
        shown = self.openstack_json('overcloud', 'validation', 'show',
                                    run['run'])
        failures = ' '.join(shown['failures'])
        for who in ('root', self.user):
            self.assertIn('%s@127.0.0.1: Permission denied (publickey)'
                          % who, failures)
        self.assertIn('as-root: %s: command: ' % SERVER, failures)
        self.assertIn('unreachable', run['message'])
        self.assertIn('User root from 127.0.0.1 not allowed because not '
                      'listed in AllowUsers', self.sshd_says(mark))
        rows = [r for r in self.results() if r['run'] == run['run']]
        self.assertEqual([[SERVER], [SERVER]],
                         [r['failed_hosts'] for r in rows])

    def test_the_plans_recorded_login_user_logs_in(self):
        # what overcloud node provision --overcloud-ssh-user records in
        # the plan (nodes.login) is who logs in, not the configuration's
        # user: one sshd does not allow is refused
        self.swift.request('PUT', '%s/baremetal-login.yaml' % self.plan,
                           b'ssh_user: nobody-here\n')
        self.addCleanup(self.swift.request, 'DELETE',
                        '%s/baremetal-login.yaml' % self.plan)
        mark = os.path.getsize(self.sshd_log)
        rc, run, _ = self.run_validations('who-runs-there')
        self.assertEqual((1, 'FAILED'), (rc, run['status']))
        shown = self.openstack_json('overcloud', 'validation', 'show',
                                    run['run'])
        self.assertIn('nobody-here@127.0.0.1: Permission denied',
                      ' '.join(shown['failures']))
        self.assertIn('Invalid user nobody-here from 127.0.0.1',
                      self.sshd_says(mark))

    def results(self):
        out, _ = self.openstack('overcloud', 'validation', 'results',
                                '--plan', self.plan, '-f', 'json')
        return json.loads(out)


class TestAnotherProjectsStack(base.FunctionalTest):
    """A member of another project deploys a stack whose outputs name
    the admin project's server (127.0.0.1, the loopback's sshd) and runs
    a validation on it: the egress proxy refuses the server before any
    connection (the operator let only the admin project's plans reach
    it). sshd's log is not read: the other class's runs write to it at
    the same time."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        env = base.loopback_env()
        cls.port = servers.required_port(env)
        assert cls.session is not None, 'the services run without Keystone'
        tag = uuid.uuid4().hex[:8]
        cls.project, cls.user = 'tpc-other-%s' % tag, 'tpc-other-%s' % tag
        password = 'pw-%s' % uuid.uuid4().hex
        cls.cli('project', 'create', '--domain', 'default', cls.project)
        cls.cli('user', 'create', '--domain', 'default', '--password',
                password, cls.user)
        cls.cli('role', 'add', '--project', cls.project, '--user', cls.user,
                'member')
        cls.other = cls.cloud_env('other', auth={
            'username': cls.user, 'password': password,
            'project_name': cls.project, 'project_id': None})
        cls.plan = 'valssh-other-%s' % tag
        templates = base.write_tree(os.path.join(cls.tmp, 't'), {
            'overcloud.yaml': STACK, 'roles_data.yaml': '- name: Controller\n',
            'custom-validations/who-runs-there.yaml': on_the_server(
                'Who runs there', '    - command: id -un\n')})
        try:
            cls.cli('overcloud', 'validation', 'install', env=cls.other)
            cls.cli('overcloud', 'deploy', '--stack', cls.plan,
                    '--templates', templates, '-y', env=cls.other)
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        for args in (('stack', 'delete', '-y', '--wait', cls.plan),
                     ('overcloud', 'plan', 'delete', '-y', cls.plan)):
            subprocess.run(['openstack'] + list(args), env=cls.other,
                           capture_output=True, timeout=600)
        for args in (('user', 'delete', cls.user),
                     ('project', 'delete', cls.project)):
            subprocess.run(['openstack'] + list(args), env=cls.env,
                           capture_output=True, timeout=600)
        super().tearDownClass()

    def test_the_other_projects_server_is_not_reached(self):
        proc = subprocess.run(
            ['openstack', 'overcloud', 'validation', 'run', '--plan',
             self.plan, '--wait', '-f', 'json', 'who-runs-there'],
            env=self.other, capture_output=True, text=True,
            stdin=subprocess.DEVNULL, timeout=600)
        self.assertNotIn('Traceback', proc.stderr)
        run = json.loads(proc.stdout)
        self.assertEqual((1, 'FAILED', [SERVER]), (
            proc.returncode, run['status'], run['failed_hosts']))
        self.assertIn('127.0.0.1:%d (%s, named by the outputs of stack %s) '
                      'is not a server the validations of plan %s may '
                      'reach' % (self.port, SERVER, self.plan, self.plan),
                      run['message'])
        self.assertIn('unreachable', run['message'])
