"""nodes/deploy.py through provision() on the fake Ironic: what each
deploy sends (instance_info written whole, the config drive with the
login user, its keys and the ctlplane address on the PXE port), nothing
allocated when an image cannot go on a node, and --concurrency: at most
that many nodes deploying, the others started as they come to rest."""

import json

from keystoneauth1 import noauth
from keystoneauth1 import session as ksa_session

from tests.unit.nodes import fake_ironic
from tests.unit.nodes import ssh_keys
from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import baremetal_file
from tripleoplanclient.nodes import deploy
from tripleoplanclient.nodes import ironic
from tripleoplanclient.nodes import provision

KEY = ssh_keys.public_key()
LOGIN = {'user': 'stack', 'keys': [KEY]}
PARTITION = {'href': 'http://img.test/oc.qcow2', 'checksum': 'f' * 32,
             'kernel': 'http://img.test/k', 'ramdisk': 'http://img.test/r'}


class DeployTest(fake_ironic.TestCase):

    def setUp(self):
        super().setUp()
        self.ironic = ironic.Ironic(
            ksa_session.Session(auth=noauth.NoAuth()), fake_ironic.URL)

    def add(self, name, **fields):
        return self.fake.add_node(
            name=name, provision_state='available',
            resource_class='baremetal',
            properties=dict({'capabilities': 'profile:compute'},
                            **fields.pop('properties', {})), **fields)

    def deploys(self):
        """``{node uuid: configdrive}`` of every deploy asked."""
        return {r.path.split('/')[3]: r.body.get('configdrive')
                for r in self.fake.log if r.method == 'PUT' and
                r.path.endswith('/states/provision') and
                r.body['target'] == 'active'}

    def test_what_a_deploy_sends(self):
        node = self.add('k0', ports=['52:54:00:00:00:01'],
                        properties={'local_gb': 100})
        roles = baremetal_file.read([{
            'name': 'Compute', 'count': 2,
            'defaults': {'image': PARTITION, 'swap_size_mb': 256,
                         'config_drive': {'cloud_config': {'a': 1}}},
            'instances': [{'hostname': 'oc-special', 'name': 'k1',
                           'root_size_gb': 30,
                           'config_drive': {'meta_data': {'rack': 2}}}]}])
        other = self.add('k1')
        provision.provision(self.ironic, 'oc', roles, login=LOGIN)
        info = self.fake.node('k0')['instance_info']
        self.assertEqual({
            'image_source': PARTITION['href'],
            'image_checksum': PARTITION['checksum'],
            'kernel': PARTITION['kernel'], 'ramdisk': PARTITION['ramdisk'],
            'root_gb': 99, 'swap_mb': 256,
            'display_name': 'oc-novacompute-0',
            deploy.MARK: info[deploy.MARK]}, info)
        self.assertEqual(30, self.fake.node('k1')['instance_info']['root_gb'])
        drives = self.deploys()
        drive = drives[node['uuid']]
        self.assertEqual({'0': KEY}, drive['meta_data']['public_keys'])
        self.assertEqual('oc-novacompute-0', drive['meta_data']['hostname'])
        cloud = json.loads(drive['user_data'].split('\n', 1)[1])
        self.assertEqual((1, 'stack', [KEY]), (
            cloud['a'], cloud['users'][-1]['name'],
            cloud['users'][-1]['ssh_authorized_keys']))
        self.assertEqual(
            ('52:54:00:00:00:01',
             provision.record(self.fake.node('k0'))['ctlplane_ip']),
            (drive['network_data']['links'][0]['ethernet_mac_address'],
             drive['network_data']['networks'][0]['ip_address']))
        special = drives[other['uuid']]
        self.assertEqual((2, 'oc-special'), (
            special['meta_data']['rack'], special['meta_data']['hostname']))
        self.assertNotIn('ethernet_mac_address',
                         special['network_data']['links'][0])
        self.assertEqual('active', self.fake.node('k0')['provision_state'])

    def test_an_image_a_node_cannot_take_allocates_nothing(self):
        self.add('k0')          # no local_gb: no root size to take
        roles = baremetal_file.read([{'name': 'Compute', 'defaults': {
            'image': PARTITION}}])
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'oc-novacompute-0: a partition image '
                                    'needs root_size_gb'):
            provision.provision(self.ironic, 'oc', roles, login=LOGIN)
        self.assertEqual([], self.fake.writes())

    def test_concurrency_bounds_the_nodes_deploying(self):
        for i in range(5):
            self.add('k%d' % i)
            self.fake.hold('k%d' % i, 2)
        roles = baremetal_file.read([{'name': 'Compute', 'count': 5}])
        answer = provision.provision(self.ironic, 'oc', roles, login=LOGIN,
                                     concurrency=2)
        self.assertEqual(2, len(self.deploys()))
        self.assertEqual(3, len(answer['queued']))
        most, rounds = 0, 0
        while True:
            rounds += 1
            nodes = {u: self.ironic.node(u) for u in
                     [i['uuid'] for i in answer['instances']]}
            deploying = sum(1 for n in nodes.values()
                            if n['provision_state'] == 'deploying')
            most = max(most, deploying)
            waiting, refused = deploy.next_turn(
                self.ironic, nodes, answer['queued'],
                {u: provision.record(n) for u, n in nodes.items()}, roles,
                LOGIN, answer['run'], 2)
            self.assertEqual([], refused)
            if not waiting and all(n['provision_state'] == 'active'
                                   for n in nodes.values()):
                break
            self.assertLess(rounds, 20)
        self.assertEqual(2, most)
        self.assertEqual(5, len(self.deploys()))
        self.assertEqual(5, self.fake.count('PUT', '/nodes/'))
