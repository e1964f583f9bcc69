"""Capabilities read from capabilities-map.yaml, and a choice of
environments checked against them."""

import json
import unittest

import yaml

from tests.unit.library import capability_trees as trees
from tripleoplanclient.common import exceptions
from tripleoplanclient.library import capabilities

ROOT = trees.ROOT
MAP = trees.MAP
tree = trees.tree
by_file = trees.by_file
excluded = trees.excluded


class TestMap(unittest.TestCase):

    def setUp(self):
        self.files = {
            'capabilities-map.yaml': MAP,
            'sample-env-generator/ignored.yaml': b'environments: []\n',
            'overcloud-resource-registry-puppet.j2.yaml': b'x: 1\n',
            'environments/net-iso.j2.yaml': b'x: 1\n',
            'environments/net-iso-v6.yaml': b'x: 1\n',
            'environments/bond.yaml': b'x: 1\n',
            'environments/other.yaml': b'x: 1\n',
        }

    def build(self, enabled=()):
        paths, read, reads = tree(self.files)
        return capabilities.build(paths, read, enabled), reads

    def test_the_map_is_authoritative(self):
        caps, reads = self.build()
        # The map, then (for overrides only) each of its environment
        # files once: not one outside the map, nor a jinja2 source.
        self.assertEqual(['capabilities-map.yaml', 'environments/bond.yaml',
                          'environments/net-iso-v6.yaml'], reads)
        self.assertEqual('capabilities-map.yaml', caps['source'])
        self.assertEqual(ROOT, caps['root_environment'])
        self.assertEqual(['Base', 'Networking'],
                         [t['title'] for t in caps['topics']])
        net = caps['topics'][1]
        self.assertEqual('Networks of the overcloud', net['description'])
        self.assertEqual(['Isolation', 'NIC layout'],
                         [g['title'] for g in net['groups']])
        self.assertEqual('Isolated networks', net['groups'][0]['description'])
        # The map's order, './' dropped, titles made text; files outside
        # the map (environments/other.yaml) are not listed.
        self.assertEqual(
            [ROOT, 'environments/net-iso.yaml', 'environments/net-iso-v6.yaml',
             'environments/bond.yaml', 'environments/gone.yaml'],
            [e['file'] for t in caps['topics'] for g in t['groups']
             for e in g['environments']])
        self.assertEqual('1234',
                         by_file(caps)['environments/net-iso-v6.yaml']
                         ['title'])
        self.assertEqual('', caps['topics'][0]['groups'][0]['title'])

    def test_enabled_and_available(self):
        caps, _ = self.build(enabled=[ROOT, 'environments/bond.yaml',
                                      'user-files/home/stack/x.yaml'])
        envs = by_file(caps)
        self.assertEqual({ROOT, 'environments/bond.yaml'},
                         {p for p, e in envs.items() if e['enabled']})
        # Rendered from a .j2.yaml counts as held; a file the tree lacks
        # is listed, flagged, and said in the note.
        self.assertTrue(envs['environments/net-iso.yaml']['available'])
        self.assertTrue(envs[ROOT]['available'])
        self.assertFalse(envs['environments/gone.yaml']['available'])
        self.assertIn('environments/gone.yaml', caps['note'])

    def test_a_mutually_exclusive_group_is_a_choice_of_one(self):
        caps, _ = self.build()
        self.assertEqual(
            {'environments/net-iso-v6.yaml':
             'same group "Isolation" of capabilities-map.yaml'},
            excluded(caps, 'environments/net-iso.yaml'))
        # "NIC layout" is not flagged mutually_exclusive: its files combine.
        self.assertEqual({}, excluded(caps, 'environments/bond.yaml'))
        self.assertEqual({}, excluded(caps, ROOT))

    def test_requires_name_environments_of_the_map_only(self):
        caps, _ = self.build()
        envs = by_file(caps)
        self.assertEqual(['environments/net-iso.yaml', ROOT],
                         envs['environments/bond.yaml']['requires'])
        self.assertEqual([], envs['environments/net-iso-v6.yaml']['requires'])

    def test_a_jinja2_source_is_named_by_what_it_renders_to(self):
        self.files['capabilities-map.yaml'] = (
            b'topics:\n- environment_groups:\n  - environments:\n'
            b'    - {file: environments/net-iso.j2.yaml, title: N}\n')
        caps, _ = self.build(enabled=['environments/net-iso.yaml'])
        self.assertEqual(['environments/net-iso.yaml'], list(by_file(caps)))
        self.assertTrue(by_file(caps)['environments/net-iso.yaml']['enabled'])

    def test_result_is_json_and_deterministic(self):
        first, _ = self.build()
        again, _ = self.build()
        self.assertEqual(json.dumps(first, sort_keys=True),
                         json.dumps(again, sort_keys=True))

    def assertMalformed(self, text, *fragments):
        self.files['capabilities-map.yaml'] = text
        with self.assertRaises(exceptions.CommandError) as ctx:
            self.build()
        message = str(ctx.exception)
        self.assertIn('capabilities-map.yaml', message)
        for fragment in fragments:
            self.assertIn(fragment, message)

    def test_malformed_maps_are_named(self):
        self.assertMalformed(b'topics: [\n', 'not valid YAML')
        self.assertMalformed(b'- a\n- b\n', 'its content is not a mapping')
        self.assertMalformed(b'topics: {a: 1}\n', 'topics of the map')
        self.assertMalformed(b'topics: [x]\n', 'topic 1 is not a mapping')
        self.assertMalformed(
            b'topics:\n- environment_groups:\n  - environments:\n'
            b'    - title: no file\n', 'environment 1 names no file')
        self.assertMalformed(
            b'topics:\n- environment_groups:\n  - environments:\n'
            b'    - file: ../outside.yaml\n', '../outside.yaml')
        self.assertMalformed(
            b'topics:\n- environment_groups:\n  - environments:\n'
            b'    - {file: a.yaml, requires: 3}\n', 'requires of')


