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
        groups = built['all']['children']
        self.assertEqual({'undercloud': {'ansible_connection': 'local',
                                         'ansible_host': 'localhost',
                                         'ansible_python_interpreter': '/py'}},
                         groups['undercloud']['hosts'])
        self.assertEqual({'ansible_connection': 'ssh',
                          'ansible_user': 'tripleo-admin',
                          'ansible_port': 22,
                          'ansible_ssh_timeout': 10,
                          'ansible_python_interpreter': 'auto_silent',
                          'ansible_remote_tmp': '~/.ansible/tmp'},
                         groups['overcloud']['vars'])
        self.assertEqual(
            {'c-0.ctlplane': {'ansible_host': '192.168.24.10',
                              'ctlplane_ip': '192.168.24.10'},
             'c-1.ctlplane': {'ansible_host': 'c-1.ctlplane',
                              'ctlplane_ip': 'c-1.ctlplane'}},
            groups['Controller']['hosts'])
        self.assertEqual({'c-0.ctlplane': ('192.168.24.10', 22),
                          'c-1.ctlplane': ('c-1.ctlplane', 22)},
                         inventory.addresses(built))

    def test_the_groups_upstream_playbooks_target(self):
        built = inventory.build('/py', inventory.servers(OUTPUTS),
                                plan='overcloud')
        groups = built['all']['children']
        self.assertEqual(['Controller', 'Undercloud', 'allovercloud',
                          'overcloud', 'undercloud'], sorted(groups))
        self.assertEqual({'Controller': {}}, groups['overcloud']['children'])
        self.assertEqual({'overcloud': {}}, groups['allovercloud']['children'])
        self.assertEqual(['undercloud'], list(groups['Undercloud']['hosts']))
        self.assertEqual({'tripleo_role_name': 'Controller'},
                         groups['Controller']['vars'])
        self.assertEqual({'plan': 'overcloud'}, built['all']['vars'])
        self.assertEqual({}, inventory.build('/py')['all']['vars'])

    def test_service_groups_from_the_role_data(self):
        outputs = OUTPUTS + [{'output_key': 'RoleData', 'output_value': {
            'Controller': {'service_names': [
                'mysql', 'haproxy', 'overcloud', 'Controller', 'bad name',
                7]},
            'Compute': {'service_names': ['nova_libvirt']},
            'Odd': 'not a mapping'}}]
        self.assertEqual({'Controller': ['mysql', 'haproxy', 'overcloud',
                                         'Controller', 'bad name'],
                          'Compute': ['nova_libvirt']},
                         inventory.services(outputs))
        groups = inventory.build('/py', inventory.servers(outputs),
                                 role_services=inventory.services(
                                     outputs))['all']['children']
        self.assertEqual({'children': {'Controller': {}}}, groups['mysql'])
        self.assertIn('haproxy', groups)
        # no server of Compute: no role group, no service group of it
        self.assertNotIn('nova_libvirt', groups)
        self.assertNotIn('bad name', groups)
        self.assertEqual({'Controller': {}}, groups['overcloud']['children'])
        self.assertEqual({}, inventory.services([]))

    def test_no_role_or_server_poses_as_the_undercloud(self):
        built = inventory.build('/py', {
            'undercloud': {'u': '127.0.0.9'}, 'overcloud': {'o': '127.0.0.9'},
            'bad name': {'b': '127.0.0.9'},
            'Compute': {'localhost': '127.0.0.9', 'undercloud': '127.0.0.9',
                        'n-0': '127.0.0.8'}})
        groups = built['all']['children']
        self.assertEqual({'undercloud'}, set(groups['undercloud']['hosts']))
        self.assertEqual({'n-0'}, set(groups['Compute']['hosts']))
        self.assertEqual({'Compute': {}}, groups['overcloud']['children'])
        self.assertEqual({'n-0': ('127.0.0.8', 22)},
                         inventory.addresses(built))

    def test_the_configured_user_timeout_and_port_never_the_key(self):
        built = inventory.build('/py', inventory.servers(OUTPUTS), {
            'user': 'heat-admin', 'key': '/run/k', 'timeout': 3,
            'port': 16022})
        remote = built['all']['children']['overcloud']['vars']
        self.assertEqual(('heat-admin', 3, 16022), (
            remote['ansible_user'], remote['ansible_ssh_timeout'],
            remote['ansible_port']))
        # the key is the run's ssh-agent's: no playbook is told its path
        self.assertNotIn('/run/k', str(built))
        # the undercloud stays local, on no port
        self.assertNotIn('ansible_port', built['all']['children'][
            'undercloud']['hosts']['undercloud'])
        self.assertEqual(16022, inventory.addresses(built)['c-0.ctlplane'][1])


class TestServersTheOperatorAllows(testtools.TestCase):
    """The stack's outputs (any member's to write) name the servers;
    Mistral's configuration says which a plan's validations may reach."""

    ENTRIES = ['p1:overcloud=192.168.24.0/24,127.0.0.5',
               'p1:*=127.0.0.6', '*:edge=127.0.0.7/32']

    def test_networks_of_a_project_and_plan(self):
        self.assertEqual(['192.168.24.0/24', '127.0.0.5/32', '127.0.0.6/32'],
                         [str(n) for n in inventory.networks(
                             self.ENTRIES, 'p1', 'overcloud')])
        self.assertEqual(['127.0.0.6/32', '127.0.0.7/32'], [
            str(n) for n in inventory.networks(self.ENTRIES, 'p1', 'edge')])
        # another project's plan of the same name: nothing of p1's
        self.assertEqual([], inventory.networks(self.ENTRIES, 'p2',
                                                'overcloud'))
        self.assertEqual([], inventory.networks([], 'p1', 'overcloud'))

    def test_a_bad_entry_is_named(self):
        for entry in ('p1=127.0.0.1', 'p1:overcloud', 'p1:overcloud=',
                      ':overcloud=127.0.0.1', 'p1:o=not-an-address'):
            with self.assertRaisesRegex(ValueError, 'validation_servers '
                                        'entry %r' % entry):
                inventory.networks([entry], 'p1', 'o')

    def test_split_refuses_what_no_network_holds(self):
        built = inventory.build('/py', {'Controller': {
            'c-0': '192.168.24.10', 'c-1': '10.1.1.1', 'c-2': 'c-2.example'}},
            {'port': 2222})
        targets, refused = inventory.split(built, inventory.networks(
            self.ENTRIES, 'p1', 'overcloud'), 'overcloud')
        self.assertEqual([('192.168.24.10', 2222)], targets)
        self.assertEqual({('10.1.1.1', 2222), ('c-2.example', 2222)},
                         set(refused))
        self.assertIn('10.1.1.1:2222 (c-1, named by the outputs of stack '
                      'overcloud) is not a server the validations of plan '
                      'overcloud may reach', refused[('10.1.1.1', 2222)])
        self.assertIn('[tripleoplan] validation_servers',
                      refused[('10.1.1.1', 2222)])
