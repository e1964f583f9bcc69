"""Others' text on the operator's terminal: a validation's failure
message and host name (any project member's playbook writes them) with
an escape sequence that would redraw the line above as PASSED. Quoted in
every human format and on stderr; ``-f json`` and ``-f yaml`` keep the
exact data."""

import argparse
import io
import json

from cliff import lister
from cliff import show
from osc_lib.cli import format_columns
from osc_lib import exceptions
import yaml

from tests.unit import fakes
from tripleoplanclient.common.printable import printable
from tripleoplanclient.osc import base
from tripleoplanclient.osc import exit_status
from tripleoplanclient.osc import validation
from tripleoplanclient.validations import results

REDRAW = '\x1b[1A\x1b[2KPASSED'
SHOWN = '\\x1b[1A\\x1b[2KPASSED'
HOST = 'c-0' + REDRAW
# a run's id is a UUID (its workflow execution's)
RUN_ID = '0b6c3f0e-5d2a-4c1b-9e8f-7a6d5c4b3a21'
RUN = {'run': RUN_ID, 'plan': None, 'status': 'FAILED', 'duration': 1.5,
       'started': '2025-01-01T00:00:00Z', 'ended': '2025-01-01T00:00:02Z',
       'validations': [{'id': 'mine', 'status': 'FAILED', 'duration': 1.5,
                        'started': '2025-01-01T00:00:00Z',
                        'failed_hosts': [HOST],
                        'message': 'Check: ' + REDRAW}]}
RESULT = {'validation': 'mine', 'status': 'FAILED', 'failed_hosts': [HOST],
          'failures': [{'host': HOST, 'task': 'Check', 'status': 'failed',
                        'msg': 'line 1\nline 2\r' + REDRAW}]}


class TestPrintable(fakes.HttpTestCase):

    def test_every_control_character_is_quoted(self):
        self.assertEqual(SHOWN, printable(REDRAW))
        self.assertEqual('a\\r\\x08\\x7f\\x9b\\u202eb\\n\\t',
                         printable('a\r\b\x7f\x9b\u202eb\n\t'))
        # of several lines: a line feed and a tab stay
        self.assertEqual('a\n\tb\\r' + SHOWN,
                         printable('a\n\tb\r' + REDRAW, lines=True))
        self.assertEqual('été C:\\dir', printable('été C:\\dir'))
        self.assertEqual((None, 3), (printable(None), printable(3)))


