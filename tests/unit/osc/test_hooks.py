"""``--run-validations`` and ``--run-post-validations`` as cliff runs
them: the fake Mistral runs our validation and deploy actions' bodies on
stateful fake Swift containers (ansible-playbook for real), Heat is
faked over HTTP. A pre hook that does not pass refuses the step (exit
3, nothing written); a post hook that does not pass leaves the step done
(exit 1); both runs' ids are in the step's record."""

import argparse
import io
import json
import os

from tests.unit import fakes
from tripleoplanclient.osc import deploy as deploy_commands
from tripleoplanclient.osc import exit_status
from tripleoplanclient.osc import node_import
from tripleoplanclient.osc import node_states
from tripleoplanclient.osc import plan as plan_commands
from tripleoplanclient.osc import plan_step
from tripleoplanclient.osc import preview
from tripleoplanclient.record import hook_runs
from tripleoplanclient.record import log
from tripleoplanclient.validations import catalog
from tripleoplanclient.validations import results
from tripleoplanclient.validations import runner

STACK = '/stacks/p/' + fakes.STACK_ID
GROUPS = (b'pre-deployment: [{description: Before}]\n'
          b'post-deployment: [{description: After}]\n'
          b'pre-update: [{description: Before an update}]\n'
          b'pre-introspection: [{description: Before the nodes}]\n')
PASS = 'assert: {that: "1 == 1"}'
FAIL = 'name: The check\n      fail: {msg: not today}'


def playbook(task, group):
    return ('- hosts: localhost\n  gather_facts: false\n  vars:\n'
            '    metadata: {name: N, description: d, groups: [%s]}\n'
            '  tasks:\n    - %s\n' % (group, task)).encode()


class TestOptions(fakes.HttpTestCase):

    def help(self, cls):
        cmd = cls(fakes.make_app(fakes.ENDPOINTS), None)
        return cmd.get_parser('openstack').format_help()

    def test_each_step_names_its_groups(self):
        for cls, pre, post in (
                (deploy_commands.Deploy, 'pre-deployment', 'post-deployment'),
                (deploy_commands.Update, 'pre-update', 'post-update'),
                (deploy_commands.UpdateConverge, 'pre-update', 'post-update'),
                (deploy_commands.Upgrade, 'pre-upgrade', 'post-upgrade'),
                (deploy_commands.UpgradePrepare, 'pre-upgrade',
                 'post-upgrade'),
                (node_import.ImportNode, 'pre-introspection', None),
                (node_states.IntrospectNode, 'pre-introspection', None)):
            text = ' '.join(self.help(cls).split())
            self.assertIn('--run-validations First run the %s' % pre, text)
            if post:
                self.assertIn('the step succeeded (its servers configured), '
                              'run the %s validations' % post, text)
            else:
                self.assertNotIn('--run-post-validations', text)

    def test_a_preview_runs_none(self):
        for cls in (preview.DeployPreview, preview.UpdatePreview,
                    preview.UpgradePreview):
            self.assertNotIn('--run-', self.help(cls))


