"""A step request's given names and directory are untrusted input: one
a record may not show is refused, nothing recorded; the directory goes on
record once per step, and only when a name is relative to it."""

import unittest

from osc_lib import exceptions

from tripleoplanclient.mistral import builder
from tripleoplanclient import protocol

PATH = 'user-files/tmp/tmp.X/a.yaml'


def request(name=None, directory='/tmp/tmp.X'):
    entry = {'source': '/tmp/tmp.X/a.yaml', 'md5': 'm'}
    if name is not None:
        entry['name'] = name
    return protocol.read('plan_amend', protocol.request(
        'plan_amend', container='p', files={PATH: entry},
        tree={PATH: 'm'}, directory=directory))


class TestNamesInRequests(unittest.TestCase):

    def test_a_name_goes_on_record_as_given(self):
        req = request('a.yaml')
        self.assertEqual({PATH: {'source': '/tmp/tmp.X/a.yaml', 'md5': 'm',
                                 'name': 'a.yaml'}},
                         builder.manifest('p', req, {PATH: 'm'}))

    def test_a_name_no_record_may_show_is_refused(self):
        for bad in ('a\x1b[2J', 'x' * 5000, '', 3):
            with self.subTest(name=bad):
                self.assertRaisesRegex(
                    exceptions.CommandError, 'Nothing was recorded',
                    builder.manifest, 'p', request(bad), {PATH: 'm'})

    def test_a_directory_must_be_absolute_and_showable(self):
        self.assertEqual('/tmp/tmp.X', builder.directory('p', request()))
        self.assertIsNone(builder.directory('p', request(directory=None)))
        for bad in ('tmp.X', '/tmp/\x07', '/' + 'x' * 5000, 7):
            with self.subTest(directory=bad):
                self.assertRaisesRegex(
                    exceptions.CommandError, 'directory must be',
                    builder.directory, 'p', request(directory=bad))

    def test_the_directory_is_recorded_for_relative_names_only(self):
        relative = {PATH: {'name': 'a.yaml'}}
        self.assertEqual({'directory': '/w'},
                         builder.where('/w', relative))
        self.assertEqual({}, builder.where('/w', {PATH: {'name': '/a'}}))
        self.assertEqual({}, builder.where('/w', {PATH: {}}))
        self.assertEqual({}, builder.where(None, relative))
