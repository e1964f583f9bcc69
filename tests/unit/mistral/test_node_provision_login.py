"""Provisioning in Mistral with a login user: the request's user and
keys checked before any node moves (a private key refused unprinted),
the login user recorded in the plan with the provision step and read
back for config-download and the validations, and --concurrency's
queue followed to its end by the follow task."""

from tests.unit import fakes
from tests.unit.mistral import mistral_conf
from tests.unit.nodes import plan_and_ironic
from tests.unit.nodes import ssh_keys
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import node_provision
from tripleoplanclient.mistral import validation_config
from tripleoplanclient.nodes import login
from tripleoplanclient import protocol

ROLES = [{'name': 'Controller', 'defaults': {'profile': 'control'}},
         {'name': 'Compute', 'count': 1}]


class ProvisionLoginTest(plan_and_ironic.PlanAndIronic, fakes.PlanTestCase):

    def setUp(self):
        super().setUp()
        self.fake.add_node(name='k0', provision_state='available',
                           properties={'capabilities': 'profile:compute'})

    def request(self, **fields):
        fields.setdefault('ssh_keys', [ssh_keys.public_key()])
        return protocol.read('node_provision', protocol.request(
            'node_provision', container='p', swift_url=fakes.SWIFT,
            roles=ROLES, command=['overcloud', 'node', 'provision'],
            **fields))

    def follow(self, req, started, rounds=10):
        for _ in range(rounds):
            found = node_provision.follow(self.ironic, self.store, req,
                                          started, 'provision')
            if found['done']:
                return found
        self.fail('still not done: %s' % found)

    def test_login_user_recorded_and_read_back(self):
        with mistral_conf.used(''):
            self.assertEqual('tripleo-admin', validation_config.plan_ssh(
                None, self.store, 'p')['user'])
        req = self.request(ssh_user='stack')
        found = self.follow(req, node_provision.provision(
            self.ironic, self.store, req))
        self.assertEqual('SUCCESS', found['status'])
        self.assertIn(login.PATH, self.swift.objects)
        self.assertIn(login.PATH, self.store.reader.head('p').state[
            'tree']['changes'])
        self.assertEqual('stack', login.read(self.store, 'p'))
        with mistral_conf.used('[tripleoplan]\nvalidation_ssh_port = 2\n'):
            self.assertEqual({'user': 'stack', 'key': None, 'timeout': 10,
                              'port': 2}, validation_config.plan_ssh(
                None, self.store, 'p'))
        # nothing deployed: the servers keep their user, nothing recorded
        again = self.request(ssh_user='other')
        self.assertEqual('UNCHANGED', self.follow(again, node_provision.
                                                  provision(self.ironic,
                                                            self.store,
                                                            again))['status'])
        self.assertEqual('stack', login.read(self.store, 'p'))

    def test_a_damaged_login_file_is_named(self):
        self.swift.objects[login.PATH] = (b'ssh_user: "x; rm -rf /"\n', 0)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'baremetal-login.yaml of plan p: .* is '
                                    'no login name.*Provision the plan'):
            login.read(self.store, 'p')

    def test_bad_login_refused_before_any_node_moves(self):
        for fields, problem in (
                ({'ssh_keys': [ssh_keys.PRIVATE]},
                 'ssh_keys holds a private key'),
                ({'ssh_keys': 'ssh-ed25519 AAAA'}, 'ssh_keys must list'),
                ({'ssh_user': 'Root Admin'}, 'is no login name'),
                ({'concurrency': 0}, 'concurrency must be a whole number')):
            with self.assertRaises(exceptions.CommandError) as cm:
                node_provision.provision(self.ironic, self.store,
                                         self.request(**fields))
            self.assertIn(problem, str(cm.exception))
            self.assertNotIn(ssh_keys.PRIVATE_MARK, str(cm.exception))
        self.assertEqual([], self.fake.writes())

    def test_the_queue_followed_to_its_end(self):
        req = self.request(concurrency=1)
        started = node_provision.provision(self.ironic, self.store, req)
        self.assertEqual(1, len(started['queued']))
        self.assertEqual(1, self.fake.count('PUT', '/nodes/'))
        found = self.follow(req, started)
        self.assertEqual('SUCCESS', found['status'])
        self.assertEqual(2, self.fake.count('PUT', '/nodes/'))
        self.assertEqual({'active'}, set(found['nodes'].values()))
