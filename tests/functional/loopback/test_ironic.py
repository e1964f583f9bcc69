"""The loopback Ironic (``tools/loopback start ironic``) does what the node
commands will build on: a fake-hardware node enrolled, managed, inspected
by the ``agent`` interface with the test posting the inventory as the
ramdisk would, provided and deleted, over plain REST; 20 nodes enrolled
five at a time; behind Keystone, who may do what.

Skipped when Ironic does not answer, unless FUNCTIONAL_REQUIRE_IRONIC is
set (CI sets it: base.ironic_url).
"""

import concurrent.futures
import json
import unittest
import urllib.request
import uuid

from tests.functional import base
from tests.functional import ironic_base

# Ironic's built-in server queues few connections
PARALLEL = 5


class IronicLoopbackTest(ironic_base.IronicCase):

    def test_enroll_inspect_provide_delete(self):
        mac = ironic_base.random_mac()
        node = self.enroll(properties={'capabilities': 'profile:compute'})
        self.assertEqual('enroll', node['provision_state'])
        self.assertEqual('agent', node['inspect_interface'])
        uuid_ = node['uuid']
        self.ok(201, 'POST', '/ports', {'node_uuid': uuid_, 'address': mac})
        self.provision(uuid_, 'manage', 'manageable')
        self.provision(uuid_, 'inspect', 'inspect wait')

        # the ramdisk's call: no token, the node found by its port's MAC;
        # besides the inventory it names the root disk it would pick (no
        # root device hints here)
        found = self.ok(202, 'POST', '/continue_inspection', {
            'inventory': ironic_base.inventory(mac),
            'root_disk': ironic_base.inventory(mac)['disks'][0]}, token=False)
        self.assertEqual(uuid_, found['node']['uuid'])
        got = self.wait_for(uuid_, 'provision_state', 'manageable')
        props = got['properties']
        self.assertEqual((4, 8192, 99, 'x86_64'), (
            props['cpus'], props['memory_mb'], props['local_gb'],
            props['cpu_arch']))
        caps = dict(c.split(':', 1)
                    for c in props['capabilities'].split(','))
        self.assertEqual({'profile': 'compute', 'boot_mode': 'uefi'}, caps)

        # unknown power state is skipped by allocation: off before provide
        self.ok(202, 'PUT', '/nodes/%s/states/power' % uuid_,
                {'target': 'power off'})
        self.wait_for(uuid_, 'power_state', 'power off')
        self.provision(uuid_, 'provide', 'available')

        self.ok(204, 'DELETE', '/nodes/%s' % uuid_)
        self.assertEqual(404, self.call('GET', '/nodes/%s' % uuid_)[0])

    def test_twenty_nodes_at_most_five_at_once(self):
        names = ['tpc-func-%s' % uuid.uuid4().hex[:12] for _ in range(20)]
        with concurrent.futures.ThreadPoolExecutor(PARALLEL) as pool:
            nodes = list(pool.map(lambda n: self.enroll(name=n), names))
        self.assertEqual(sorted(names), sorted(n['name'] for n in nodes))
        listed = self.ok(200, 'GET', '/nodes?driver=fake-hardware'
                         '&fields=name&limit=1000')['nodes']
        self.assertLessEqual(set(names), {n['name'] for n in listed})


class IronicPolicyTest(ironic_base.IronicCase):
    """Behind Keystone: the admin role of a project token creates nodes
    (Ironic's legacy rules, enforce_new_defaults = false); a project member
    without it cannot, nor see the admin's nodes; the few system-only
    rules want a system-scoped token."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if cls.session is None:
            raise unittest.SkipTest('Ironic runs without Keystone')
        cls.identity = base.loopback_env()['LOOPBACK_KEYSTONE_URL']
        tag = uuid.uuid4().hex[:8]
        cls.password = 'pw-%s' % uuid.uuid4().hex
        cls.project = cls.keystone('POST', '/projects', {'project': {
            'name': 'tpc-ironic-%s' % tag, 'domain_id': 'default'}})[
                'project']['id']
        cls.user = cls.keystone('POST', '/users', {'user': {
            'name': 'tpc-ironic-%s' % tag, 'domain_id': 'default',
            'password': cls.password}})['user']['id']
        role = cls.keystone('GET', '/roles?name=member')['roles'][0]['id']
        cls.keystone('PUT', '/projects/%s/users/%s/roles/%s' % (
            cls.project, cls.user, role))

    @classmethod
    def tearDownClass(cls):
        cls.keystone('DELETE', '/users/%s' % cls.user)
        cls.keystone('DELETE', '/projects/%s' % cls.project)
        super().tearDownClass()

    @classmethod
    def keystone(cls, method, path, body=None, scope=None):
        """The JSON answer of an admin request to Keystone, or, with
        ``scope`` (an auth body), the token it gives."""
        headers = {'Content-Type': 'application/json'}
        if scope is None:
            headers['X-Auth-Token'] = cls.session.get_token()
        req = urllib.request.Request(
            cls.identity + path, method=method, headers=headers,
            data=json.dumps(scope or body).encode()
            if (scope or body) else None)
        with urllib.request.urlopen(req, timeout=30) as resp:
            if scope is not None:
                return resp.headers['X-Subject-Token']
            data = resp.read()
        return json.loads(data) if data else None

    def token(self, user, password, scope):
        return self.keystone('POST', '/auth/tokens', scope={'auth': {
            'identity': {'methods': ['password'], 'password': {'user': {
                'name': user, 'domain': {'id': 'default'},
                'password': password}}},
            'scope': scope}})

    def test_a_project_member_is_refused(self):
        name = self.keystone('GET', '/users/%s' % self.user)['user']['name']
        member = self.token(name, self.password, {'project': {
            'id': self.project}})
        status, answer = self.call('POST', '/nodes', {
            'driver': 'fake-hardware'}, token=member)
        self.assertEqual(403, status, answer)
        self.assertIn('baremetal:node:create', answer['error_message'])
        admins = self.enroll()
        status, answer = self.call('GET', '/nodes', token=member)
        self.assertEqual(200, status, answer)
        self.assertNotIn(admins['uuid'], [n['uuid'] for n in answer['nodes']])

    def test_drivers_want_system_scope(self):
        # Ironic 39 answers oslo.policy's InvalidScope with a 500
        self.assertIn(self.call('GET', '/drivers')[0], (403, 500))
        password = base.admin_password(base.loopback_env())
        system = self.token('admin', password, {'system': {'all': True}})
        status, answer = self.call('GET', '/drivers', token=system)
        self.assertEqual(200, status, answer)
        self.assertIn('fake-hardware', [d['name'] for d in answer['drivers']])