class TestValidationOutput(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.our_services()
        kept = fakes.FakeSwift(self.m, plan=results.CONTAINER)
        kept.store(RUN_ID + '/run.json', json.dumps(RUN).encode())
        kept.store(RUN_ID + '/mine.json', json.dumps(RESULT).encode())

    def run_command(self, cls, *argv):
        app = fakes.make_app(fakes.ENDPOINTS)
        app.stdout = io.StringIO()
        cmd = cls(app, argparse.Namespace(verbose_level=1))
        code = cmd.run(cmd.get_parser('openstack').parse_args(list(argv)))
        return code, app.stdout.getvalue(), app.stderr.getvalue()

    def test_quoted_in_every_human_format(self):
        for command, argv, forms in (
                (validation.ShowValidationRun, [RUN_ID], ('shell',)),
                (validation.ListValidationResults, [], ('csv',))):
            for form in ('table', 'value') + forms:
                _, out, err = self.run_command(command, '-f', form, *argv)
                self.assertNotIn('\x1b', out + err, (command, form))
                self.assertNotIn('\r', out + err, (command, form))
                if form == 'csv':       # its own escape, doubled
                    out = out.replace('\\\\', '\\')
                self.assertIn('c-0' + SHOWN, out, (command, form))
        _, out, _ = self.run_command(validation.ShowValidationRun, RUN_ID)
        # a table's cell keeps its lines
        self.assertIn('line 1', out)
        self.assertIn('line 2\\r' + SHOWN, out)

    def test_machine_formats_keep_the_exact_data(self):
        _, out, _ = self.run_command(validation.ShowValidationRun, RUN_ID,
                                     '-f', 'json')
        shown = json.loads(out)
        self.assertEqual([HOST], shown['failed_hosts'])
        self.assertEqual(['mine: %s: Check: line 1\nline 2\r%s' % (
            HOST, REDRAW)], shown['failures'])
        self.assertNotIn('\x1b', out)     # JSON's own escape
        _, out, _ = self.run_command(validation.ShowValidationRun, RUN_ID,
                                     '-f', 'yaml')
        self.assertEqual([HOST], yaml.safe_load(out)['failed_hosts'])
        self.assertNotIn('\x1b', out)
        _, out, _ = self.run_command(validation.ListValidationResults,
                                     '-f', 'json')
        self.assertEqual([[HOST]], [r['failed_hosts']
                                    for r in json.loads(out)])


class _Lister(base.Command, lister.Lister):
    def take_action(self, parsed_args):
        self.progress('mine: FAILED (1.0 s): Check: ' + REDRAW + '\nok: '
                      'PASSED')
        return ('name', 'hosts'), [(REDRAW, format_columns.ListColumn(
            [HOST]))]


class _Failing(exit_status.ResultCommand, show.ShowOne):
    columns = ('status',)

    def take_action(self, parsed_args):
        self.changed()
        raise exceptions.CommandError('Heat: stack FAILED\n' + REDRAW)


class _Refusing(base.Command):
    def take_action(self, parsed_args):
        raise exceptions.CommandError('no plan ' + REDRAW)


class TestStderr(fakes.HttpTestCase):
    """Progress is one line per event; an error keeps its lines."""

    def app(self):
        app = fakes.make_app(fakes.ENDPOINTS)
        app.stdout = io.StringIO()
        return app

    def test_progress_is_one_line_and_a_list_is_quoted(self):
        app = self.app()
        cmd = _Lister(app, argparse.Namespace(verbose_level=1))
        cmd.run(cmd.get_parser('openstack').parse_args([]))
        self.assertEqual('mine: FAILED (1.0 s): Check: %s\\nok: PASSED\n'
                         % SHOWN, app.stderr.getvalue())
        self.assertIn('| %s | %s |' % (SHOWN, 'c-0' + SHOWN),
                      app.stdout.getvalue())

    def test_errors_are_quoted(self):
        app = self.app()
        cmd = _Refusing(app, argparse.Namespace(verbose_level=1))
        with self.assertRaises(exceptions.CommandError) as caught:
            cmd.run(cmd.get_parser('openstack').parse_args([]))
        # cliff prints it
        self.assertEqual('no plan ' + SHOWN, str(caught.exception))

    def test_a_failure_keeps_its_lines(self):
        app = self.app()
        cmd = _Failing(app, argparse.Namespace(verbose_level=0))
        code = cmd.run(cmd.get_parser('openstack').parse_args(
            ['-f', 'json']))
        self.assertEqual(
            (exit_status.FAILED, 'Heat: stack FAILED\n%s\n' % SHOWN),
            (code, app.stderr.getvalue()))


class _Row(base.Command, show.ShowOne):
    def take_action(self, parsed_args):
        return ('plan', 'environments', 'stack', 'reason', 'hosts'), (
            'p', format_columns.ListColumn(['env/a.yaml', 'b.yaml']),
            {'id': 's-1', 'status': 'CREATE_COMPLETE'}, None,
            [HOST, 'c-1'])


class TestLineFormats(fakes.HttpTestCase):
    """``-f value`` and ``shell``: values as a script reads them, never
    Python's repr of a list or a mapping; lists in their order in every
    format."""

    def output(self, *argv):
        app = fakes.make_app(fakes.ENDPOINTS)
        app.stdout = io.StringIO()
        cmd = _Row(app, argparse.Namespace(verbose_level=1))
        cmd.run(cmd.get_parser('openstack').parse_args(list(argv)))
        return app.stdout.getvalue()

    def test_value(self):
        self.assertEqual(
            'p\nenv/a.yaml b.yaml\n'
            '{"id":"s-1","status":"CREATE_COMPLETE"}\n\n'
            'c-0%s c-1\n' % SHOWN, self.output('-f', 'value'))
        self.assertEqual('env/a.yaml b.yaml\n', self.output(
            '-f', 'value', '-c', 'environments'))

    def test_shell_carries_no_repr(self):
        out = self.output('-f', 'shell')
        for repr_start in ("['", "{'", 'None'):
            self.assertNotIn(repr_start, out)
        self.assertIn('environments="env/a.yaml b.yaml"', out)

    def test_json_keeps_the_lists(self):
        self.assertEqual(['env/a.yaml', 'b.yaml'], json.loads(self.output(
            '-f', 'json'))['environments'])

    def test_a_list_in_its_order_in_a_table(self):
        # a plan's environments are in Heat's merge order, which
        # osc-lib's ListColumn would sort away in a table
        table = self.output('-f', 'table', '-c', 'environments')
        self.assertIn('env/a.yaml, b.yaml', table)

        class Later(_Row):
            def take_action(self, parsed_args):
                columns, row = super().take_action(parsed_args)
                return columns, (row[0], format_columns.ListColumn(
                    ['z-last.yaml', 'a-first.yaml']),) + row[2:]

        app = fakes.make_app(fakes.ENDPOINTS)
        app.stdout = io.StringIO()
        cmd = Later(app, argparse.Namespace(verbose_level=1))
        cmd.run(cmd.get_parser('openstack').parse_args(
            ['-c', 'environments']))
        self.assertIn('z-last.yaml, a-first.yaml', app.stdout.getvalue())
