"""How a command shows Heat's preview of a stack operation."""

import json
import unittest

from tripleoplanclient.stack import preview


def resource(name, stack='overcloud', rtype='OS::Heat::None'):
    return {'name': name, 'type': rtype, 'stack': stack}


UPDATE = {
    'operation': 'UPDATE', 'stack_id': 's', 'fingerprint': 'f', 'files': 3,
    'environment_files': 2, 'swift_gets': 0, 'rendered': ['a.yaml'],
    'nested': False, 'nested_error': "'NoneType' object is not iterable",
    'resources': {
        'added': [resource('New')],
        'updated': [resource('Controller', rtype='OS::Heat::ResourceGroup')],
        'replaced': [resource('Config', 'overcloud/Controller/0',
                              'OS::Heat::SoftwareConfig')],
        'deleted': [resource('Old')],
        'unchanged': [resource('A'), resource('B')]}}


class TestSummary(unittest.TestCase):

    def test_counts_and_every_replaced_or_deleted_resource(self):
        lines = preview.summary_lines(UPDATE)
        self.assertEqual('Heat would UPDATE the stack: 1 added, 1 updated, '
                         '1 replaced, 1 deleted, 2 unchanged.', lines[0])
        self.assertIn('  replaced: overcloud/Controller/0/Config '
                      '(OS::Heat::SoftwareConfig)', lines)
        self.assertIn('  deleted: overcloud/Old (OS::Heat::None)', lines)
        self.assertIn('Rendered for the preview: 1 template(s) changed.',
                      lines)
        self.assertIn("Heat could not preview inside the nested stacks (a "
                      "known limit of Heat, not a problem of the plan; Heat "
                      "said: 'NoneType' object is not iterable)", lines[-1])

    def test_nothing_to_do(self):
        lines = preview.summary_lines(dict(UPDATE, operation='NONE'))
        self.assertEqual(1, len(lines))
        self.assertIn('operation NONE', lines[0])

    def test_no_nested_note_with_nested_detail(self):
        lines = preview.summary_lines(dict(UPDATE, nested=True,
                                           nested_error=None, rendered=[]))
        self.assertEqual(3, len(lines))

    def test_nested_detail_not_asked_for(self):
        self.assertEqual('not shown (not asked for)', preview.nested_detail(
            dict(UPDATE, nested_error=None)))


class TestColumns(unittest.TestCase):

    def test_paths_of_the_changes_count_of_the_unchanged(self):
        names, values = preview.columns(UPDATE)
        self.assertEqual(preview.COLUMNS, names)
        shown = dict(zip(names, values))
        self.assertEqual('UPDATE', shown['heat_operation'])
        self.assertEqual(['overcloud/Controller/0/Config'],
                         shown['resources_replaced'].machine_readable())
        self.assertEqual(['overcloud/New'],
                         shown['resources_added'].machine_readable())
        self.assertEqual(2, shown['resources_unchanged'])
        self.assertTrue(shown['nested_detail'].startswith('not shown'))
        json.dumps([getattr(v, 'machine_readable', lambda: v)()
                    for v in values])
