"""inventory: the SSH user and the addresses the plan recorded, the
undercloud's Python, and stacks with few outputs."""

import copy
import unittest

import yaml

from tests.unit.config import reference
from tests.unit.config import stacks
from tripleoplanclient.common import exceptions
from tripleoplanclient.config import inventory


def overcloud_data():
    return reference.ours(stacks.overcloud())[1]


class TestInventory(unittest.TestCase):

    def setUp(self):
        super().setUp()
        self.data = overcloud_data()

    def test_recorded_addresses_and_user(self):
        text = inventory.inventory(
            self.data, 'overcloud', ssh_user='stack',
            addresses={'overcloud-novacompute-1': '127.0.0.3'},
            python='/usr/bin/python3')
        found = yaml.safe_load(text)
        hosts = found['overcloud_Compute']['hosts']
        self.assertEqual('127.0.0.3',
                         hosts['overcloud-novacompute-1']['ansible_host'])
        self.assertEqual('192.168.24.31',
                         hosts['overcloud-novacompute-1']['ctlplane_ip'])
        self.assertEqual('192.168.24.30',
                         hosts['overcloud-novacompute-0']['ansible_host'])
        self.assertEqual('stack',
                         found['overcloud_Compute']['vars'][
                             'ansible_ssh_user'])
        self.assertEqual('stack', found['overcloud_nova_compute']['vars'][
            'ansible_ssh_user'])
        self.assertEqual('/usr/bin/python3', found['Undercloud']['vars'][
            'ansible_python_interpreter'])
        # ceph-ansible's name for the ceph_mon service's group
        self.assertEqual({'overcloud_mons': {}}, found['mons']['children'])
        self.assertEqual({'overcloud_Controller': {}},
                         found['overcloud_mons']['children'])
        self.assertEqual({'overcloud-novacompute-9': {}},
                         found['overcloud_excluded_overcloud']['hosts'])
        self.assertEqual({'ctlplane_vip': '192.168.24.5',
                          'internal_api_vip': '192.168.25.5',
                          'redis_vip': '192.168.25.6',
                          'container_cli': 'podman'},
                         found['overcloud_overcloud']['vars'])

    def test_password_only_in_the_undercloud_vars(self):
        text = inventory.inventory(self.data, 'overcloud')
        self.assertEqual(1, text.count('secret-admin-pw'))
        self.assertEqual('secret-admin-pw', yaml.safe_load(text)[
            'Undercloud']['vars']['overcloud_admin_password'])

    def test_deterministic(self):
        self.assertEqual(inventory.inventory(self.data, 'overcloud'),
                         inventory.inventory(copy.deepcopy(self.data),
                                             'overcloud'))

    def test_no_servers(self):
        data = dict(self.data, outputs={}, environment={})
        found = yaml.safe_load(inventory.inventory(data, 'overcloud'))
        self.assertEqual(['Undercloud', 'excluded_overcloud',
                          'overcloud_excluded_overcloud'], sorted(found))

    def test_role_without_addresses(self):
        data = copy.deepcopy(self.data)
        data['outputs']['RoleNetIpMap']['Compute']['ctlplane'] = []
        with self.assertRaises(exceptions.CommandError) as caught:
            inventory.inventory(data, 'overcloud')
        self.assertIn('Role Compute has servers but no ctlplane addresses',
                      str(caught.exception))
        del data['outputs']['RoleNetIpMap']['Compute']['ctlplane']
        found = yaml.safe_load(inventory.inventory(data, 'overcloud'))
        self.assertNotIn('overcloud_Compute', found)
        self.assertIn('overcloud_Controller', found)

    def test_hostile_host_names_are_only_names(self):
        data = copy.deepcopy(self.data)
        data['outputs']['RoleNetHostnameMap']['Compute']['ctlplane'][0] = \
            'x: y\n- *z.ctlplane.localdomain'
        found = yaml.safe_load(inventory.inventory(data, 'overcloud'))
        self.assertIn('x: y\n- *z', found['overcloud_Compute']['hosts'])