class TestCheck(unittest.TestCase):

    def setUp(self):
        paths, read, _ = tree({
            'capabilities-map.yaml': MAP,
            'overcloud-resource-registry-puppet.yaml': b'{}\n',
            'environments/net-iso.yaml': b'{}\n',
            'environments/net-iso-v6.yaml': b'{}\n',
            'environments/bond.yaml': b'{}\n'})
        self.caps = capabilities.build(paths, read)

    def refused(self, current, enable=(), disable=()):
        with self.assertRaises(exceptions.CommandError) as ctx:
            capabilities.check(self.caps, current, enable, disable)
        message = str(ctx.exception)
        self.assertIn('Nothing was changed', message)
        return message

    def test_disable_then_append_keeping_places_and_user_files(self):
        current = ['user-files/home/stack/first.yaml', ROOT,
                   'environments/net-iso-v6.yaml',
                   'user-files/home/stack/last.yaml']
        self.assertEqual(
            ['user-files/home/stack/first.yaml', ROOT,
             'user-files/home/stack/last.yaml', 'environments/net-iso.yaml',
             'environments/bond.yaml'],
            capabilities.check(
                self.caps, current,
                enable=['environments/net-iso.yaml', ROOT,
                        'environments/bond.yaml'],
                disable=['environments/net-iso-v6.yaml']))
        self.assertEqual(ROOT, current[1])    # the caller's list untouched

    def test_the_root_environment_goes_first(self):
        self.assertEqual(
            [ROOT, 'user-files/x.yaml', 'environments/net-iso.yaml'],
            capabilities.check(self.caps, ['user-files/x.yaml'],
                               enable=['environments/net-iso.yaml', ROOT]))

    def test_unknown_paths_get_close_names(self):
        message = self.refused([ROOT], enable=['environments/net-isoo.yaml'],
                               disable=['user-files/x.yaml'])
        self.assertIn('environments/net-isoo.yaml is not an environment of '
                      'the templates\' capabilities; did you mean '
                      'environments/net-iso.yaml', message)
        self.assertIn('user-files/x.yaml is not an environment', message)

    def test_exclusive_pair_named_with_its_way_out(self):
        message = self.refused([ROOT, 'environments/net-iso.yaml'],
                               enable=['environments/net-iso-v6.yaml'])
        self.assertIn(
            'environments/net-iso.yaml and environments/net-iso-v6.yaml are '
            'mutually exclusive (same group "Isolation" of '
            'capabilities-map.yaml): do not enable '
            'environments/net-iso-v6.yaml, or --disable '
            'environments/net-iso.yaml', message)
        message = self.refused(
            [ROOT], enable=['environments/net-iso.yaml',
                            'environments/net-iso-v6.yaml'])
        self.assertIn('enable only one of them', message)

    def test_requires(self):
        message = self.refused(['environments/net-iso.yaml'],
                               enable=['environments/bond.yaml'])
        self.assertIn('environments/bond.yaml requires %s: enable %s too'
                      % (ROOT, ROOT), message)
        self.assertIn('environments/net-iso.yaml requires %s' % ROOT,
                      message)
        message = self.refused(
            [ROOT, 'environments/net-iso.yaml', 'environments/bond.yaml'],
            disable=['environments/net-iso.yaml'])
        self.assertIn('environments/bond.yaml requires '
                      'environments/net-iso.yaml: do not disable '
                      'environments/net-iso.yaml', message)

    def test_every_problem_at_once(self):
        message = self.refused(
            ['user-files/u.yaml', 'environments/net-iso.yaml',
             'environments/net-iso-v6.yaml'],
            enable=['environments/gone.yaml', 'environments/bond.yaml',
                    'environments/nope.yaml'],
            disable=['environments/bond.yaml',
                     'overcloud-resource-registry-puppet.yaml'])
        lines = [line for line in message.splitlines()
                 if line.startswith('  - ')]
        for fragment in (
                'environments/nope.yaml is not an environment',
                'environments/gone.yaml is in capabilities-map.yaml but the '
                'templates do not hold it',
                'environments/bond.yaml is given to both --enable and '
                '--disable',
                '%s is not enabled: nothing to disable' % ROOT,
                'both are enabled already: --disable one of them',
                'environments/net-iso.yaml requires %s' % ROOT):
            self.assertEqual(1, sum(fragment in line for line in lines),
                             (fragment, message))
        self.assertNotIn('user-files/u.yaml', message)

    def test_unrelated_user_files_are_never_refused(self):
        current = ['user-files/a.yaml', ROOT, 'user-files/b.yaml']
        self.assertEqual(current + ['environments/net-iso.yaml'],
                         capabilities.check(
                             self.caps, current,
                             enable=['environments/net-iso.yaml']))


