"""A command's columns never depend on its options: each command's parser
run over combinations of its options, on a deployed plan (a stateful
Swift, our actions behind the fake Mistral, Heat by requests-mock), gives
one column set. A different view is a different command."""

import contextlib
import io
import json
import os
from unittest import mock

from tests.unit import fakes
from tripleoplanclient.osc import deploy as deploy_commands
from tripleoplanclient.osc import plan as plan_commands
from tripleoplanclient.osc import plan_step as plan_step_commands
from tripleoplanclient.osc import preview as preview_commands
from tripleoplanclient.record import log
from tripleoplanclient.stack import preview

STACK_ID = fakes.STACK_ID
CREATED = '2026-11-25T00:00:00Z'
ENDPOINTS = fakes.ENDPOINTS
TEMPLATES = {
    'overcloud.yaml': 'heat_template_version: rocky\nparameters:\n'
                      '  NtpServer: {type: string, default: x}\n'
                      'resources: {}\n',
    'roles_data.yaml': '- name: Controller\n',
    'environments/lifecycle/update-prepare.yaml': 'parameter_defaults: {}\n',
    'environments/lifecycle/upgrade-prepare.yaml': 'parameter_defaults: {}\n',
}


class TestColumnsWhateverTheOptions(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.temp_dir()
        self.deploy_services()
        self.m.put(fakes.HEAT + '/stacks/' + STACK_ID, status_code=202)
        tht = os.path.join(self.dir, 'tht')
        for path, text in TEMPLATES.items():
            fakes.write_file(os.path.join(tht, path), text)
        self.env = fakes.write_file(os.path.join(self.dir, 'env.yaml'),
                                    'parameter_defaults: {NtpServer: a}\n')
        self.columns(plan_commands.CreatePlan, 'p', '--templates', tht)
        fakes.stack_is(self.m, None)
        self.columns(deploy_commands.Deploy, '--stack', 'p', '--no-wait')
        fakes.stack_is(self.m, {'stack': {
            'id': STACK_ID, 'stack_name': 'p',
            'stack_status': 'CREATE_COMPLETE', 'stack_status_reason': 'done',
            'creation_time': CREATED}}, STACK_ID)
        self.step_id = self.newest()

    def newest(self):
        return log.id_of(max(n for n in self.swift.objects
                             if n.startswith(log.LOG_PREFIX)))

    def shown(self, cls, *argv):
        """What ``cls`` prints for ``argv`` with ``-f json``, parsed."""
        app = fakes.make_app(ENDPOINTS)
        app.stdout = io.StringIO()
        cmd = cls(app, None)
        parsed = cmd.get_parser('openstack').parse_args(
            list(argv) + ['-f', 'json'])
        before = self.newest() if self.swift.objects else None
        self.assertEqual(0, cmd.run(parsed), app.stderr.getvalue())
        self.stderr = app.stderr.getvalue()
        if issubclass(cls, deploy_commands.StackCommand) and \
                self.newest() != before:
            # The stack step ends (--no-wait): the next one may start.
            fakes.plan_store().writer.write_outcome('p', self.newest(), {
                'status': 'SUCCESS', 'stack_status': 'UPDATE_COMPLETE',
                'stack_id': STACK_ID}, {'id': STACK_ID, 'updated': CREATED})
        return json.loads(app.stdout.getvalue())

    def columns(self, cls, *argv):
        """The columns ``cls`` shows for ``argv`` (a list's first row)."""
        shown = self.shown(cls, *argv)
        return tuple(shown[0] if isinstance(shown, list) else shown)

    def assertOneColumnSet(self, expected, cls, *argvs):
        if issubclass(cls, deploy_commands.StackCommand):
            argvs = [('--stack', 'p') + argv for argv in argvs]
        seen = {argv: self.columns(cls, *argv) for argv in argvs}
        self.assertEqual({tuple(expected)}, set(seen.values()), seen)

    def output(self, name):
        return ('--output-file', os.path.join(self.dir, name),
                '--force-overwrite')

    def test_plan_export_with_or_without_a_step(self):
        self.assertOneColumnSet(
            plan_commands.EXPORT_COLUMNS, plan_commands.ExportPlan,
            ('p',) + self.output('now.tar.gz'),
            ('p', '--step', '1') + self.output('one.tar.gz'),
            ('p', '--step', self.step_id) + self.output('two.tar.gz'))

    def test_plan_export_names_the_current_step(self):
        before = len(self.swift.requests)
        shown = self.shown(plan_commands.ExportPlan, 'p',
                           *self.output('now.tar.gz'))
        self.assertEqual((2, self.step_id), (shown['step'], shown['id']))
        # reading the step writes nothing (not even the index's mend)
        self.assertEqual([], [r for r in self.swift.requests[before:]
                              if r[0] not in ('GET', 'HEAD', 'LIST')])

    def test_show_history_and_show_step(self):
        self.assertOneColumnSet(plan_commands.HISTORY_COLUMNS,
                                plan_commands.ShowPlanHistory, ('p',))
        self.assertOneColumnSet(
            plan_step_commands.COLUMNS, plan_step_commands.ShowPlanStep,
            ('p', '1'), ('p', '2'), ('p', self.step_id))

    def test_show_history_step_names_the_command_that_shows_it(self):
        cmd = plan_commands.ShowPlanHistory(fakes.make_app(ENDPOINTS), None)
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr), \
                self.assertRaises(SystemExit) as caught:
            cmd.get_parser('openstack overcloud plan show-history').parse_args(
                ['p', '--step', '2'])
        self.assertEqual(2, caught.exception.code)
        self.assertIn('"openstack overcloud plan show-step <plan> 2"',
                      stderr.getvalue())
        self.assertNotIn('--step', cmd.get_parser('x').format_help())

    def test_deploy_update_upgrade_with_or_without_dry_run(self):
        env = ('-e', self.env)
        self.assertOneColumnSet(
            deploy_commands.RESULT_COLUMNS, deploy_commands.Deploy,
            ('--dry-run',), ('--dry-run', '--no-wait') + env,
            ('--dry-run', '--force'), (), ('--no-wait',) + env)
        for cls, runs in (
                (deploy_commands.Update, (('--stage', 'converge'),)),
                (deploy_commands.UpdatePrepare, ()),
                (deploy_commands.UpgradeConverge, ()),
                (deploy_commands.Upgrade, ((),))):
            self.assertOneColumnSet(
                deploy_commands.RESULT_COLUMNS, cls,
                ('--dry-run',), ('--dry-run', '-y') + env,
                *[('-y', '--no-wait') + run for run in runs])

    def test_dry_run_row(self):
        shown = self.shown(deploy_commands.Update, '--stack', 'p',
                           '--dry-run')
        self.assertEqual(
            ('DRY_RUN', None, 'update', 'UPDATE', STACK_ID, 'CREATE_COMPLETE',
             False),
            (shown['status'], shown['id'], shown['action'],
             shown['operation'], shown['stack_id'], shown['stack_status'],
             shown['rendered']))
        self.assertEqual(['environments/lifecycle/update-prepare.yaml'],
                         shown['environments'])
        self.assertIn('Heat would UPDATE the stack', self.stderr)

    def test_the_previews(self):
        every = deploy_commands.PREVIEW_COLUMNS + preview.COLUMNS
        self.assertOneColumnSet(every, preview_commands.DeployPreview,
                                (), ('-e', self.env), ('--force',))
        self.assertOneColumnSet(every, preview_commands.UpdatePreview,
                                (), ('--stage', 'converge'))
        self.assertOneColumnSet(every, preview_commands.UpgradePreview, ())

    def test_previews_take_no_option_of_a_run(self):
        for cls in (preview_commands.DeployPreview,
                    preview_commands.UpdatePreview,
                    preview_commands.UpgradePreview):
            options = cls(mock.Mock(), None).get_parser(
                'x')._option_string_actions
            self.assertEqual(set(), {'--wait', '--no-wait', '--dry-run',
                                     '-y', '--yes'} & set(options), cls)
