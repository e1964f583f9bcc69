"""Provisioning into a plan inside Mistral (``mistral.node_provision``):
the start and follow bodies on the fake Ironic and a plan made by the
real create command in the stateful fake Swift; the deployed-server
environment written and recorded as a step, UNCHANGED when it is
already so, taken out of the list when the last node goes."""

import yaml

from tests.unit import fakes
from tests.unit.nodes import plan_and_ironic
from tests.unit.nodes import ssh_keys
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import node_provision
from tripleoplanclient import protocol

PATH = protocol.PROVISION_ENVIRONMENT
ROLES = [{'name': 'Controller', 'defaults': {'profile': 'control'}},
         {'name': 'Compute', 'count': 1}]


class NodeProvisionTest(plan_and_ironic.PlanAndIronic, fakes.PlanTestCase):

    def setUp(self):
        super().setUp()
        self.fake.add_node(name='k0', provision_state='available',
                           properties={'capabilities': 'profile:compute'})

    def run_both(self, name, **fields):
        req = protocol.read(name, protocol.request(
            name, container='p', swift_url=fakes.SWIFT,
            command=['overcloud', 'node', name[5:]], **dict(fields, **(
                {'ssh_keys': [ssh_keys.public_key()]}
                if name == 'node_provision' else {}))))
        started = getattr(node_provision, name[5:])(self.ironic, self.store,
                                                    req)
        return node_provision.follow(self.ironic, self.store, req, started,
                                     name[5:])

    def history(self):
        return self.store.reader.history('p')[0]

    def test_provision_recorded_unchanged_then_unprovisioned(self):
        found = self.run_both('node_provision', roles=ROLES)
        self.assertEqual(('SUCCESS', 'provision'), (
            found['status'], found['step']['action']))
        self.assertEqual(PATH, found['step']['environments'][-1])
        env = yaml.safe_load(self.swift.objects[PATH][0])
        self.assertEqual({'p-controller-0': 'p-controller-0',
                          'p-novacompute-0': 'p-novacompute-0'},
                         env['parameter_defaults']['HostnameMap'])
        rows = self.history()
        self.assertEqual(('provision', 'openstack overcloud node provision'),
                         (rows[-1]['action'], rows[-1]['command']))

        again = self.run_both('node_provision', roles=ROLES)
        self.assertEqual('UNCHANGED', again['status'])
        self.assertEqual(len(rows), len(self.history()))

        gone = self.run_both('node_unprovision',
                             instances=['p-novacompute-0'])
        self.assertEqual('unprovision', gone['step']['action'])
        env = yaml.safe_load(self.swift.objects[PATH][0])
        self.assertEqual(0, env['parameter_defaults']['ComputeCount'])
        self.assertEqual('available', self.fake.node('k0')[
            'provision_state'])
        self.assertNotIn('tripleoplan', self.fake.node('k0')['extra'])

        last = self.run_both('node_unprovision')
        self.assertNotIn(PATH, last['step']['environments'])

    def test_failed_deploy_records_nothing(self):
        self.fake.fail('k0', 'active', 'no image')
        rows = self.history()
        found = self.run_both('node_provision', roles=ROLES)
        self.assertEqual('FAILED', found['status'])
        self.assertEqual([{'node': 'k0', 'state': 'deploy failed',
                           'error': 'no image'}], found['failed'])
        self.assertEqual(len(rows), len(self.history()))

    def test_past_the_timeout_a_working_node_fails(self):
        self.fake.hold('k0', 1000)
        req = protocol.read('node_provision', protocol.request(
            'node_provision', container='p', swift_url=fakes.SWIFT,
            roles=ROLES, timeout=60, ssh_keys=[ssh_keys.public_key()]))
        started = node_provision.provision(self.ironic, self.store, req)
        self.assertFalse(node_provision.follow(
            self.ironic, self.store, req, started, 'provision')['done'])
        started['since'] -= 61
        found = node_provision.follow(self.ironic, self.store, req, started,
                                      'provision')
        self.assertEqual(('FAILED', [{'node': 'k0', 'state': 'deploying',
                                      'error': 'still deploying after 60 s'}]),
                         (found['status'], found['failed']))

    def test_bad_request_no_node_moves(self):
        req = protocol.read('node_provision', protocol.request(
            'node_provision', container='p', swift_url=fakes.SWIFT,
            roles=[{'name': 'Compute', 'count': 'two'}],
            ssh_keys=[ssh_keys.public_key()]))
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'count must be a whole number'):
            node_provision.provision(self.ironic, self.store, req)
        self.assertEqual([], self.fake.writes())

    def test_middle_node_released_others_keep_their_index(self):
        for name in ('k1', 'k2'):
            self.fake.add_node(name=name, provision_state='available',
                               properties={'capabilities':
                                           'profile:compute'})
        roles = [{'name': 'Compute', 'count': 3}]
        self.run_both('node_provision', roles=roles)
        before = yaml.safe_load(self.swift.objects[PATH][0])[
            'parameter_defaults']
        self.run_both('node_unprovision', instances=['p-novacompute-1'])
        after = yaml.safe_load(self.swift.objects[PATH][0])[
            'parameter_defaults']
        self.assertEqual(2, after['ComputeCount'])
        self.assertEqual([{'resource_list': ['1']}],
                         after['ComputeRemovalPolicies'])
        self.assertEqual({'p-novacompute-0': 'p-novacompute-0',
                          'p-novacompute-2': 'p-novacompute-2'},
                         after['HostnameMap'])
        for host in ('p-novacompute-0', 'p-novacompute-2'):
            self.assertEqual(before['NodePortMap'][host],
                             after['NodePortMap'][host])
        # a new node takes an index never used: 3, not the released 1
        self.run_both('node_provision', roles=[
            {'name': 'Compute', 'count': 3, 'instances': [
                {'hostname': 'p-novacompute-1', 'provisioned': False}]}])
        env = yaml.safe_load(self.swift.objects[PATH][0])[
            'parameter_defaults']
        self.assertEqual((3, [{'resource_list': ['1']}]), (
            env['ComputeCount'], env['ComputeRemovalPolicies']))
        self.assertEqual({'p-novacompute-0': 'p-novacompute-0',
                          'p-novacompute-2': 'p-novacompute-2',
                          'p-novacompute-3': 'p-novacompute-3'},
                         env['HostnameMap'])
