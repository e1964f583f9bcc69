"""Tables are for people, the other formats for scripts: a table as wide
as the terminal (120 columns without one), each cell cut to what a
person reads with a note of what shows it all; -f json carries every
value whole; -f value a list or a mapping on one line."""

import argparse
import io
import json
import os
import unittest
from unittest import mock

from cliff import lister
from cliff import show
from osc_lib.cli import format_columns

from tests.unit import fakes
from tripleoplanclient.osc import base
from tripleoplanclient.osc import formats

LONG_TEXT = ''.join('line %d of a long text, %s\n' % (i, 'x' * 60)
                    for i in range(500))
PATHS = ['user-files/tmp/tmp.%03d/work/environments/env-%03d.yaml' % (i, i)
         for i in range(40)]


class _Wide(base.Command, lister.Lister):
    """A list whose values cliff would print whole: one row per path, a
    text of 500 lines, a list of 40 paths."""

    def take_action(self, parsed_args):
        return ('name', 'text', 'paths'), [
            (p, LONG_TEXT, format_columns.ListColumn(PATHS))
            for p in PATHS[:3]]


class _WideLong(_Wide):
    has_long = True


class _One(base.Command, show.ShowOne):
    def take_action(self, parsed_args):
        return ('plan', 'diff', 'hosts', 'outputs'), (
            'p', LONG_TEXT, ['c-0\nstill c-0', 'c-1'],
            {'a': 'one\ntwo', 'b': [1, 2]})


def no_terminal():
    """No terminal, no COLUMNS: what a pipe or a CI log gets."""
    env = {k: v for k, v in os.environ.items()
           if k not in ('COLUMNS', 'CLIFF_MAX_TERM_WIDTH', 'CLIFF_FIT_WIDTH')}
    return mock.patch.dict(os.environ, env, clear=True), mock.patch(
        'os.get_terminal_size', side_effect=OSError('not a terminal'))


class TestTables(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        for patch in no_terminal():
            patch.start()
            self.addCleanup(patch.stop)

    def output(self, cls, *argv):
        app = fakes.make_app(fakes.ENDPOINTS)
        app.stdout = io.StringIO()
        cmd = cls(app, argparse.Namespace(verbose_level=1))
        self.assertEqual(0, cmd.run(cmd.get_parser('openstack').parse_args(
            list(argv))))
        return app.stdout.getvalue()

    def widest(self, text):
        return max(len(line) for line in text.splitlines())

    def test_without_a_terminal_a_table_is_120_wide(self):
        table = self.output(_Wide)
        self.assertLessEqual(self.widest(table), formats.WIDTH)
        self.assertGreater(self.widest(table), formats.WIDTH - 10)
        # a list's cell cut: 8 lines or 400 characters of the text, then
        # what shows the rest
        self.assertIn('[... 496 more lines; -f json shows', table)
        self.assertNotIn('line 5 of', table)

    def test_the_width_follows_columns_and_max_width(self):
        with mock.patch.dict(os.environ, {'COLUMNS': '80'}):
            self.assertIn(self.widest(self.output(_Wide)), range(70, 81))
            # cliff's own option wins, below 1: no limit (the widest value)
            self.assertIn(self.widest(self.output(
                _Wide, '--max-width', '60')), range(50, 61))
            self.assertGreater(self.widest(self.output(
                _Wide, '--max-width', '0')), 400)
        with mock.patch.dict(os.environ, {'CLIFF_MAX_TERM_WIDTH': '90'}):
            self.assertIn(self.widest(self.output(_Wide)), range(80, 91))

    def test_long_shows_every_value_whole(self):
        table = self.output(_WideLong)
        self.assertIn('[... 496 more lines; --long shows', table)
        whole = self.output(_WideLong, '--long')
        self.assertIn('line 499 of', whole)
        self.assertNotIn('more lines', whole)
        self.assertLessEqual(self.widest(whole), formats.WIDTH)

    def test_json_and_yaml_carry_everything(self):
        rows = json.loads(self.output(_Wide, '-f', 'json'))
        self.assertEqual([LONG_TEXT] * 3, [r['text'] for r in rows])
        self.assertEqual([PATHS] * 3, [r['paths'] for r in rows])
        self.assertIn('line 499 of', self.output(_Wide, '-f', 'yaml'))

    def test_a_show_one_table_cuts_its_long_value(self):
        table = self.output(_One)
        # a row's value has the table's width: 20 lines or 1,600
        # characters of it
        self.assertIn('[... 482 more lines; -f json shows all]', table)
        self.assertLessEqual(self.widest(table), formats.WIDTH)
        self.assertEqual(LONG_TEXT, json.loads(self.output(
            _One, '-f', 'json'))['diff'])
        # a list or a mapping as JSON, not Python's repr
        self.assertIn('["c-0\\nstill c-0", "c-1"]', table)
        self.assertIn('{"a": "one\\ntwo", "b": [1, 2]}', table)

    def test_a_column_a_little_over_its_share_stays_whole(self):
        md5 = 'f238bffa5a20b81d9c20d39471029380'
        path = 'user-files/tmp/h42/demo/work/my-settings-%d.yaml'

        class Files(base.Command, lister.Lister):
            def take_action(self, parsed_args):
                return ('path', 'md5', 'environment', 'source'), [
                    (path % i, md5, i, '/' + path % i) for i in range(3)]

        table = self.output(Files)
        self.assertLessEqual(self.widest(table), formats.WIDTH)
        self.assertEqual(3, table.count(md5))
        # the paths broken after a /
        self.assertIn('| user-files/tmp/h42/demo/work/', table)

    def test_value_prints_a_list_or_a_mapping_on_one_line(self):
        out = self.output(_One, '-f', 'value', '-c', 'hosts', '-c',
                          'outputs')
        self.assertEqual(['"c-0\\nstill c-0" c-1',
                          '{"a":"one\\ntwo","b":[1,2]}'], out.splitlines())
        # a text of several lines keeps them
        self.assertEqual(LONG_TEXT, self.output(_One, '-f', 'value', '-c',
                                                'diff')[:-1])


class TestCut(unittest.TestCase):

    def test_characters_then_lines(self):
        self.assertEqual('short', formats.cut('short', '--long'))
        one_line = 'y' * 1610
        self.assertEqual('y' * 1600 + '\n[... 10 more characters; --long '
                         'shows all]', formats.cut(one_line, '--long'))
        lines = '\n'.join(str(i) for i in range(25))
        self.assertEqual('\n'.join(str(i) for i in range(20)) +
                         '\n[... 5 more lines; -f json shows all]',
                         formats.cut(lines, '-f json'))
        self.assertEqual('\n'.join(str(i) for i in range(8)) +
                         '\n[... 17 more lines; -f json shows all]',
                         formats.cut(lines, '-f json', formats.IN_LIST))

    def test_a_summary_is_whole_for_scripts(self):
        column = format_columns.ListColumn(['b', 'a'])
        summary = formats.Summary(column, '2 in all')
        self.assertEqual(('2 in all', ['b', 'a']), (
            summary.human_readable(), summary.machine_readable()))
        self.assertEqual({'x': 1}, formats.Summary({'x': 1}, 'x: 1')
                         .machine_readable())
