"""Mutually exclusive environments of derived capabilities: registry
targets and parameter values compared as Heat reads them, the reasons
given, and the environment files that cannot be compared."""

import unittest

from tests.unit.library import capability_trees as trees

ROOT = trees.ROOT
by_file = trees.by_file
excluded = trees.excluded


class TestConflicts(trees.Derived, unittest.TestCase):

    def test_registry_conflicts_with_targets_as_plan_paths(self):
        caps = self.build()
        # ../deployment/a.yaml and ../../deployment/a.yaml are one file.
        self.assertNotIn('environments/services/a-two.yaml',
                         excluded(caps, 'environments/a-one.yaml'))
        self.assertEqual(
            {'environments/a-one.yaml':
             'both map OS::TripleO::Services::A differently',
             'environments/services/a-two.yaml':
             'both map OS::TripleO::Services::A differently'},
            excluded(caps, 'environments/services/a-off.yaml'))

    def test_the_root_environment_is_never_in_a_conflict(self):
        caps = self.build()
        self.assertEqual({}, excluded(caps, ROOT))
        for env in by_file(caps).values():
            self.assertNotIn(ROOT, [e['file'] for e in env['excludes']])

    def test_parameter_conflicts(self):
        caps = self.build()
        # Backend differs; Drivers ovn is within [ovn, sriov] (an
        # extension); Enabled True and "true" are one value.
        self.assertEqual(
            {'environments/backend-rbd.yaml':
             'both set parameter Backend differently',
             'environments/drivers-list.yaml':
             'both set parameter Drivers differently',
             'environments/drivers-text.yaml':
             'both set parameter Drivers differently'},
            excluded(caps, 'environments/backend-file.yaml'))
        # One list, as a list or as a comma-separated string: no conflict;
        # [ovs, sriov] and [ovn, sriov]: neither holds the other.
        self.assertEqual({'environments/backend-file.yaml',
                          'environments/backend-rbd.yaml'},
                         set(excluded(caps, 'environments/drivers-list.yaml')))
        self.assertEqual(
            {'environments/backend-file.yaml':
             'both set parameter Backend differently',
             'environments/drivers-list.yaml':
             'both set parameter Drivers differently',
             'environments/drivers-text.yaml':
             'both set parameter Drivers differently'},
            excluded(caps, 'environments/backend-rbd.yaml'))

    def test_merged_mappings_conflict_only_on_a_shared_key(self):
        caps = self.build()
        self.assertEqual({'environments/ssl/dns.yaml':
                          'both set parameter EndpointMap differently'},
                         excluded(caps, 'environments/ssl/ip.yaml'))
        # GlancePublic is set by port.yaml alone (its default: merge).
        self.assertEqual({}, excluded(caps, 'environments/ssl/port.yaml'))

    def test_reasons_name_a_few_keys_and_count_the_rest(self):
        self.files['environments/many-a.yaml'] = (
            b'parameter_defaults: {P1: a, P2: a, P3: a, P4: a, P5: a}\n'
            b'resource_registry: {"OS::X": OS::Heat::None}\n')
        self.files['environments/many-b.yaml'] = (
            b'parameter_defaults: {P1: b, P2: b, P3: b, P4: b, P5: b}\n'
            b'resource_registry: {"OS::X": x.yaml}\n')
        self.assertEqual(
            'both map OS::X and set parameters P1, P2, P3 and 2 more '
            'differently',
            excluded(self.build(), 'environments/many-a.yaml')[
                'environments/many-b.yaml'])

    def test_malformed_environment_files(self):
        self.assertMalformed('environments/bad.yaml', b'a: [\n',
                             'not valid YAML')
        self.assertMalformed('environments/bad.yaml',
                             b'resource_registry: [a, b]\n',
                             'resource_registry is not a mapping')
        self.assertMalformed('environments/bad.yaml',
                             b'parameter_defaults: 3\n',
                             'parameter_defaults is not a mapping')
        self.assertMalformed('environments/bad.yaml',
                             b'resource_registry: {"OS::A": [1]}\n',
                             'maps OS::A to a list')