class TestTrainMap(unittest.TestCase):
    """A map shaped as THT's own before 17: documented combinations of a
    group without ``mutually_exclusive`` pass, flagged groups refuse."""

    def setUp(self):
        files = {'capabilities-map.yaml': trees.TRAIN_MAP}
        data = yaml.safe_load(trees.TRAIN_MAP)
        for topic in data['topics']:
            for group in topic['environment_groups']:
                for env in group['environments']:
                    files[env['file']] = b'{}\n'
        paths, read, _ = tree(files)
        self.caps = capabilities.build(paths, read)

    def test_backends_of_one_group_combine(self):
        for combination in (
                # Cinder multi-backend (tripleo-docs: "Configuring Cinder
                # with multiple backends"), Manila with CephFS and NetApp,
                # Ceph with its additional services, DPDK with DVR.
                ['environments/cinder-netapp-config.yaml',
                 'environments/cinder-pure-config.yaml',
                 'environments/cinder-iser.yaml'],
                ['environments/ceph-ansible/ceph-ansible.yaml',
                 'environments/ceph-ansible/ceph-mds.yaml',
                 'environments/manila-cephfsnative-config.yaml',
                 'environments/manila-netapp-config.yaml'],
                ['environments/ceph-ansible/ceph-ansible.yaml',
                 'environments/ceph-ansible/ceph-rgw.yaml',
                 'environments/ceph-ansible/ceph-mds.yaml'],
                ['environments/neutron-ovs-dpdk.yaml',
                 'environments/neutron-ovs-dvr.yaml']):
            self.assertEqual(combination, capabilities.check(
                self.caps, [], enable=combination))

    def test_a_flagged_group_is_a_choice_of_one(self):
        for pair, group in (
                (['environments/ceph-ansible/ceph-ansible.yaml',
                  'environments/ceph-ansible/ceph-ansible-external.yaml'],
                 'Ceph'),
                (['environments/net-bond-with-vlans.yaml',
                  'environments/net-single-nic-with-vlans.yaml'],
                 'NICs, Bonding, VLANs Configuration')):
            with self.assertRaisesRegex(
                    exceptions.CommandError,
                    'mutually exclusive \\(same group "%s"' % group):
                capabilities.check(self.caps, [], enable=pair)
