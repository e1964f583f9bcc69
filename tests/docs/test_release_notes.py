"""Release notes: reno takes a note's id from the last 16 characters of
its name (``<slug>-<16 hex>.yaml``, what ``reno new`` writes); notes whose
names end otherwise share an id and the docs build fails on them."""

import os
import re

import testtools

NOTES = os.path.join(os.path.dirname(__file__), '..', '..', 'releasenotes',
                     'notes')
NAME = re.compile(r'^[a-z0-9][a-z0-9-]*-[0-9a-f]{16}\.yaml$')


class TestNoteNames(testtools.TestCase):

    def test_every_note_ends_in_its_own_id(self):
        names = sorted(n for n in os.listdir(NOTES) if not n.startswith('.'))
        self.assertNotEqual([], names)
        self.assertEqual([], [n for n in names if not NAME.match(n)])
        ids = [n[-21:-5] for n in names]
        self.assertEqual(len(ids), len(set(ids)))
