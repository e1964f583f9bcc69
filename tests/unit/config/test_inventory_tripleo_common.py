"""The inventory equals, as data, what tripleo-common 18.0.0's static
inventory writes for the same stack (no Neutron: its port tags are not
read by either here)."""

import sys
import unittest

import yaml

from tests.unit.config import reference
from tests.unit.config import stacks


class TestSameInventory(unittest.TestCase):

    def test_the_overcloud(self):
        cloud = stacks.overcloud()
        theirs, _ = reference.tripleo_common_inventory(cloud)
        ours = yaml.safe_load(reference.our_inventory(cloud))
        self.assertEqual(theirs, ours)
        self.assertEqual(
            sys.executable,
            ours['Undercloud']['vars']['ansible_python_interpreter'])
        self.assertEqual({'overcloud-novacompute-0': {},
                          'overcloud-novacompute-1': {}},
                         {h: {} for h in ours['overcloud_Compute']['hosts']})

    def test_another_plan_and_user(self):
        cloud = stacks.overcloud('edge1')
        theirs, _ = reference.tripleo_common_inventory(
            cloud, plan='edge1', ssh_user='heat-admin')
        ours = yaml.safe_load(reference.our_inventory(
            cloud, plan='edge1', ssh_user='heat-admin'))
        self.assertEqual(theirs, ours)
        self.assertEqual('heat-admin',
                         ours['edge1_Controller']['vars']['ansible_ssh_user'])

    def test_odd_outputs(self):
        cloud = stacks.overcloud()
        out = cloud.outputs
        # a service in capitals, ceph aliases, a role with no server
        out['EnabledServices']['Compute'] += ['Nova_Libvirt', 'ceph_osd',
                                              'ceph_rgw']
        out['EnabledServices']['Networker'] = ['neutron_l3']
        out['RoleNetHostnameMap']['Networker'] = {}
        out['VipMap']['storage'] = '192.168.26.5'
        out['BlacklistedHostnames'] = []
        del out['KeystoneURL'], out['EndpointMap']
        cloud.environment = {}
        theirs, _ = reference.tripleo_common_inventory(cloud)
        ours = yaml.safe_load(reference.our_inventory(cloud))
        self.assertEqual(theirs, ours)
        self.assertIn('overcloud_nova_libvirt', ours)
        self.assertNotIn('overcloud_neutron_l3', ours)
        self.assertIsNone(ours['overcloud_overcloud']['vars'][
            'container_cli'])

    def test_a_larger_stack(self):
        cloud = stacks.many(roles=3, per_role=4, servers_per_role=4)
        theirs, _ = reference.tripleo_common_inventory(cloud)
        self.assertEqual(theirs,
                         yaml.safe_load(reference.our_inventory(cloud)))
