"""The hosts of a run, from a stack's outputs."""

import testtools

from tripleoplanclient.validations import inventory

OUTPUTS = [
    {'output_key': 'RoleNetHostnameMap', 'output_value': {
        'Controller': {'ctlplane': ['c-0.ctlplane', 'c-1.ctlplane']},
        'Compute': {'ctlplane': []}}},
    {'output_key': 'RoleNetIpMap', 'output_value': {
        'Controller': {'ctlplane': ['192.168.24.10']}}},
]


class TestInventory(testtools.TestCase):

    def test_servers_from_outputs(self):
        self.assertEqual(
            {'Controller': {'c-0.ctlplane': '192.168.24.10',
                            'c-1.ctlplane': 'c-1.ctlplane'}},
            inventory.servers(OUTPUTS))
        self.assertEqual({}, inventory.servers([]))

    def test_every_host_is_reached_locally(self):
        built = inventory.build('/py', inventory.servers(OUTPUTS))
        self.assertEqual({'ansible_connection': 'local',
                          'ansible_python_interpreter': '/py'},
                         built['all']['vars'])
        self.assertEqual(
            {'c-0.ctlplane': {'ansible_host': '192.168.24.10'},
             'c-1.ctlplane': {'ansible_host': 'c-1.ctlplane'}},
            built['all']['children']['overcloud']['children'][
                'Controller']['hosts'])
