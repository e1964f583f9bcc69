"""doc/source/guide/tripleoclient.rst's lists of the command names this
plugin shares with python-tripleoclient, held to setup.cfg: our command
group, the names osc/shared.py dispatches (``openstack.extension``), and
python-tripleoclient's names (below, from its releases' entry points)."""

import configparser
import os
import re

import testtools

from tests import tripleoclient_names

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PAGE = os.path.join(ROOT, 'doc', 'source', 'guide', 'tripleoclient.rst')
RELEASE_20 = tripleoclient_names.RELEASE_20
OLDER = tripleoclient_names.OLDER


def entry_points(group):
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(ROOT, 'setup.cfg'))
    return {line.split('=', 1)[0].strip()
            for line in cfg['entry_points'][group].strip().splitlines()}


def listed(text, heading):
    """The ``names`` of the bullet list after the line starting with
    ``heading``, as entry point names."""
    block = text.split('\n' + heading, 1)[1].split('\n\n', 2)[1]
    return {name.replace(' ', '_')
            for name in re.findall(r'^\* ``([a-z -]+)``$', block, re.M)}


class TestSharedNames(testtools.TestCase):

    def setUp(self):
        super().setUp()
        with open(PAGE) as f:
            self.text = f.read()
        self.ours = entry_points('openstack.tripleoplan.v1')

    def test_the_names_shared_with_20_0_0(self):
        self.assertEqual(sorted(RELEASE_20 & self.ours), sorted(
            listed(self.text, 'Shared with release 20.0.0')))

    def test_the_names_shared_with_older_releases_only(self):
        self.assertEqual(
            sorted((OLDER - RELEASE_20) & self.ours),
            sorted(listed(self.text, 'Shared with older releases only')))

    def test_every_shared_name_is_dispatched(self):
        # osc/shared.py's classes, registered under the shared names
        self.assertEqual(
            sorted((RELEASE_20 | OLDER) & self.ours),
            sorted(entry_points('openstack.extension')))
