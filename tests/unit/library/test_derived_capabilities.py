"""Capabilities derived from THT's sample-env-generator/ and the
environment files' headers (handmade, and tripleo-heat-templates 18.0.0
when THT_DIR points at it)."""

import json
import os
import unittest

from tests.unit.library import capability_trees as trees
from tripleoplanclient.common import exceptions
from tripleoplanclient.library import capabilities
from tripleoplanclient.library import derived_capabilities
from tripleoplanclient.plan import rendering

ROOT = trees.ROOT
tree = trees.tree
by_file = trees.by_file
excluded = trees.excluded
overlapped = trees.overlapped


class TestDerived(trees.Derived, unittest.TestCase):

    def test_files_listed_and_read_once(self):
        caps = self.build(enabled=['environments/ssl/ip.yaml'])
        self.assertEqual('sample-env-generator', caps['source'])
        self.assertEqual(ROOT, caps['root_environment'])
        self.assertEqual(
            ['environments/a-one.yaml', 'environments/backend-file.yaml',
             'environments/backend-rbd.yaml', 'environments/drivers-list.yaml',
             'environments/drivers-text.yaml', 'environments/net.yaml',
             'environments/services/a-off.yaml',
             'environments/services/a-two.yaml', 'environments/ssl/dns.yaml',
             'environments/ssl/enable-tls.yaml', 'environments/ssl/ip.yaml',
             'environments/ssl/port.yaml', 'environments/ssl/trust-hiera.yaml',
             'environments/ssl/trust.yaml', ROOT],
            sorted(by_file(caps)))
        self.assertEqual(len(self.reads), len(set(self.reads)))
        for path in ('overcloud.j2.yaml', 'sample-env-generator/README.rst',
                     'environments/README.md',
                     'overcloud-resource-registry-puppet.j2.yaml',
                     'environments/lifecycle/update-prepare.yaml',
                     'environments/per-role.role.j2.yaml'):
            self.assertNotIn(path, self.reads)
        self.assertEqual({'environments/ssl/ip.yaml'},
                         {p for p, e in by_file(caps).items()
                          if e['enabled']})
        self.assertIn('1 environment file(s) are known only by their jinja2',
                      caps['note'])
        json.dumps(caps)

    def test_titles_from_generator_then_header_then_path(self):
        envs = by_file(self.build())
        self.assertEqual(('Enable TLS', 'Pass certificates in.'), (
            envs['environments/ssl/enable-tls.yaml']['title'],
            envs['environments/ssl/enable-tls.yaml']['description']))
        # A child inherits what it does not set.
        self.assertEqual(('Trust a CA', 'Adds a CA with hiera.'), (
            envs['environments/ssl/trust-hiera.yaml']['title'],
            envs['environments/ssl/trust-hiera.yaml']['description']))
        self.assertEqual(
            ('Endpoints as IP addresses',
             'Use this environment when the public\nendpoint is an IP '
             'address.\n\nA second paragraph.'),
            (envs['environments/ssl/ip.yaml']['title'],
             envs['environments/ssl/ip.yaml']['description']))
        self.assertEqual(
            ('Endpoints as DNS names', 'Public endpoints by name'),
            (envs['environments/ssl/dns.yaml']['title'],
             envs['environments/ssl/dns.yaml']['description']))
        self.assertEqual('Networks', envs['environments/net.yaml']['title'])
        self.assertEqual(('environments/a-one.yaml', ''), (
            envs['environments/a-one.yaml']['title'],
            envs['environments/a-one.yaml']['description']))
        self.assertEqual(derived_capabilities.ROOT_TITLE, envs[ROOT]['title'])

    def test_topics_and_groups(self):
        caps = self.build()
        topics = {t['title']: t for t in caps['topics']}
        self.assertEqual(['General', 'services', 'ssl'],
                         [t['title'] for t in caps['topics']])
        self.assertIn('sample-env-generator/ssl.yaml',
                      topics['ssl']['description'])
        self.assertIn('environments/ssl/', topics['ssl']['description'])
        groups = {g['title']: [e['file'] for e in g['environments']]
                  for g in topics['ssl']['groups']}
        # The parent and its children are one group, in the generator's
        # order; a file the tree lacks (not-in-the-tree) is not listed.
        self.assertEqual(['environments/ssl/trust.yaml',
                          'environments/ssl/trust-hiera.yaml'],
                         groups['Trust a CA'])
        self.assertEqual(['environments/ssl/ip.yaml'],
                         groups['Endpoints as IP addresses'])
        self.assertEqual(5, len(groups))
        general = [g['environments'][0]['file']
                   for g in topics['General']['groups']]
        self.assertIn(ROOT, general)
        self.assertIn('environments/net.yaml', general)
        self.assertEqual({'environments/services/a-off.yaml',
                          'environments/services/a-two.yaml'},
                         {g['environments'][0]['file']
                          for g in topics['services']['groups']})

    def test_paths_in_any_order_give_the_same_result(self):
        first = json.dumps(self.build())
        self.files = dict(reversed(list(self.files.items())))
        self.assertEqual(first, json.dumps(self.build()))

    def test_malformed_generator_files(self):
        self.assertMalformed('sample-env-generator/x.yaml', b'a: [\n',
                             'not valid YAML')
        self.assertMalformed('sample-env-generator/x.yaml', b'a: 1\n',
                             'no "environments" list')
        self.assertMalformed('sample-env-generator/x.yaml',
                             b'environments: [{title: t}]\n',
                             'environment 1 has no name')
        self.assertMalformed('sample-env-generator/x.yaml',
                             b'environments: [{name: a, children: 1}]\n',
                             'children of environment 1')

    def test_no_map_and_no_generator(self):
        del self.files['sample-env-generator/ssl.yaml']
        del self.files['sample-env-generator/README.rst']
        caps = self.build()
        self.assertEqual([], self.reads)
        self.assertEqual([], caps['topics'])
        self.assertIsNone(caps['source'])
        self.assertIn('plan oc have no capabilities-map.yaml and no '
                      'sample-env-generator/', caps['note'])


