"""Capabilities: from capabilities-map.yaml, derived from THT's
sample-env-generator/ and headers, and a choice checked against them."""

import json
import os
import time
import unittest

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import capabilities
from tripleoplanclient.plan import rendering

ROOT = capabilities.ROOT_ENVIRONMENT

MAP = b"""# the map's own comments
root_environment: overcloud-resource-registry-puppet.yaml
topics:
  - title: Base
    environment_groups:
      - environments:
          - file: overcloud-resource-registry-puppet.yaml
            title: Base resources
  - title: Networking
    description: Networks of the overcloud
    future_key: ignored
    environment_groups:
      - title: Isolation
        description: >
          Isolated networks
        environments:
          - file: environments/net-iso.yaml
            title: Network isolation
            description: Isolate traffic
            requires:
              - overcloud-resource-registry-puppet.yaml
          - file: ./environments/net-iso-v6.yaml
            title: 1234
            requires: [environments/not-in-the-map.yaml]
      - title: NIC layout
        environments:
          - file: environments/bond.yaml
            title: Bond
            requires:
              - environments/net-iso.yaml
              - overcloud-resource-registry-puppet.yaml
          - file: environments/gone.yaml
            title: Gone from the tree
"""


def tree(files):
    """``(paths, read, reads)``: a plan's paths and a ``read`` that counts
    what it is asked for."""
    reads = []

    def read(path):
        reads.append(path)
        return files[path]
    return set(files), read, reads


def by_file(caps):
    return capabilities.environments(caps)


def excluded(caps, path):
    return {e['file']: e['reason'] for e in by_file(caps)[path]['excludes']}


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

    def test_the_map_is_authoritative_and_read_alone(self):
        caps, reads = self.build()
        self.assertEqual(['capabilities-map.yaml'], reads)
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

    def test_a_group_of_several_is_a_choice_of_one(self):
        caps, _ = self.build()
        self.assertEqual(
            {'environments/net-iso-v6.yaml':
             'same group "Isolation" of capabilities-map.yaml'},
            excluded(caps, 'environments/net-iso.yaml'))
        self.assertEqual({'environments/gone.yaml'},
                         set(excluded(caps, 'environments/bond.yaml')))
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


GENERATOR = b"""environments:
  - name: ssl/enable-tls
    title: Enable TLS
    description: |
      Pass certificates in.
    files: {}
    future_key: ignored
  - name: ssl/trust
    title: Trust a CA
    description: Adds a CA.
    children:
      - name: ssl/trust-hiera
        description: Adds a CA with hiera.
      - name: ssl/not-in-the-tree
"""

HEADED = b"""# *****************************
# generated, do not edit
# *****************************
# title: Endpoints as IP addresses
# description: |
#   Use this environment when the public
#   endpoint is an IP address.
#
#   A second paragraph.
parameter_defaults:
  # title: not a header
  EndpointMap:
    KeystonePublic: {host: IP_ADDRESS, port: 13000}
    NovaPublic: {host: IP_ADDRESS, port: 13774}
parameter_merge_strategies:
  EndpointMap: merge
"""


