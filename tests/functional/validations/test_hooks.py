"""The life cycle's hooks through the real CLI, on the loopback: the
validations run by ansible-playbook in the loopback Mistral's executor,
the stacks in the loopback Heat, the nodes in the loopback Ironic.

A failing pre-update check refuses ``update --run-validations`` (exit 3)
with the plan's objects and record unchanged byte for byte; a failing
post-deployment check leaves ``deploy --run-post-validations``'s step
SUCCESS (exit 1) with the run's id in its record; an update with both
hooks passing records both runs; ``node import --run-validations`` with a
failing pre-introspection check registers nothing in Ironic, and with
the installed checks passing registers the nodes, each row naming the
run.
"""

import json
import subprocess
import uuid

from tests.functional import base
from tests.functional import deploy_base
from tests.functional import ironic_base


def playbook(name, group, fails):
    task = ('fail: {msg: "%s failed on purpose"}' % name if fails
            else 'assert: {that: "1 == 1"}')
    return ('- hosts: localhost\n  gather_facts: false\n  vars:\n'
            '    metadata:\n      name: %s\n      description: A test\'s '
            'own.\n      groups: [%s]\n  tasks:\n    - name: The %s check\n'
            '      %s\n' % (name, group, name, task))


def run(env, *args):
    """``openstack args -f json``: (exit status, stdout parsed, stderr)."""
    proc = subprocess.run(['openstack'] + list(args) + ['-f', 'json'],
                          env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=900)
    assert 'Traceback' not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def templates(own):
    """The small templates, with the plan's own validations ``own``
    (name -> (group, fails))."""
    return dict(deploy_base.TEMPLATES, **{
        'custom-validations/%s.yaml' % name: playbook(name, *how)
        for name, how in own.items()})


class HookTest(deploy_base.DeployTest):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.cli('overcloud', 'validation', 'install')

    def setUp(self):
        super().setUp()
        self.plan = 'hooks-%s' % uuid.uuid4().hex[:8]

    def step_object(self, step_id):
        from tripleoplanclient.record import log
        name, = [n for n in self.swift.listing(self.plan)
                 if log.id_of(n) == step_id]
        return log.load_step(self.swift.get(self.plan, name), self.plan,
                             name)


class TestPreCheckRefuses(HookTest):

    TEMPLATES = templates({'hooks-pre-update-fails': ('pre-update', True)})

    def test_a_failing_pre_update_check_refuses_the_update(self):
        self.first_deploy()
        before = self.snapshot(self.plan)
        record = self.record()
        index = self.swift.get(self.plan, 'user-environments/'
                               'environments.yaml')
        code, row, err = run(self.env, 'overcloud', 'update', '--stack',
                             self.plan, '--run-validations', '-y')
        self.assertEqual((3, 'REFUSED'), (code, row['status']), err)
        self.assertIn('Not updating: 1 pre-update validation(s) did not '
                      'pass', err)
        self.assertIn('hooks-pre-update-fails FAILED: localhost: The '
                      'hooks-pre-update-fails check: hooks-pre-update-fails '
                      'failed on purpose', err)
        self.assertIn('Nothing was changed', err)
        ran, = row['validations']
        self.assertEqual('FAILED', ran['status'])
        shown = self.openstack_json('overcloud', 'validation', 'show',
                                    ran['run'])
        self.assertEqual('FAILED', shown['status'])
        self.assertEqual(before, self.snapshot(self.plan))
        self.assertEqual(index, self.swift.get(
            self.plan, 'user-environments/environments.yaml'))
        self.assertEqual(record, self.record())
        self.assertEqual('CREATE_COMPLETE', self.stack()['stack_status'])


