"""Mutually exclusive and overlapping environments of derived
capabilities: registry targets and parameter values compared as Heat
reads them, the reasons given, and the environment files that cannot be
compared."""

import unittest

from tests.unit.library import capability_trees as trees
from tripleoplanclient.library import capabilities

ROOT = trees.ROOT
by_file = trees.by_file
excluded = trees.excluded
overlapped = trees.overlapped


class TestConflicts(trees.Derived, unittest.TestCase):

    def test_registry_conflicts_with_targets_as_plan_paths(self):
        caps = self.build()
        # ../deployment/a.yaml and ../../deployment/a.yaml are one file.
        self.assertNotIn('environments/services/a-two.yaml',
                         overlapped(caps, 'environments/a-one.yaml'))
        # Turned off (OS::Heat::None) versus an implementation: the later
        # overrides the earlier, no alternative.
        self.assertEqual(
            {'environments/a-one.yaml':
             'both map OS::TripleO::Services::A differently',
             'environments/services/a-two.yaml':
             'both map OS::TripleO::Services::A differently'},
            overlapped(caps, 'environments/services/a-off.yaml'))
        self.assertEqual({}, excluded(caps,
                                      'environments/services/a-off.yaml'))

    def test_two_real_implementations_are_alternatives(self):
        self.files['environments/a-three.yaml'] = (
            b'resource_registry:\n'
            b'  OS::TripleO::Services::A: ../deployment/a-three.yaml\n')
        self.files['environments/a-type.yaml'] = (
            b'resource_registry:\n'
            b'  OS::TripleO::Services::A: OS::TripleO::Services::AThree\n')
        # A base profile: the others are meant to override it.
        self.files['environments/standalone/profile.yaml'] = (
            b'resource_registry:\n'
            b'  OS::TripleO::Services::A: ../../deployment/a-base.yaml\n')
        caps = self.build()
        reason = 'both map OS::TripleO::Services::A differently'
        self.assertEqual(
            {'environments/a-one.yaml': reason,
             'environments/a-type.yaml': reason,
             'environments/services/a-two.yaml': reason},
            excluded(caps, 'environments/a-three.yaml'))
        self.assertEqual({}, excluded(caps,
                                      'environments/standalone/profile.yaml'))
        self.assertEqual(reason, overlapped(
            caps, 'environments/standalone/profile.yaml')[
                'environments/a-three.yaml'])

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
            overlapped(caps, 'environments/backend-file.yaml'))
        # One list, as a list or as a comma-separated string: no conflict;
        # [ovs, sriov] and [ovn, sriov]: neither holds the other.
        self.assertEqual(
            {'environments/backend-file.yaml',
             'environments/backend-rbd.yaml'},
            set(overlapped(caps, 'environments/drivers-list.yaml')))
        # A parameter set differently is never an alternative.
        self.assertEqual({}, excluded(caps, 'environments/backend-file.yaml'))
        self.assertEqual(
            {'environments/backend-file.yaml':
             'both set parameter Backend differently',
             'environments/drivers-list.yaml':
             'both set parameter Drivers differently',
             'environments/drivers-text.yaml':
             'both set parameter Drivers differently'},
            overlapped(caps, 'environments/backend-rbd.yaml'))

    def test_merged_mappings_conflict_only_on_a_shared_key(self):
        caps = self.build()
        self.assertEqual({'environments/ssl/dns.yaml':
                          'both set parameter EndpointMap differently'},
                         overlapped(caps, 'environments/ssl/ip.yaml'))
        # GlancePublic is set by port.yaml alone (its default: merge).
        self.assertEqual({}, overlapped(caps, 'environments/ssl/port.yaml'))

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
            overlapped(self.build(), 'environments/many-a.yaml')[
                'environments/many-b.yaml'])

    def test_an_override_is_a_warning_naming_both_files(self):
        caps = self.build()
        envs = [ROOT, 'environments/backend-rbd.yaml',
                'environments/services/a-off.yaml', 'user-files/u.yaml',
                'environments/backend-file.yaml', 'environments/a-one.yaml']
        self.assertEqual(envs, capabilities.check(caps, envs))
        self.assertEqual(
            ['later file overrides earlier: environments/backend-file.yaml '
             'overrides environments/backend-rbd.yaml (both set parameter '
             'Backend differently)',
             'later file overrides earlier: environments/a-one.yaml '
             'overrides environments/services/a-off.yaml (both map '
             'OS::TripleO::Services::A differently)'],
            capabilities.overrides(caps, envs))
        self.assertEqual([], capabilities.overrides(
            caps, [ROOT, 'environments/backend-rbd.yaml']))

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
