"""Plan commands through the real client wrapper, with HTTP faked."""

import io
import json
import os
import shutil
import tempfile
from unittest import mock

from osc_lib import exceptions
import yaml

from tests.unit import fakes
from tripleoplanclient.osc import plan as plan_commands
from tripleoplanclient.record import diff as plan_diff

SWIFT = fakes.SWIFT
HEAT = fakes.HEAT


class TestDeletePlan(fakes.HttpTestCase):
    """``plan delete`` runs the plan_delete action (here its body, behind
    a fake Mistral): the checks are the action's, before any delete."""

    def setUp(self):
        super().setUp()
        self.m.get(SWIFT + '/p', json=[{'name': 'a.yaml', 'hash': 'h'}],
                   headers={'X-Container-Meta-Usage-Tripleo': 'plan'})
        self.m.get('http://swift.test/info', json={})
        self.obj_delete = self.m.delete(SWIFT + '/p/a.yaml', status_code=204)
        self.delete = self.m.delete(SWIFT + '/p', status_code=204)
        self.mistral = fakes.FakeMistral(self.m,
                                         fakes.plan_store(workers=1))

    def run_delete(self, endpoints, *argv):
        app = fakes.make_app(dict(endpoints, workflow=fakes.MISTRAL))
        cmd = plan_commands.DeletePlan(app, None)
        parsed = cmd.get_parser('delete').parse_args(list(argv))
        cmd.take_action(parsed)
        return app.stderr.getvalue()

    def test_refuses_while_the_stack_exists(self):
        self.m.get(HEAT + '/stacks/p', json={'stack': {
            'id': '1', 'stack_name': 'p', 'stack_status': 'CREATE_COMPLETE'}},
            headers={'Content-Type': 'application/json'})
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Stack p exists'):
            self.run_delete({'object-store': SWIFT, 'orchestration': HEAT},
                            '-y', 'p')
        self.assertEqual(0, self.delete.call_count)
        self.assertEqual(0, self.obj_delete.call_count)
        self.assertEqual([('tripleoplan.plan_delete', 'sync')],
                         self.mistral.runs)

    def test_deletes_when_heat_has_no_such_stack(self):
        self.m.get(HEAT + '/stacks/p', status_code=404)
        err = self.run_delete({'object-store': SWIFT,
                               'orchestration': HEAT}, '-y', 'p')
        self.assertEqual(1, self.obj_delete.call_count)
        self.assertEqual(1, self.delete.call_count)
        self.assertIn('Deleted plan p (1 objects).', err)

    def test_heat_that_cannot_say_refuses_the_delete(self):
        self.m.get(HEAT + '/stacks/p', status_code=503)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Cannot reach Heat at .* to look up '
                                    'stack p'):
            self.run_delete({'object-store': SWIFT, 'orchestration': HEAT},
                            '-y', 'p')
        self.assertEqual(0, self.delete.call_count)

    def test_one_unknown_plan_stops_the_whole_delete(self):
        self.m.get(HEAT + '/stacks/p', status_code=404)
        self.m.get(SWIFT + '/q', status_code=404)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Plan q does not exist'):
            self.run_delete({'object-store': SWIFT}, '-y', 'p', 'q')
        self.assertEqual(0, self.delete.call_count)
        self.assertEqual(0, self.obj_delete.call_count)

    def test_without_yes_and_no_terminal_only_the_check_runs(self):
        self.m.get(HEAT + '/stacks/p', status_code=404)
        with mock.patch('sys.stdin', io.StringIO()), \
                self.assertRaisesRegex(exceptions.CommandError,
                                       'pass -y to go on'):
            self.run_delete({'object-store': SWIFT}, 'p')
        self.assertEqual(0, self.delete.call_count)
        self.assertEqual(1, len(self.mistral.runs))