class TestHooks(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        if runner.ansible_playbook() is None:
            self.skipTest('ansible-core is not installed')
        self.deploy_services()
        self.installed = fakes.FakeSwift(self.m, plan=catalog.CONTAINER)
        self.kept = fakes.FakeSwift(self.m, plan=results.CONTAINER)
        self.installed.store('groups.yaml', GROUPS)
        self.clock = fakes.FakeClock()

    def validation(self, name, task, group):
        self.installed.store('%s.yaml' % name, playbook(task, group))

    def create_plan(self):
        tht = os.path.join(self.temp_dir(), 'tht')
        fakes.write_file(os.path.join(tht, 'overcloud.yaml'),
                         'heat_template_version: rocky\nresources: {}\n')
        fakes.write_file(os.path.join(tht, 'roles_data.yaml'),
                         '- name: Controller\n')
        fakes.write_file(os.path.join(
            tht, 'environments', 'lifecycle', 'update-prepare.yaml'),
            'parameter_defaults: {}\n')
        self.assertEqual(0, self.run_command(
            plan_commands.CreatePlan, 'p', '--templates', tht)[0])

    def stack_completes(self):
        fakes.stack_is(self.m, None)
        self.m.get(fakes.HEAT + STACK + '/events', headers=fakes.JSON,
                   json={'events': [{
                       'id': 'e2', 'links': [], 'resource_name': 'p',
                       'physical_resource_id': fakes.STACK_ID,
                       'logical_resource_id': 'p',
                       'event_time': '2026-11-25T12:00:00Z',
                       'resource_status': 'CREATE_COMPLETE',
                       'resource_status_reason': 'done'}]})
        self.m.get(fakes.HEAT + STACK, headers=fakes.JSON, json={'stack': {
            'id': fakes.STACK_ID, 'stack_name': 'p',
            'stack_status': 'CREATE_COMPLETE', 'stack_status_reason': '',
            'creation_time': '2026-11-25T12:00:00Z', 'outputs': []}})

    def stack_exists(self):
        fakes.stack_is(self.m, {'stack': {
            'id': fakes.STACK_ID, 'stack_name': 'p',
            'stack_status': 'CREATE_COMPLETE', 'stack_status_reason': '',
            'creation_time': '2026-11-25T12:00:00Z', 'outputs': []}})

    def run_command(self, cls, *argv, endpoints=fakes.ENDPOINTS):
        app = fakes.make_app(endpoints)
        app.stdout = io.StringIO()
        cmd = cls(app, argparse.Namespace(verbose_level=1))
        cmd.waiting = {'sleep': self.clock.sleep, 'clock': self.clock}
        parsed = cmd.get_parser('openstack').parse_args(
            list(argv) + ['-f', 'json'])
        code = cmd.run(parsed)
        return code, json.loads(app.stdout.getvalue() or 'null'), \
            app.stderr.getvalue()

    def test_a_failing_pre_check_refuses_the_step_with_nothing_written(self):
        self.create_plan()
        self.stack_exists()
        self.validation('fine', PASS, 'pre-update')
        self.validation('broken', FAIL, 'pre-update')
        before = dict(self.swift.objects)
        code, row, err = self.run_command(
            deploy_commands.Update, '--stack', 'p', '--run-validations',
            '-y')
        self.assertEqual((exit_status.REFUSED, 'REFUSED'),
                         (code, row['status']), err)
        self.assertIn('Not updating: 1 pre-update validation(s) did not pass',
                      err)
        self.assertIn('broken FAILED: localhost: The check: not today', err)
        self.assertEqual(before, self.swift.objects)
        # the refused row names the run
        ran, = row['validations']
        self.assertEqual(('pre', 'pre-update', 'FAILED'),
                         (ran['hook'], ran['group'], ran['status']))
        self.assertIn('(run %s)' % ran['run'], err)
        # the run is kept with the validations' results
        runs = [n for n in self.kept.objects if n.endswith('run.json')]
        self.assertEqual(1, len(runs), sorted(self.kept.objects))

    def test_a_dry_run_runs_no_validation(self):
        self.create_plan()
        self.stack_exists()
        self.validation('broken', FAIL, 'pre-update')
        code, row, err = self.run_command(
            deploy_commands.Update, '--stack', 'p', '--run-validations',
            '--run-post-validations', '--dry-run')
        self.assertEqual((0, 'DRY_RUN', []),
                         (code, row['status'], row['validations']), err)
        self.assertIn('--dry-run: no validation is run (they would be the '
                      'pre-update and post-update)', err)
        self.assertEqual({}, self.kept.objects)

    def test_post_checks_want_the_end_of_the_step(self):
        self.create_plan()
        before = dict(self.swift.objects)
        code, row, err = self.run_command(
            deploy_commands.Deploy, '--stack', 'p', '--run-post-validations',
            '--no-wait')
        self.assertEqual((exit_status.REFUSED, 'REFUSED'),
                         (code, row['status']), err)
        self.assertIn('it cannot go with --no-wait', err)
        self.assertEqual(before, self.swift.objects)

    def test_a_failing_post_check_leaves_the_step_done(self):
        self.create_plan()
        self.stack_completes()
        self.validation('first', PASS, 'pre-deployment')
        self.validation('after', FAIL, 'post-deployment')
        code, row, err = self.run_command(
            deploy_commands.Deploy, '--stack', 'p', '--run-validations',
            '--run-post-validations')
        self.assertEqual((exit_status.FAILED, 'SUCCESS'),
                         (code, row['status']), err)
        pre, post = row['validations'][0], row['validations'][-1]
        self.assertEqual(('pre', 'pre-deployment', 'PASSED'),
                         (pre['hook'], pre['group'], pre['status']))
        self.assertEqual(('post', 'post-deployment', 'FAILED'),
                         (post['hook'], post['group'], post['status']))
        self.assertNotEqual(pre['run'], post['run'])
        self.assertIn('Step %s is done, but 1 post-deployment validation(s) '
                      'did not pass (run %s):\n  after FAILED: localhost: '
                      'The check: not today' % (row['id'], post['run']), err)
        # the pre hook is in the step object; the post hook's objects
        # are its own, its start and its end
        step_name, = [n for n in self.swift.objects
                      if log.id_of(n) == row['id']]
        step = log.load_step(self.swift.objects[step_name][0], 'p',
                             step_name)
        self.assertEqual([pre], step['validations'])
        self.assertEqual(
            [hook_runs.path(row['id'], post['run'], final=False),
             hook_runs.path(row['id'], post['run'])],
            sorted(n for n in self.swift.objects
                   if n.startswith(hook_runs.PREFIX)))
        code, rows, _ = self.run_command(plan_commands.ShowPlanHistory, 'p')
        self.assertEqual([[], [pre, post]],
                         [r['validations'] for r in rows])
        code, _, err = self.run_command(plan_step.ShowPlanStep, 'p', '2')
        self.assertIn('Validations of step 2 (post hook): post-deployment '
                      'run %s, FAILED.' % post['run'], err)

    def test_post_checks_run_only_after_a_step_that_succeeded(self):
        self.create_plan()
        self.stack_completes()
        self.m.get(fakes.HEAT + STACK, headers=fakes.JSON, json={'stack': {
            'id': fakes.STACK_ID, 'stack_name': 'p',
            'stack_status': 'CREATE_FAILED', 'stack_status_reason': 'no',
            'creation_time': '2026-11-25T12:00:00Z', 'outputs': []}})
        self.m.get(fakes.HEAT + STACK + '/resources', headers=fakes.JSON,
                   json={'resources': []})
        self.validation('after', PASS, 'post-deployment')
        code, row, err = self.run_command(
            deploy_commands.Deploy, '--stack', 'p', '--run-post-validations')
        self.assertEqual((exit_status.FAILED, 'FAILED', []),
                         (code, row['status'], row['validations']), err)
        self.assertIn('The post-deployment validations are not run: the '
                      'step did not succeed.', err)
        self.assertEqual({}, self.kept.objects)

    def test_node_import_refused_before_anything_is_registered(self):
        self.validation('ironic-answers', FAIL, 'pre-introspection')
        path = fakes.write_file(
            os.path.join(self.temp_dir(), 'nodes.json'), json.dumps(
                {'nodes': [{'name': 'n0', 'pm_type': 'fake-hardware',
                            'pm_addr': '127.0.0.1', 'pm_password': 'pw',
                            'mac': ['52:54:00:00:01:00']}]}))
        ironic = 'http://ironic.test'
        endpoints = dict(fakes.ENDPOINTS, baremetal=ironic)
        code, rows, err = self.run_command(
            node_import.ImportNode, path, '--run-validations',
            endpoints=endpoints)
        self.assertEqual((exit_status.REFUSED, ['REFUSED']),
                         (code, [r['status'] for r in rows]), err)
        # the one row names the run that refused it
        self.assertEqual([('pre', 'pre-introspection', 'FAILED')], [
            (v['hook'], v['group'], v['status'])
            for v in rows[0]['validations']])
        self.assertIn('Not registering the nodes: 1 pre-introspection '
                      'validation(s) did not pass', err)
        self.assertIn('ironic-answers FAILED', err)
        code, rows, err = self.run_command(
            node_states.IntrospectNode, 'n0', '--run-validations',
            endpoints=endpoints)
        self.assertEqual(exit_status.REFUSED, code, err)
        self.assertEqual([('n0', 'REFUSED')],
                         [(r['name'], r['status']) for r in rows])
        self.assertIn('Not introspecting the nodes', err)
        self.assertEqual([], [r for r in self.m.request_history
                              if r.url.startswith(ironic)])
        self.assertEqual([], [r for r in self.m.request_history
                              if 'node_' in (r.text or '')])
