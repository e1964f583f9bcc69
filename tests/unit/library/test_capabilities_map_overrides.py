"""With a capabilities-map.yaml the map alone says which environments are
alternatives, and a later environment file overriding an earlier one is a
warning, found in the files' content as without a map."""

import unittest

from tests.unit.library import capability_trees as trees
from tripleoplanclient.common import exceptions
from tripleoplanclient.library import capabilities
from tripleoplanclient.mistral import library

ROOT = trees.ROOT
CINDER = ('environments/cinder-netapp-config.yaml',
          'environments/cinder-pure-config.yaml')
CEPH = ('environments/ceph-ansible/ceph-ansible.yaml',
        'environments/ceph-ansible/ceph-ansible-external.yaml')
# Both Cinder backends set one parameter (each its own value), and map one
# resource type to two implementations: without a map that pair would be
# refused; the map lists them in a group that combines.
NETAPP = (b'resource_registry:\n'
          b'  OS::TripleO::Services::CinderBackend: ../netapp.yaml\n'
          b'parameter_defaults:\n  CinderEnableIscsiBackend: false\n')
PURE = (b'resource_registry:\n'
        b'  OS::TripleO::Services::CinderBackend: ../pure.yaml\n'
        b'parameter_defaults:\n  CinderEnableIscsiBackend: true\n')
CEPH_ANSIBLE = b'parameter_defaults:\n  CephPoolDefaultSize: 3\n'
CEPH_EXTERNAL = b'parameter_defaults:\n  CephPoolDefaultSize: 1\n'
WARNING = ('later file overrides earlier: %s overrides %s (both map '
           'OS::TripleO::Services::CinderBackend and set parameter '
           'CinderEnableIscsiBackend differently)' % (CINDER[1], CINDER[0]))


class TestMapOverrides(unittest.TestCase):

    def setUp(self):
        self.files = {'capabilities-map.yaml': trees.TRAIN_MAP,
                      ROOT: b'resource_registry: {}\n',
                      CINDER[0]: NETAPP, CINDER[1]: PURE,
                      CEPH[0]: CEPH_ANSIBLE, CEPH[1]: CEPH_EXTERNAL,
                      'environments/cinder-iser.yaml': b'{}\n',
                      # jinja2 sources only: nothing to compare
                      'environments/net-bond-with-vlans.j2.yaml': b'x\n',
                      'environments/net-single-nic-with-vlans.j2.yaml':
                          b'x\n'}

    def build(self):
        paths, read, reads = trees.tree(self.files)
        return capabilities.build(paths, read), reads

    def test_overrides_warn_where_the_map_does_not_refuse(self):
        caps, reads = self.build()
        self.assertEqual(list(CINDER), capabilities.check(
            caps, [], enable=CINDER))
        self.assertEqual([WARNING], capabilities.overrides(caps, CINDER))
        self.assertEqual(
            [WARNING.replace(CINDER[1], '@').replace(CINDER[0], CINDER[1])
             .replace('@', CINDER[0])],
            capabilities.overrides(caps, CINDER[::-1]))
        # Each environment file read once, the jinja2 sources never.
        self.assertEqual(len(reads), len(set(reads)))
        self.assertFalse([r for r in reads if r.endswith('.j2.yaml')])
        # A mutually exclusive group of the map refuses, and says no more.
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'mutually exclusive'):
            capabilities.check(caps, [], enable=CEPH)
        self.assertEqual([], capabilities.overrides(caps, CEPH))
        # The same settings override nothing.
        self.files[CINDER[1]] = NETAPP
        caps, _ = self.build()
        self.assertEqual([], capabilities.overrides(caps, CINDER))

    def test_validate_warns_and_reads_only_the_enabled_files(self):
        # library.capability_check: plan validate's and the deploy's.
        paths, read, reads = trees.tree(self.files)
        problems, warnings = library.capability_check(
            paths, read, [ROOT] + list(CINDER))
        self.assertEqual(([], [WARNING]), (problems, warnings))
        self.assertEqual({'capabilities-map.yaml'} | set(CINDER), set(reads))