class TestDiffPlan(fakes.HttpTestCase):
    """``plan create``, ``amend``, ``diff`` as OSC runs them, on a fake
    Swift with state."""

    def setUp(self):
        super().setUp()
        self.our_services()
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        # what the templates hide, kept by the command between runs
        patcher = mock.patch.dict(os.environ, {
            'XDG_CACHE_HOME': os.path.join(self.dir, 'cache')})
        patcher.start()
        self.addCleanup(patcher.stop)
        self.tht = os.path.join(self.dir, 'tht')
        fakes.write_file(os.path.join(self.tht, 'overcloud.yaml'),
                         'heat_template_version: rocky\nparameters:\n'
                         '  AdminPassword: {type: string, hidden: true}\n')
        self.env = fakes.write_file(os.path.join(self.dir, 'env.yaml'),
                                    'parameter_defaults:\n'
                                    '  NtpServer: a.example\n')

    def run_command(self, cls, *argv):
        """stdout and stderr of one command."""
        app = fakes.make_app({'object-store': SWIFT,
                              'workflow': fakes.MISTRAL})
        app.stdout = io.StringIO()
        cmd = cls(app, None)
        parsed = cmd.get_parser('openstack').parse_args(list(argv))
        self.assertEqual(0, cmd.run(parsed))
        return app.stdout.getvalue(), app.stderr.getvalue()

    def story(self):
        self.run_command(plan_commands.CreatePlan, 'p', '--templates',
                         self.tht, '-e', self.env, '--no-render')
        fakes.write_file(self.env, 'parameter_defaults:\n'
                         '  NtpServer: b.example\n'
                         '  AdminPassword: NotTheGenerated1\n')
        other = fakes.write_file(os.path.join(self.dir, 'other.yaml'),
                                 'parameter_defaults: {Debug: true}\n')
        self.run_command(plan_commands.AmendPlan, 'p', '-e', self.env,
                         '-e', other, '--no-render')

    def test_json_carries_the_whole_comparison(self):
        self.story()
        out, err = self.run_command(plan_commands.DiffPlan, 'p', '-f',
                                    'json')
        result = json.loads(out)
        self.assertEqual(list(plan_diff.COLUMNS), list(result))
        self.assertEqual((1, 2), (result['from']['step'],
                                  result['to']['step']))
        self.assertIn('never deployed', err)
        env = 'user-files' + self.env
        self.assertEqual(['user-files' + os.path.join(
            self.dir, 'other.yaml')], result['environments_added'])
        self.assertEqual([env], result['files_changed'])
        self.assertFalse(result['environments_reordered'])
        self.assertEqual({'change': 'changed', 'old': 'a.example',
                          'new': 'b.example'},
                         result['parameters_changed']['NtpServer'])
        self.assertEqual({'change': 'changed', 'old': '***', 'new': '***'},
                         result['parameters_changed']['AdminPassword'])
        self.assertIn('-  NtpServer: a.example\n+  NtpServer: b.example\n'
                      '+  AdminPassword: ***\n', result['diff'])
        generated = yaml.safe_load(self.swift.objects[
            'plan-environment.yaml'][0])['passwords']['AdminPassword']
        for secret in (generated, 'NotTheGenerated1'):
            self.assertNotIn(secret, out + err)

    def test_the_diff_column_alone_is_the_unified_diff(self):
        self.story()
        out, _ = self.run_command(plan_commands.DiffPlan, 'p', '--from',
                                  '1', '--to', '2', '-f', 'value', '-c',
                                  'diff')
        env = 'user-files' + self.env
        self.assertTrue(out.startswith('--- a/%s\n+++ b/%s\n@@ -1,2 +1,3 @@'
                                       '\n' % (env, env)), out)

    def test_an_unknown_step_is_refused_and_nothing_is_written(self):
        self.story()
        before = dict(self.swift.objects)
        self.swift.requests.clear()
        app = fakes.make_app({'object-store': SWIFT,
                              'workflow': fakes.MISTRAL})
        app.stdout = io.StringIO()
        cmd = plan_commands.DiffPlan(app, None)
        parsed = cmd.get_parser('openstack').parse_args(
            ['p', '--from', '99', '-f', 'json'])
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Plan p has no step 99: its history '
                                    'has steps 1 to 2'):
            cmd.run(parsed)
        self.assertEqual('', app.stdout.getvalue())
        self.assertEqual(before, self.swift.objects)
        self.assertEqual([], [r for r in self.swift.requests
                              if r[0] not in ('LIST', 'GET')])
