"""nodes/profiles.py and nodes/configure.py on the fake Ironic: tagging
keeps the other capabilities, the profiles listing, root device hints
from the inspection inventory."""

from tests.unit.nodes import states_base
from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import configure
from tripleoplanclient.nodes import profiles

GIB = 1024 ** 3


class TestCapabilities(states_base.StatesTestCase):

    def test_tag_keeps_the_other_capabilities(self):
        self.fake.add_node(name='a', properties={
            'capabilities': 'boot_mode:uefi,compute_profile:true'})
        self.fake.add_node(name='b', properties={
            'capabilities': 'profile:compute'})
        nodes = [n for n in self.ironic.nodes() if n['name'] in 'ab']
        rows = profiles.tag(self.ironic, nodes, 'compute')
        self.assertEqual({'a': 'SUCCESS', 'b': 'UNCHANGED'},
                         {r['name']: r['status'] for r in rows})
        self.assertEqual(
            'boot_mode:uefi,compute_profile:true,profile:compute',
            self.fake.node('a')['properties']['capabilities'])
        # b was so already: no PATCH
        self.assertEqual(1, self.fake.count('PATCH'))
        profiles.tag(self.ironic, self.ironic.nodes(), None)
        self.assertEqual('boot_mode:uefi,compute_profile:true',
                         self.fake.node('a')['properties']['capabilities'])
        self.assertEqual('', self.fake.node('b')['properties'][
            'capabilities'])

    def test_a_bad_profile_is_refused_before_any_write(self):
        self.fake.add_node(name='a')
        for bad in ('', 'a,b', 'a:b'):
            self.assertRaises(exceptions.CommandError, profiles.tag,
                              self.ironic, self.ironic.nodes(), bad)
        self.assertEqual([], self.fake.writes())

    def test_listing(self):
        self.fake.add_node(name='a', provision_state='available',
                           properties={'capabilities': 'profile:control,'
                                       'control_profile:true,'
                                       'compute_profile:True,'
                                       'ceph_profile:false'})
        self.fake.add_node(name='m', properties={
            'capabilities': 'profile:compute'})
        self.fake.add_node(name='x', provision_state='available',
                           maintenance=True)
        self.assertEqual([{'uuid': self.fake.node('a')['uuid'], 'name': 'a',
                           'provision_state': 'available',
                           'current_profile': 'control',
                           'possible_profiles': ['compute', 'control']}],
                         profiles.listing(self.ironic))
        self.assertEqual(['a', 'm', 'x'], [
            r['name'] for r in profiles.listing(self.ironic, every=True)])


class TestConfigure(states_base.StatesTestCase):

    def request(self, **fields):
        return dict({'deploy_kernel': None, 'deploy_ramdisk': None,
                     'root_device': None, 'root_device_minimum_size': 4,
                     'overwrite_root_device_hints': False}, **fields)

    def disks(self, node, *disks):
        self.fake.inventories[self.fake.node(node)['uuid']] = {
            'disks': [dict({'name': '/dev/%s' % name, 'size': gib * GIB},
                           **extra) for name, gib, extra in disks]}

    def test_smallest_largest_names_and_a_mapping(self):
        for name in 'abcd':
            self.fake.add_node(name=name)
            self.disks(name, ('sda', 2, {}), ('sdb', 50, {'serial': 'S1'}),
                       ('sdc', 500, {'wwn': '0x5000'}))
        nodes = {n['name']: [n] for n in self.ironic.nodes()}
        rows = configure.configure(self.ironic, nodes['a'], self.request(
            root_device='smallest', deploy_kernel='http://k',
            deploy_ramdisk='http://r'))
        self.assertEqual(({'serial': 'S1'}, 'SUCCESS'),
                         (rows[0]['root_device'], rows[0]['status']))
        stored = self.fake.node('a')
        self.assertEqual((49, {'serial': 'S1'}, 'http://k', 'http://r'), (
            stored['properties']['local_gb'],
            stored['properties']['root_device'],
            stored['driver_info']['deploy_kernel'],
            stored['driver_info']['deploy_ramdisk']))
        configure.configure(self.ironic, nodes['b'], self.request(
            root_device='largest'))
        self.assertEqual({'wwn': '0x5000'},
                         self.fake.node('b')['properties']['root_device'])
        configure.configure(self.ironic, nodes['c'], self.request(
            root_device=configure.root_device_spec('vda,sdc')))
        self.assertEqual(499, self.fake.node('c')['properties']['local_gb'])
        configure.configure(self.ironic, nodes['d'], self.request(
            root_device={'serial': 'X9'}))
        self.assertEqual({'serial': 'X9'},
                         self.fake.node('d')['properties']['root_device'])

    def test_hints_kept_unless_overwritten_a_node_without_inventory(self):
        self.fake.add_node(name='a', properties={'root_device': {
            'name': '/dev/sda'}})
        self.fake.add_node(name='b')
        self.disks('a', ('sda', 20, {}), ('sdb', 40, {}))
        rows = configure.configure(self.ironic, self.ironic.nodes(),
                                   self.request(root_device='largest'))
        by = {r['name']: r for r in rows}
        self.assertEqual(('UNCHANGED', {'name': '/dev/sda'}),
                         (by['a']['status'], by['a']['root_device']))
        self.assertEqual('FAILED', by['b']['status'])
        self.assertIn('no inspection inventory', by['b']['error'])
        configure.configure(self.ironic, [self.fake.node('a')], self.request(
            root_device='largest', overwrite_root_device_hints=True))
        self.assertEqual({'name': '/dev/sdb'},
                         self.fake.node('a')['properties']['root_device'])

    def test_bad_root_device(self):
        for bad in ({}, [], 5, {1: 2}):
            self.assertRaises(exceptions.CommandError,
                              configure.root_device_spec, bad)
