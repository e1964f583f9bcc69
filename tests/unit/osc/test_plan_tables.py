"""show-history and plan diff as tables: each environment list as its
changes from the step before, a diff's lists and parameters summarized,
its text as each file's counts; --long and -f json whole, as recorded.
Measured on a THT-sized history and diff: at most 120 columns without a
terminal, where the whole values made it hundreds wide."""

import copy
import io
import json
import os

from cliff import lister
from cliff import show

from tests.unit import fakes
from tripleoplanclient.osc import base
from tripleoplanclient.osc import plan as plan_commands
from tripleoplanclient.osc import plan_show
from tripleoplanclient.osc import plan_step
from tripleoplanclient.osc import plan_tables
from tripleoplanclient.record import diff as plan_diff

SWIFT = fakes.SWIFT
# THT 17's environments as a demo names them (user files under the
# client's temporary directory), in Heat's order
THT_ENVIRONMENTS = [
    'overcloud-resource-registry-puppet.yaml',
    'environments/low-memory-usage.yaml', 'environments/debug.yaml',
    'environments/sshd-banner.yaml',
    'user-files/tmp/tmp.Xq3cFzL0aB/work/tht17-deployed-server.yaml',
    'user-files/tmp/tmp.Xq3cFzL0aB/work/container-images.yaml',
    'user-files/tmp/tmp.Xq3cFzL0aB/work/my-settings.yaml']


class _Table(base.Command):
    """Runs the command with a terminal-less stdout, COLUMNS unset."""


class _History(_Table, lister.Lister):
    has_long = True
    table_leaves_out = plan_commands.ShowPlanHistory.table_leaves_out
    rows = ()

    def take_action(self, parsed_args):
        return plan_commands.HISTORY_COLUMNS, plan_tables.history(
            self.rows, parsed_args)


class _Diff(_Table, show.ShowOne):
    has_long = True
    table_leaves_out = plan_step.NAMES_IN_TABLES
    result = None

    def take_action(self, parsed_args):
        return plan_diff.COLUMNS, plan_tables.diff(self.result, parsed_args)


def no_terminal(test):
    env = {k: v for k, v in os.environ.items()
           if k not in ('COLUMNS', 'CLIFF_MAX_TERM_WIDTH', 'CLIFF_FIT_WIDTH')}
    for patch in (fakes.mock.patch.dict(os.environ, env, clear=True),
                  fakes.mock.patch('os.get_terminal_size',
                                   side_effect=OSError('no terminal'))):
        patch.start()
        test.addCleanup(patch.stop)


def size(text):
    """(lines, widest line) of a printed table."""
    lines = text.splitlines()
    return len(lines), max(len(line) for line in lines)


