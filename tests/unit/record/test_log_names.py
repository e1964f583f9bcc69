"""Given names in the record are untrusted too: a step object or an index
whose name or directory is no text a record may show (too long, a
control character, not text) is damaged, never shown."""

import json
import unittest

from osc_lib import exceptions

from tripleoplanclient.plan import schema
from tripleoplanclient.record import index
from tripleoplanclient.record import log

EMPTY = log.Head(log.new_state(), 0, None, [])
PATH = 'user-files/tmp/tmp.X/a.yaml'
BAD = ['x' * (schema.MAX_NAME_BYTES + 1), 'a\x1b[2J.yaml', 'a\nb', '', 7,
       None]


def step(name='a.yaml', directory='/tmp/tmp.X'):
    made = log.make_step('amend', {
        'environments': {'add': [PATH, 'env/b.yaml']},
        'files': {PATH: {'source': '/tmp/tmp.X/a.yaml', 'md5': 'm',
                         'name': name}}}, directory=directory)
    return log.seal(made, EMPTY)


class TestNamesOnRead(unittest.TestCase):

    def test_a_good_name_is_read_and_shown(self):
        read = log.load_step(log.dump(step()), 'p', 'n')
        row = log.row(read, 1)
        self.assertEqual({PATH: 'a.yaml'}, row['names'])
        self.assertEqual(['a.yaml', 'env/b.yaml'], log.shown_names(
            row['environments'], row['names']))
        self.assertEqual([PATH], log.shown_names([PATH], None))

    def test_a_bad_name_is_damage(self):
        longest = 'x' * schema.MAX_NAME_BYTES
        log.load_step(log.dump(step(longest)), 'p', 'n')
        for bad in BAD:
            with self.subTest(name=bad):
                self.assertRaisesRegex(
                    exceptions.CommandError, 'damaged', log.load_step,
                    log.dump(step(bad)), 'p', 'n')

    def test_a_bad_directory_is_damage(self):
        for bad in BAD:
            with self.subTest(directory=bad):
                self.assertRaisesRegex(
                    exceptions.CommandError, 'damaged', log.load_step,
                    log.dump(step(directory=bad)), 'p', 'n')

    def test_a_bad_name_in_the_index_is_damage(self):
        made = step()
        data, _ = index.after('p', EMPTY._replace(rows=[]), made)
        self.assertEqual({PATH: 'a.yaml'},
                         index.load(data, 'p').rows[0]['names'])
        found = json.loads(data)
        found['history'][0]['names'][PATH] = 'a\x07'
        self.assertRaisesRegex(exceptions.CommandError, 'damaged',
                               index.load, json.dumps(found).encode(), 'p')
