"""Environment files as their users named them: in every table of the
plan commands; ``-f json``/``yaml``/``value`` keep the plan paths under
``environments`` (what ``plan restore`` and ``-e`` take) and add the names
last, as ``environment_names``. show-step tells each recorded source's
state. Through the real commands, the Mistral side run here, on a fake
Swift with state."""

import io
import json
import os

from tests.unit import fakes
from tripleoplanclient.osc import plan as plan_commands
from tripleoplanclient.osc import plan_show
from tripleoplanclient.osc import plan_step
from tripleoplanclient.plan import files as files_mod
from tripleoplanclient.record import log


class TestNamesShown(fakes.PlanTestCase):

    def setUp(self):
        super().setUp()
        self.tht = os.path.dirname(self.write(
            'tht/overcloud.yaml', b'heat_template_version: rocky\n'))
        self.write('tht/environments/ha.yaml', b'parameter_defaults: {}\n')
        self.work = os.path.realpath(os.path.join(self.dir, 'tmp.Xy12'))
        self.settings = self.write('tmp.Xy12/my-settings.yaml',
                                   b'parameter_defaults: {A: 1}\n')
        self.path = files_mod.user_path(os.path.realpath(self.settings))
        here = os.getcwd()
        os.chdir(self.work)
        self.addCleanup(os.chdir, here)
        self.output(plan_commands.CreatePlan, 'p', '--templates', self.tht,
                    '--no-render', '-e', 'my-settings.yaml', '-e',
                    os.path.join(self.tht, 'environments', 'ha.yaml'))

    def output(self, cls, *argv, code=0):
        app = fakes.make_app({'object-store': fakes.SWIFT,
                              'orchestration': fakes.HEAT,
                              'workflow': fakes.MISTRAL})
        app.stdout = io.StringIO()
        cmd = cls(app, None)
        self.assertEqual(code, cmd.run(
            cmd.get_parser('openstack').parse_args(list(argv))))
        self.stderr = app.stderr.getvalue()
        return app.stdout.getvalue()

    def test_the_step_records_the_name_and_its_directory(self):
        head = self.store.reader.head('p')
        self.assertEqual('my-settings.yaml',
                         head.state['files'][self.path]['name'])
        step, = [log.load_step(data, 'p', name) for name, (data, _) in
                 self.swift.objects.items() if log.id_of(name)]
        self.assertEqual(self.work, step['directory'])
        self.assertEqual({self.path: 'my-settings.yaml'},
                         head.rows[-1]['names'])

    def test_show_history_table_shows_the_names(self):
        table = self.output(plan_commands.ShowPlanHistory, 'p', '-f',
                            'table', '-c', 'environments')
        # the first step: all of its list added, in its order
        self.assertIn('2 in all', table)
        self.assertLess(table.index('+ my-settings.yaml'),
                        table.index('+ environments/ha.yaml'))
        self.assertNotIn('user-files/', table)

    def test_show_history_json_keeps_the_plan_paths(self):
        row, = json.loads(self.output(plan_commands.ShowPlanHistory, 'p',
                                      '-f', 'json'))
        self.assertEqual([self.path, 'environments/ha.yaml'],
                         row['environments'])
        self.assertEqual(['my-settings.yaml', 'environments/ha.yaml'],
                         row['environment_names'])
        self.assertEqual('environment_names', list(row)[-1])
        self.assertEqual(
            '%s environments/ha.yaml\n' % self.path,
            self.output(plan_commands.ShowPlanHistory, 'p', '-f', 'value',
                        '-c', 'environments'))

    def test_plan_show_and_amend_show_the_names(self):
        shown = json.loads(self.output(plan_show.ShowPlan, 'p', '-f',
                                       'json'))
        self.assertEqual([self.path, 'environments/ha.yaml'],
                         shown['environments'])
        self.assertEqual(['my-settings.yaml', 'environments/ha.yaml'],
                         shown['environment_names'])
        table = self.output(plan_show.ShowPlan, 'p', '-f', 'table')
        self.assertLess(table.index('my-settings.yaml'),
                        table.index('environments/ha.yaml'))
        self.assertNotIn('user-files/', table)
        self.write('tmp.Xy12/more.yaml', b'parameter_defaults: {B: 1}\n')
        amended = json.loads(self.output(
            plan_commands.AmendPlan, 'p', '--no-render', '-e', 'more.yaml',
            '-f', 'json'))
        self.assertEqual('more.yaml', amended['environment_names'][-1])
        self.assertTrue(amended['environments'][-1].startswith(
            'user-files/'))

    def test_show_step_tells_each_source_state(self):
        def states():
            rows = json.loads(self.output(plan_step.ShowPlanStep, 'p', '1',
                                          '-f', 'json'))
            return {r['path']: (r['name'], r['source_state']) for r in rows}

        self.assertEqual(('my-settings.yaml', 'present'),
                         states()[self.path])
        self.assertEqual((None, None), states()['environments/ha.yaml'])
        self.write('tmp.Xy12/my-settings.yaml', b'parameter_defaults: {}\n')
        self.assertEqual(('my-settings.yaml', 'changed'),
                         states()[self.path])
        os.remove(self.settings)
        self.assertEqual(('my-settings.yaml', 'gone'), states()[self.path])
        self.assertIn('1 recorded source(s) gone from this machine (the '
                      'plan keeps its copies): my-settings.yaml',
                      self.stderr)

    def test_a_step_without_names_shows_plan_paths(self):
        # as a client before names wrote it
        head = self.store.reader.head('p')
        step = log.make_step('amend', {'files': {'user-files/old.yaml': {
            'source': '/old.yaml', 'md5': '0' * 32}},
            'environments': {'add': ['user-files/old.yaml']}})
        self.store.writer.write_step('p', step, head)
        rows = json.loads(self.output(plan_commands.ShowPlanHistory, 'p',
                                      '-f', 'json'))
        self.assertEqual(['my-settings.yaml', 'environments/ha.yaml',
                          'user-files/old.yaml'],
                         rows[-1]['environment_names'])
        self.assertIn('+ user-files/old.yaml', self.output(
            plan_commands.ShowPlanHistory, 'p', '-c', 'environments'))

    def test_plan_diff_names_what_it_added(self):
        self.write('tmp.Xy12/more.yaml', b'parameter_defaults: {B: 1}\n')
        self.output(plan_commands.AmendPlan, 'p', '--no-render', '-e',
                    'more.yaml')
        more = files_mod.user_path(os.path.join(self.work, 'more.yaml'))
        diff = json.loads(self.output(plan_commands.DiffPlan, 'p', '-f',
                                      'json'))
        self.assertEqual([more], diff['environments_added'])
        self.assertEqual({more: 'more.yaml'}, diff['environment_names'])
        table = self.output(plan_commands.DiffPlan, 'p', '-f', 'table',
                            '-c', 'environments_added')
        self.assertIn('more.yaml', table)
        self.assertNotIn('user-files', table)

    def test_show_step_opens_no_source_it_did_not_record(self):
        other = self.write('elsewhere/secret.yaml', b'x: 1\n')
        path = files_mod.user_path(other)
        head = self.store.reader.head('p')
        self.store.writer.write_step('p', log.make_step('amend', {
            'files': {path: {'source': other, 'md5': '0' * 32}},
            'tree': {path: '0' * 32}}), head)
        rows = json.loads(self.output(plan_step.ShowPlanStep, 'p', '2',
                                      '-f', 'json'))
        self.assertEqual(['not checked'], [r['source_state'] for r in rows
                                           if r['path'] == path])
        self.assertIn('1 recorded source(s) not checked', self.stderr)
        self.assertIn('recorded without a mark', self.stderr)
