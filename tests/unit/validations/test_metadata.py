"""Reading and checking a validation's metadata (TripleO's form)."""

import testtools

from tripleoplanclient.validations import metadata
from tripleoplanclient.validations import shipped

GROUPS = {'prep': 'x', 'pre-deployment': 'y'}
GOOD = b"""- hosts: localhost
  vars:
    metadata:
      name: Good
      description: >-
        Two
        lines.
      groups: [prep]
  tasks: []
"""


class TestRead(testtools.TestCase):

    def test_a_good_playbook(self):
        found = metadata.read('good', GOOD, GROUPS)
        self.assertEqual({'id': 'good', 'name': 'Good',
                          'description': 'Two lines.', 'groups': ['prep'],
                          'categories': [], 'products': [],
                          'parameters': {}, 'requires': [],
                          'problem': None}, found)

    def test_labels_and_parameters_of_tripleo_validations_form(self):
        found = metadata.read('disk', b'''- hosts: undercloud
  vars:
    metadata:
      name: Disk
      description: Enough disk.
      groups: []
      categories: [storage, os]
      products: [tripleo]
    volumes:
      - {mount: /, min_size: 25}
    debug_check: true
  roles: [undercloud_disk_space]
''', GROUPS)
        self.assertIsNone(found['problem'])
        self.assertEqual(([], ['storage', 'os'], ['tripleo']), (
            found['groups'], found['categories'], found['products']))
        self.assertEqual({'volumes': [{'mount': '/', 'min_size': 25}],
                          'debug_check': True}, found['parameters'])
        self.assertIn('metadata.products must list names', self.problem(
            b'- hosts: all\n  vars: {metadata: {name: n, description: d, '
            b'groups: [prep], products: tripleo}}\n'))

    def problem(self, text, groups=GROUPS):
        return metadata.read('v', text, groups)['problem']

    def test_each_malformed_playbook_is_named_with_its_reason(self):
        self.assertIn('not YAML', self.problem(b'- hosts: [\n'))
        self.assertIn('a YAML list of plays', self.problem(b'hosts: all\n'))
        self.assertIn('no hosts', self.problem(b'- tasks: []\n'))
        self.assertIn('no vars.metadata', self.problem(
            b'- hosts: all\n  vars: {x: 1}\n'))
        self.assertIn('metadata.description must be text', self.problem(
            b'- hosts: all\n  vars: {metadata: {name: n, groups: [prep]}}\n'))
        self.assertIn('metadata.groups must list names', self.problem(
            b'- hosts: all\n  vars: {metadata: {name: n, description: d, '
            b'groups: prep}}\n'))
        self.assertEqual(
            'unknown group(s) nope (groups.yaml has pre-deployment, prep)',
            self.problem(b'- hosts: all\n  vars: {metadata: {name: n, '
                         b'description: d, groups: [prep, nope]}}\n'))
        self.assertIn('requires may list only', self.problem(
            b'- hosts: all\n  vars: {metadata: {name: n, description: d, '
            b'groups: [prep], requires: [token]}}\n'))

    def test_ids_come_from_file_names(self):
        self.assertEqual('check-disk', metadata.validation_id(
            'custom-validations/check-disk.yaml'))
        self.assertIsNone(metadata.validation_id('groups.yaml'))
        self.assertIsNone(metadata.validation_id('README.md'))
        self.assertIsNone(metadata.validation_id('a/.hidden.yaml'))

    def test_groups_file(self):
        self.assertEqual({'prep': 'The undercloud.'}, metadata.read_groups(
            b'prep:\n  - description: The\n      undercloud.\n'))
        self.assertRaises(ValueError, metadata.read_groups, b'- prep\n')
        self.assertRaises(ValueError, metadata.read_groups, b'prep: x\n')


class TestShipped(testtools.TestCase):

    def test_every_shipped_playbook_is_valid(self):
        files = shipped.files()
        groups = metadata.read_groups(files.pop('groups.yaml'))
        found = [metadata.read(metadata.validation_id(n), d, groups)
                 for n, d in files.items()]
        self.assertEqual([], [(v['id'], v['problem']) for v in found
                              if v['problem']])
        self.assertGreaterEqual(len(found), 8)
        # every group has a member, but the update's and upgrade's hooks
        # (tripleo-validations' playbooks and the operator's fill them)
        self.assertEqual(set(groups) - {'pre-update', 'post-update',
                                        'pre-upgrade', 'post-upgrade'},
                         {g for v in found for g in v['groups']})


class TestBounds(testtools.TestCase):
    """Playbooks and groups.yaml: no YAML anchor, bytes capped (issue
    37: 662 bytes of aliases under requires took 66 s and 1.7 GB)."""

    def test_an_anchor_is_a_problem_that_names_its_line(self):
        found = metadata.read('v', GOOD.replace(
            b'groups: [prep]', b'groups: [prep]\n      requires: '
            b'[&r inventory, *r]'), GROUPS)
        self.assertEqual(
            'line 9: it uses a YAML anchor (&r), which this file may not '
            'hold; write the value out in full wherever it is used',
            found['problem'])
        self.assertEqual([], found['requires'])

    def test_requires_holds_names_only(self):
        for value in (b'[[inventory]]', b'[{inventory: 1}]', b'[1]',
                      b'inventory'):
            self.assertIn('requires may list only', metadata.read(
                'v', GOOD.replace(b'groups: [prep]', b'groups: [prep]\n'
                                  b'      requires: ' + value),
                GROUPS)['problem'])

    def test_groups_file_anchors_and_size(self):
        for text, said in ((b'prep: &p [{description: x}]\nother: *p\n',
                            'groups.yaml: line 1: it uses a YAML anchor'),
                           (b'#' * (1024 * 1024 + 1),
                            'bytes, more than the 1048576')):
            with self.assertRaises(ValueError) as caught:
                metadata.read_groups(text)
            self.assertIn(said, str(caught.exception))