class TestRunsRecorded(HookTest):

    TEMPLATES = templates({
        'hooks-post-deployment-fails': ('post-deployment', True),
        'hooks-pre-update-passes': ('pre-update', False),
        'hooks-post-update-passes': ('post-update', False)})

    def test_a_failing_post_deployment_check_leaves_the_step_done(self):
        code, row, err = run(
            self.env, 'overcloud', 'deploy', '--stack', self.plan,
            '--templates', self.templates, '-e', self.registry, '-e',
            self.mine, '--run-post-validations')
        self.assertEqual((1, 'SUCCESS'), (code, row['status']), err)
        post, = row['validations']
        self.assertEqual(('post', 'post-deployment', 'FAILED'),
                         (post['hook'], post['group'], post['status']))
        self.assertIn('Step %s is done, but' % row['id'], err)
        self.assertIn('hooks-post-deployment-fails FAILED: localhost: The '
                      'hooks-post-deployment-fails check', err)
        history = self.openstack_json('overcloud', 'plan', 'show-history',
                                      self.plan)
        step = history[-1]
        self.assertEqual((row['id'], 'SUCCESS', [post]), (
            step['id'], step['outcome']['status'], step['validations']))
        shown = self.openstack_json('overcloud', 'validation', 'show',
                                    post['run'])
        self.assertEqual('FAILED', shown['status'])

    def test_an_update_records_both_hooks_runs(self):
        self.first_deploy()
        code, row, err = run(self.env, 'overcloud', 'update', '--stack',
                             self.plan, '--run-validations',
                             '--run-post-validations', '-y')
        self.assertEqual((0, 'SUCCESS'), (code, row['status']), err)
        pre, post = row['validations']
        self.assertEqual(
            [('pre', 'pre-update', 'PASSED'), ('post', 'post-update',
                                               'PASSED')],
            [(v['hook'], v['group'], v['status']) for v in (pre, post)])
        # the pre hook's run is part of the step; the post hook's has
        # objects of its own, merged into the row by its readers
        self.assertEqual([pre], self.step_object(row['id'])['validations'])
        step = self.openstack_json('overcloud', 'plan', 'show-history',
                                   self.plan)[-1]
        self.assertEqual((row['id'], [pre, post]),
                         (step['id'], step['validations']))
        _, err = self.openstack('overcloud', 'plan', 'show-step', self.plan,
                                row['id'])
        self.assertIn('(pre hook): pre-update run %s, PASSED' % pre['run'],
                      err)
        self.assertIn('(post hook): post-update run %s, PASSED'
                      % post['run'], err)


class TestNodeImport(base.FunctionalTest, ironic_base.IronicCase):

    def setUp(self):
        super().setUp()
        tag = uuid.uuid4().hex[:8]
        self.prefix = 'tpc-hooks-%s' % tag
        # a BMC of its own (the loopback Ironic is shared by two workers)
        self.bmc_port = 60010 + int(tag[:4], 16) % 5000
        self.addCleanup(self.delete_nodes)
        self.cli('overcloud', 'validation', 'install')

    def nodes_file(self):
        nodes = [{'name': '%s-%d' % (self.prefix, i),
                  'pm_type': 'fake-hardware', 'pm_addr': '127.0.0.1',
                  'pm_port': self.bmc_port + i,
                  'pm_user': 'admin', 'pm_password': 'hooks-%s' % i,
                  'ports': [{'address': ironic_base.random_mac()}]}
                 for i in range(2)]
        return self.write('%s/nodes.json' % self.prefix,
                          json.dumps({'nodes': nodes}))

    def ours(self):
        nodes = self.ok(200, 'GET', '/nodes?limit=1000')['nodes']
        return sorted(n['name'] for n in nodes
                      if (n['name'] or '').startswith(self.prefix))

    def delete_nodes(self):
        for name in self.ours():
            self.call('DELETE', '/nodes/%s' % name)

    def installed(self, vid, text):
        """A validation in the project's container, for this test only
        (under the catalogue's own directory)."""
        from tripleoplanclient.validations import catalog
        path = '%s/validation-playbooks/%s.yaml' % (catalog.CONTAINER, vid)
        status, _, _ = self.swift.request('PUT', path, text.encode())
        self.assertIn(status, (201, 202))
        self.addCleanup(self.swift.request, 'DELETE', path)
        return path

    def test_a_failing_pre_introspection_check_registers_nothing(self):
        vid = '%s-fails' % self.prefix
        path = self.installed(vid, playbook(vid, 'pre-introspection', True))
        code, rows, err = run(self.env, 'overcloud', 'node', 'import',
                              self.nodes_file(), '--run-validations')
        self.swift.request('DELETE', path)
        self.assertEqual((3, ['REFUSED']), (code, [r['status'] for r in rows]),
                         err)
        self.assertEqual([['pre', 'pre-introspection', 'FAILED']], [
            [v['hook'], v['group'], v['status']]
            for v in rows[0]['validations']])
        self.assertIn('Not registering the nodes: 1 pre-introspection '
                      'validation(s) did not pass', err)
        self.assertIn('%s FAILED: localhost' % vid, err)
        self.assertEqual([], self.ours())

    def test_the_rows_name_the_run_that_passed(self):
        code, rows, err = run(self.env, 'overcloud', 'node', 'import',
                              self.nodes_file(), '--run-validations')
        self.assertEqual(0, code, err)
        self.assertEqual(['%s-%d' % (self.prefix, i) for i in range(2)],
                         self.ours())
        found = {json.dumps(r['validations']) for r in rows}
        self.assertEqual(1, len(found))
        ran, = json.loads(found.pop())
        self.assertEqual(('pre', 'pre-introspection', 'PASSED'),
                         (ran['hook'], ran['group'], ran['status']))
        shown = self.openstack_json('overcloud', 'validation', 'show',
                                    ran['run'])
        self.assertEqual('PASSED', shown['status'])