class TestHistoryTable(fakes.HttpTestCase):
    """A plan created with 9 environments, then amended: the rows recorded
    by the real commands (fake Swift, our actions behind a fake
    Mistral)."""

    def setUp(self):
        super().setUp()
        no_terminal(self)
        self.our_services()
        self.dir = self.temp_dir()
        self.tht = os.path.join(self.dir, 'tht')
        fakes.write_file(os.path.join(self.tht, 'overcloud.yaml'),
                         'heat_template_version: rocky\n')
        self.envs = [fakes.write_file(os.path.join(
            self.dir, 'work', 'environment-%d.yaml' % i),
            'parameter_defaults: {P%d: %d}\n' % (i, i)) for i in range(9)]
        self.run_command(plan_commands.CreatePlan, 'p', '--templates',
                         self.tht, '--no-render',
                         *[a for e in self.envs for a in ('-e', e)])
        self.debug = fakes.write_file(os.path.join(self.dir, 'debug.yaml'),
                                      'parameter_defaults: {Debug: true}\n')
        self.run_command(plan_commands.AmendPlan, 'p', '-e', self.debug,
                         '--no-render')
        self.run_command(plan_commands.AmendPlan, 'p', '--no-render',
                         '--remove-environment', self.envs[0])

    def run_command(self, cls, *argv):
        app = fakes.make_app({'object-store': SWIFT,
                              'workflow': fakes.MISTRAL})
        app.stdout = io.StringIO()
        cmd = cls(app, None)
        self.assertEqual(0, cmd.run(cmd.get_parser('openstack').parse_args(
            list(argv))), app.stderr.getvalue())
        return app.stdout.getvalue()

    def test_a_row_says_what_changed(self):
        # no width limit: each summary's lines as they are
        table = self.run_command(plan_commands.ShowPlanHistory, 'p',
                                 '--max-width', '0')
        cells = [[c.strip() for c in line.split('|')[1:-1]]
                 for line in table.splitlines() if line.startswith('|')]
        # the table leaves out the project: environments is the 7th
        shown = [c[6] for c in cells[1:]]
        # the files as the commands were given them (absolute paths)
        user = list(self.envs)
        # the first row: what it began with, 6 of 9, then the count
        self.assertEqual(['9 in all'] + ['+ ' + e for e in user[:6]] + [
            '... and 3 more',
            '10 in all', '+ ' + self.debug,
            '9 in all', '- ' + user[0]], shown)
        self.assertEqual(['SUCCESS', '', '', '', '', '', '', '',
                          'SUCCESS', '', 'SUCCESS', ''],
                         [c[7] for c in cells[1:]])
        self.assertLessEqual(size(self.run_command(
            plan_commands.ShowPlanHistory, 'p'))[1], 120)

    def test_the_table_leaves_out_what_the_outcome_shows(self):
        table = self.run_command(plan_commands.ShowPlanHistory, 'p')
        header = table.splitlines()[1]
        for column in ('project', 'config', 'validations',
                       'environment_names'):
            self.assertNotIn(' %s ' % column, header)
        self.assertIn(' outcome ', header)
        for asked in (('--long',), ('-c', 'project', '-c', 'config')):
            header = self.run_command(plan_commands.ShowPlanHistory, 'p',
                                      *asked).splitlines()[1]
            self.assertIn(' project ', header)
            self.assertIn(' config ', header)

    def test_long_and_json_show_every_list_whole(self):
        rows = json.loads(self.run_command(plan_commands.ShowPlanHistory,
                                           'p', '-f', 'json'))
        whole = ['user-files' + e for e in self.envs]
        self.assertEqual([whole, whole + ['user-files' + self.debug],
                          whole[1:] + ['user-files' + self.debug]],
                         [r['environments'] for r in rows])
        self.assertEqual('SUCCESS', rows[0]['outcome']['status'])
        table = self.run_command(plan_commands.ShowPlanHistory, 'p',
                                 '--long', '--max-width', '0')
        for env in self.envs:
            self.assertIn(env, table)
        self.assertNotIn('in all', table)

    def test_plan_show_lists_the_environments_a_line_each(self):
        table = self.run_command(plan_show.ShowPlan, 'p')
        names = self.envs[1:] + [self.debug]
        cells = [line.split('|')[2].strip() for line in table.splitlines()
                 if line.startswith('|')]
        start = cells.index(names[0])
        self.assertEqual(names, cells[start:start + len(names)])
        envs = ['user-files' + e for e in names]
        self.assertIn('status: SUCCESS', table)
        shown = json.loads(self.run_command(plan_show.ShowPlan, 'p', '-f',
                                            'json'))
        self.assertEqual(envs, shown['environments'])
        self.assertEqual('SUCCESS', shown['last_step']['status'])

    def test_a_tht_sized_history_fits_120_columns(self):
        """Ten steps of a THT 17 plan's life (create, amends, provision,
        deploy, update, upgrade, scale down), each row the shape the
        commands recorded above, the environment lists THT-sized."""
        store = fakes.plan_store()
        recorded, _ = store.reader.history('p')
        envs = list(THT_ENVIRONMENTS)
        rows = []
        for step, change in enumerate((
                None, '+environments/login-defs.yaml', None,
                '+user-files/tmp/tmp.Xq3cFzL0aB/work/roles-baremetal.yaml',
                None, '+environments/lifecycle/update-prepare.yaml',
                '-environments/lifecycle/update-prepare.yaml',
                '+environments/lifecycle/upgrade-prepare.yaml',
                '-environments/lifecycle/upgrade-prepare.yaml',
                '+user-files/tmp/tmp.Xq3cFzL0aB/work/scale-down.yaml'),
                start=1):
            if change and change[0] == '+':
                envs = envs + [change[1:]]
            elif change:
                envs = [e for e in envs if e != change[1:]]
            row = copy.deepcopy(recorded[min(step, len(recorded)) - 1])
            row.update(step=step, environments=list(envs),
                       templates='17.1.0', user='admin', project='admin')
            row['outcome'] = dict(row['outcome'], stack_status=(
                'UPDATE_COMPLETE'), reason='Stack UPDATE completed '
                'successfully', stack_id='1b7f3c1e-52cb-4f9d-a1b5-'
                '0f1d2e3c4b5a')
            rows.append(row)
        _History.rows = rows
        before = self.run_command(_History, '--long', '--max-width', '0')
        after = self.run_command(_History)
        # before: the table as wide as its longest values, each list
        # whole in each row
        self.assertGreater(size(before)[1], 400)
        lines, widest = size(after)
        self.assertLessEqual(widest, 120)
        self.assertLess(lines, 10 * 9)
        for env in THT_ENVIRONMENTS:
            self.assertIn(env, before)


