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

    def test_localhost_is_local_and_the_servers_are_reached_over_ssh(self):
        built = inventory.build('/py', inventory.servers(OUTPUTS))
        self.assertEqual({'localhost': {'ansible_connection': 'local',
                                        'ansible_python_interpreter': '/py'}},
                         built['all']['hosts'])
        self.assertEqual({'ansible_connection': 'ssh',
                          'ansible_user': 'tripleo-admin',
                          'ansible_port': 22,
                          'ansible_ssh_timeout': 10,
                          'ansible_python_interpreter': 'auto_silent',
                          'ansible_remote_tmp': '~/.ansible/tmp'},
                         built['all']['children']['overcloud']['vars'])
        self.assertEqual(
            {'c-0.ctlplane': {'ansible_host': '192.168.24.10'},
             'c-1.ctlplane': {'ansible_host': 'c-1.ctlplane'}},
            built['all']['children']['overcloud']['children'][
                'Controller']['hosts'])

    def test_the_configured_user_key_timeout_and_port(self):
        built = inventory.build('/py', inventory.servers(OUTPUTS), {
            'user': 'heat-admin', 'key': '/run/k', 'timeout': 3,
            'port': 16022})
        remote = built['all']['children']['overcloud']['vars']
        self.assertEqual(('heat-admin', '/run/k', 3, 16022), (
            remote['ansible_user'], remote['ansible_ssh_private_key_file'],
            remote['ansible_ssh_timeout'], remote['ansible_port']))
        # localhost stays local, on no port
        self.assertNotIn('ansible_port', built['all']['hosts']['localhost'])