def _tht_18(path):
    try:
        with open(os.path.join(path, 'PKG-INFO')) as f:
            return 'Version: 18.0.0\n' in f.read()
    except OSError:
        return False


THT_DIR = os.environ.get('THT_DIR', '')


@unittest.skipUnless(THT_DIR and _tht_18(THT_DIR),
                     'THT_DIR does not point at tripleo-heat-templates 18.0.0')
class TestTripleoHeatTemplates18(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.files = {}
        for top, dirs, names in os.walk(THT_DIR):
            for name in names:
                local = os.path.join(top, name)
                with open(local, 'rb') as f:
                    cls.files[os.path.relpath(local, THT_DIR)] = f.read()

    def build(self, files):
        paths, read, reads = tree(files)
        caps = capabilities.build(
            paths, read, enabled=[ROOT, 'environments/ssl/enable-tls.yaml'])
        return caps, reads

    def test_derived_from_the_generator(self):
        caps, reads = self.build(self.files)
        self.assertEqual(len(reads), len(set(reads)))
        envs = by_file(caps)
        self.assertEqual('sample-env-generator', caps['source'])
        self.assertEqual(212, len(envs))
        self.assertEqual(15, len(caps['topics']))
        self.assertEqual('General', caps['topics'][0]['title'])
        self.assertTrue(envs['environments/ssl/enable-tls.yaml']['enabled'])
        self.assertTrue(envs[ROOT]['enabled'])
        self.assertFalse(any(p.startswith(('environments/lifecycle/',
                                           'environments/releasenotes/'))
                             for p in envs))
        # The generator's title; its topic is the generator file's stem.
        storage = {e['file']: e for t in caps['topics']
                   if t['title'] == 'storage' for g in t['groups']
                   for e in g['environments']}
        self.assertEqual('Enable Cinder NFS Backend',
                         storage['environments/storage/cinder-nfs.yaml']
                         ['title'])
        # From a jinja2 source: listed by what it renders to.
        self.assertEqual('Enable SSL on OpenStack Internal Endpoints',
                         envs['environments/ssl/enable-internal-tls.yaml']
                         ['title'])
        # A header outside the generator; no header at all.
        self.assertEqual(
            'Enable TLS in Memcached Internal Endpoint',
            envs['environments/ssl/enable-memcached-tls.yaml']['title'])
        self.assertEqual('environments/debug.yaml',
                         envs['environments/debug.yaml']['title'])
        self.assertFalse(any(e['requires'] for e in envs.values()))
        pairs = {tuple(sorted((p, x['file'])))
                 for p, e in envs.items() for x in e['excludes']}
        self.assertEqual(88, len(pairs))
        pairs = {tuple(sorted((p, x['file'])))
                 for p, e in envs.items() for x in e['overlaps']}
        self.assertEqual(481, len(pairs))

    def test_constraints_found_by_hand(self):
        caps, _ = self.build(self.files)
        # Endpoint flavours are parameters: the later overrides.
        self.assertEqual(
            'both set parameter EndpointMap differently',
            overlapped(caps, 'environments/ssl/tls-endpoints-public-ip.yaml')[
                'environments/ssl/tls-endpoints-public-dns.yaml'])
        self.assertEqual({}, excluded(
            caps, 'environments/ssl/tls-endpoints-public-dns.yaml'))
        # OVS and OVN: two ML2 plugin bases, real alternatives; the agents
        # OVN turns off are overrides.
        ovs = excluded(caps, 'environments/services/neutron-ovs.yaml')
        self.assertEqual(
            'both map OS::TripleO::Services::NeutronMl2PluginBase '
            'differently', ovs['environments/services/neutron-ovn-ha.yaml'])
        self.assertIn('OS::TripleO::Services::NeutronDhcpAgent', overlapped(
            caps, 'environments/services/neutron-ovs.yaml')[
                'environments/services/neutron-ovn-ha.yaml'])
        # SR-IOV over OVN restates OVN's drivers plus its own: no conflict.
        self.assertNotIn('environments/services/neutron-ovn-sriov.yaml',
                         excluded(caps,
                                  'environments/services/neutron-ovn-ha.yaml'))
        self.assertEqual({}, excluded(caps, ROOT))
        # Enabling both endpoint flavours: a warning naming the parameter;
        # both ML2 backends: refused.
        both = [ROOT, 'environments/ssl/tls-endpoints-public-ip.yaml',
                'environments/ssl/tls-endpoints-public-dns.yaml']
        self.assertEqual(both, capabilities.check(caps, both))
        self.assertEqual(
            ['later file overrides earlier: '
             'environments/ssl/tls-endpoints-public-dns.yaml overrides '
             'environments/ssl/tls-endpoints-public-ip.yaml (both set '
             'parameter EndpointMap differently)'],
            capabilities.overrides(caps, both))
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'mutually exclusive .*NeutronMl2Plugin'):
            capabilities.check(
                caps, [ROOT],
                enable=['environments/services/neutron-ovn-ha.yaml',
                        'environments/services/neutron-ovs.yaml'])
        self.assertEqual(
            [ROOT, 'environments/ssl/enable-tls.yaml',
             'environments/ssl/tls-endpoints-public-dns.yaml'],
            capabilities.check(
                caps, [ROOT, 'environments/ssl/enable-tls.yaml'],
                enable=['environments/ssl/tls-endpoints-public-dns.yaml']))

    def test_rendered_plan(self):
        files = dict(self.files)
        files.update(rendering.render(
            set(files), files.__getitem__,
            networks_path='network_data_default.yaml'))
        caps, reads = self.build(files)
        self.assertNotIn('jinja2', caps['note'])
        self.assertNotIn('environments/net-bond-with-vlans.j2.yaml', reads)
        # The rendered NIC layouts set the same role parameters: the later
        # overrides.
        self.assertIn('ComputeNetworkConfigTemplate', overlapped(
            caps, 'environments/net-bond-with-vlans.yaml')[
                'environments/net-single-nic-with-vlans.yaml'])
        pairs = {tuple(sorted((p, x['file'])))
                 for p, e in by_file(caps).items() for x in e['excludes']}
        self.assertEqual(94, len(pairs))