class TestDiffTable(fakes.HttpTestCase):
    """A THT 17 -> 18 diff as diff.compare returns it: hundreds of files,
    a 30,000-character diff, list parameters."""

    def setUp(self):
        super().setUp()
        no_terminal(self)
        files = ['deployment/service-%03d.yaml' % i for i in range(300)]
        servers = ['pool-%d.ntp.example' % i for i in range(20)]
        self.result = {
            'plan': 'p',
            'from': {'step': 5, 'id': 'a', 'action': 'deploy',
                     'time': '2026-11-29T10:00:00Z', 'status': 'SUCCESS'},
            'to': {'step': 8, 'id': 'b', 'action': 'upgrade',
                   'time': '2026-11-29T11:00:00Z', 'status': 'SUCCESS'},
            'environments_added': [
                'environments/lifecycle/upgrade-prepare.yaml'],
            'environments_removed': [], 'environments_reordered': False,
            'files_added': files[:40], 'files_removed': files[40:60],
            'files_changed': files[60:],
            'parameters_changed': {
                'NtpServer': {'change': 'changed', 'old': servers,
                              'new': servers[1:] + ['pool-new.example']},
                'ContainerImage': {'change': 'changed',
                                   'old': 'quay.io/tripleo:17.1',
                                   'new': 'quay.io/tripleo:18.0'}},
            'diff': ''.join(
                '--- a/%s\n+++ b/%s\n@@ -1,3 +1,3 @@\n a\n-old line %d: xyz\n'
                '+new line %d: xyz\n b\n' % (f, f, i, i)
                for i, f in enumerate(files[60:])),
            'environment_names': {}}
        self.assertGreater(len(self.result['diff']), 30000)

    def output(self, *argv):
        app = fakes.make_app(fakes.ENDPOINTS)
        app.stdout = io.StringIO()
        _Diff.result = self.result
        cmd = _Diff(app, None)
        self.assertEqual(0, cmd.run(cmd.get_parser('openstack').parse_args(
            list(argv))))
        return app.stdout.getvalue()

    def test_the_table_shows_what_changed(self):
        table = self.output()
        lines, widest = size(table)
        self.assertLessEqual(widest, 120)
        self.assertLess(lines, 70)
        self.assertIn('NtpServer: + pool-new.example; - pool-0.ntp.example',
                      table)
        self.assertIn('+1 -1 deployment/service-060.yaml', table)
        self.assertIn('... and 234 more', table)       # 240 files in diff
        self.assertNotIn('pool-5.ntp.example', table)
        self.assertIn('step 8: upgrade SUCCESS at 2026-11-29T11:00:00Z (b)',
                      table)

    def test_long_and_json_carry_everything(self):
        self.assertEqual(self.result, json.loads(self.output('-f', 'json')))
        whole = self.output('--long', '--max-width', '0')
        self.assertIn('new line 239', whole)
        self.assertIn('pool-5.ntp.example', whole)
        self.assertGreater(size(whole)[0], 240 * 7)