class TestDerived(unittest.TestCase):

    def setUp(self):
        self.files = {
            'overcloud.j2.yaml': b'heat_template_version: wallaby\n',
            'overcloud-resource-registry-puppet.j2.yaml':
                b'resource_registry:\n  OS::TripleO::Services::A: x.yaml\n',
            'overcloud-resource-registry-puppet.yaml': (
                b'resource_registry:\n'
                b'  OS::TripleO::Services::A: deployment/a-base.yaml\n'
                b'parameter_defaults:\n  Backend: base\n'),
            'sample-env-generator/ssl.yaml': GENERATOR,
            'sample-env-generator/README.rst': b'not yaml: [\n',
            'environments/ssl/enable-tls.yaml': (
                b'# title: a header the generator overrides\n'
                b'parameter_defaults:\n  SSLKey: ""\n'),
            'environments/ssl/trust.yaml': b'{}\n',
            'environments/ssl/trust-hiera.yaml': b'',
            'environments/ssl/ip.yaml': HEADED,
            'environments/ssl/dns.yaml': (
                b"# title: 'Endpoints as DNS names'\n"
                b'# description: Public endpoints by name\n'
                b'parameter_defaults:\n'
                b'  EndpointMap:\n'
                b'    KeystonePublic: {host: CLOUDNAME, port: 13000}\n'
                b'parameter_merge_strategies:\n  EndpointMap: merge\n'),
            'environments/ssl/port.yaml': (
                b'parameter_defaults:\n  EndpointMap:\n'
                b'    GlancePublic: {host: IP_ADDRESS, port: 13292}\n'
                b'parameter_merge_strategies:\n  default: merge\n'),
            # Registry: relative targets from each file's own directory.
            'environments/a-one.yaml': (
                b'resource_registry:\n'
                b'  OS::TripleO::Services::A: ../deployment/a.yaml\n'),
            'environments/services/a-two.yaml': (
                b'resource_registry:\n'
                b'  OS::TripleO::Services::A: ../../deployment/a.yaml\n'),
            'environments/services/a-off.yaml': (
                b'resource_registry:\n'
                b'  OS::TripleO::Services::A: OS::Heat::None\n'
                b'  resources:\n    r1:\n      OS::X: OS::Heat::None\n'),
            # Parameters.
            'environments/backend-file.yaml': (
                b'parameter_defaults:\n  Backend: file\n'
                b'  Drivers: ovn\n  Enabled: True\n'),
            'environments/backend-rbd.yaml': (
                b'parameter_defaults:\n  Backend: rbd\n'
                b'  Drivers: [ovn, sriov]\n  Enabled: "true"\n'),
            'environments/drivers-list.yaml': (
                b'parameter_defaults:\n  Drivers: [ovs, sriov]\n'),
            'environments/drivers-text.yaml': (
                b'parameter_defaults:\n  Drivers: "ovs, sriov"\n'),
            # Not listed: lifecycle, a release note, what is no YAML.
            'environments/lifecycle/update-prepare.yaml': b'{}\n',
            'environments/releasenotes/notes/x.yaml': b'fixes: [a]\n',
            'environments/README.md': b'# notes\n',
            # Known by its jinja2 source only: header read, no settings.
            'environments/net.j2.yaml': (
                b'# title: Networks\n{% for n in networks %}\n'
                b'resource_registry: {}\n{% endfor %}\n'),
            'environments/per-role.role.j2.yaml': b'x: 1\n',
        }

    def build(self, enabled=()):
        paths, read, reads = tree(self.files)
        self.reads = reads
        return capabilities.build(paths, read, enabled, plan='oc')

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
        self.assertEqual(capabilities.ROOT_TITLE, envs[ROOT]['title'])

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

    def test_paths_in_any_order_give_the_same_result(self):
        first = json.dumps(self.build())
        self.files = dict(reversed(list(self.files.items())))
        self.assertEqual(first, json.dumps(self.build()))

    def assertMalformed(self, path, text, *fragments):
        self.files[path] = text
        with self.assertRaises(exceptions.CommandError) as ctx:
            self.build()
        for fragment in (path,) + fragments:
            self.assertIn(fragment, str(ctx.exception))

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

    def test_no_map_and_no_generator(self):
        del self.files['sample-env-generator/ssl.yaml']
        del self.files['sample-env-generator/README.rst']
        caps = self.build()
        self.assertEqual([], self.reads)
        self.assertEqual([], caps['topics'])
        self.assertIsNone(caps['source'])
        self.assertIn('plan oc have no capabilities-map.yaml and no '
                      'sample-env-generator/', caps['note'])


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
        start = time.monotonic()
        caps = capabilities.build(
            paths, read, enabled=[ROOT, 'environments/ssl/enable-tls.yaml'])
        return caps, time.monotonic() - start, reads

    def test_derived_from_the_generator(self):
        caps, seconds, reads = self.build(self.files)
        self.assertLess(seconds, 2)        # 0.06 s measured
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
        self.assertEqual(529, len(pairs))

    def test_constraints_found_by_hand(self):
        caps, _, _ = self.build(self.files)
        self.assertEqual(
            'both set parameter EndpointMap differently',
            excluded(caps, 'environments/ssl/tls-endpoints-public-ip.yaml')[
                'environments/ssl/tls-endpoints-public-dns.yaml'])
        dns = excluded(caps, 'environments/ssl/tls-endpoints-public-dns.yaml')
        self.assertIn('environments/ssl/tls-endpoints-public-ip.yaml', dns)
        ovs = excluded(caps, 'environments/services/neutron-ovs.yaml')
        self.assertIn('OS::TripleO::Services::NeutronDhcpAgent',
                      ovs['environments/services/neutron-ovn-ha.yaml'])
        # SR-IOV over OVN restates OVN's drivers plus its own: no conflict.
        self.assertNotIn('environments/services/neutron-ovn-sriov.yaml',
                         excluded(caps,
                                  'environments/services/neutron-ovn-ha.yaml'))
        self.assertEqual({}, excluded(caps, ROOT))
        # Enabling both endpoint flavours is refused, naming the parameter.
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'mutually exclusive .*EndpointMap'):
            capabilities.check(
                caps, [ROOT],
                enable=['environments/ssl/tls-endpoints-public-ip.yaml',
                        'environments/ssl/tls-endpoints-public-dns.yaml'])
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
        caps, seconds, reads = self.build(files)
        self.assertLess(seconds, 2)
        self.assertNotIn('jinja2', caps['note'])
        self.assertNotIn('environments/net-bond-with-vlans.j2.yaml', reads)
        # The rendered NIC layouts choose the same role parameters.
        self.assertIn('ComputeNetworkConfigTemplate',
                      excluded(caps, 'environments/net-bond-with-vlans.yaml')[
                          'environments/net-single-nic-with-vlans.yaml'])
        pairs = {tuple(sorted((p, x['file'])))
                 for p, e in by_file(caps).items() for x in e['excludes']}
        self.assertEqual(626, len(pairs))
