"""The loopback Ironic (``tools/loopback start ironic``) does what the node
commands will build on: a fake-hardware node enrolled, managed, inspected
by the ``agent`` interface with the test posting the inventory as the
ramdisk would, provided and deleted, over plain REST.

Skipped when Ironic does not answer: it is not among the services CI
starts yet.
"""

import concurrent.futures
import json
import time
import unittest
import urllib.error
import urllib.request
import uuid

from tests.functional import base

# The version our node commands will ask for: continue_inspection is 1.84
API_VERSION = '1.89'
# Ironic's built-in server queues few connections
PARALLEL = 5
GIB = 1024 ** 3


def inventory(mac):
    """What ironic-python-agent reports of a small machine whose PXE NIC
    is ``mac``: 4 CPUs, 8 GiB, one 100 GiB disk, UEFI."""
    return {
        'cpu': {'count': 4, 'architecture': 'x86_64',
                'model_name': 'QEMU Virtual CPU', 'frequency': '2400',
                'flags': ['lm', 'vmx']},
        'memory': {'total': 8 * GIB, 'physical_mb': 8192},
        'disks': [{'name': '/dev/sda', 'model': 'disk', 'size': 100 * GIB,
                   'rotational': False, 'serial': 's-' + mac,
                   'vendor': 'loopback', 'wwn': None, 'hctl': '0:0:0:0',
                   'by_path': '/dev/disk/by-path/pci-0000:00:05.0'}],
        'interfaces': [{'name': 'eth0', 'mac_address': mac,
                        'ipv4_address': '192.0.2.10', 'ipv6_address': None,
                        'has_carrier': True, 'lldp': None,
                        'vendor': '0x1af4', 'product': '0x0001'}],
        'boot': {'current_boot_mode': 'uefi', 'pxe_interface': mac},
        'system_vendor': {'manufacturer': 'loopback', 'product_name': 'vm',
                          'serial_number': mac},
    }


def random_mac():
    return '52:54:00:%s' % ':'.join(
        uuid.uuid4().hex[i:i + 2] for i in range(0, 6, 2))


class IronicLoopbackTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        env = base.loopback_env()
        cls.url = env.get('LOOPBACK_IRONIC_URL', '').rstrip('/')
        try:
            urllib.request.urlopen(cls.url + '/', timeout=5).close()
        except (OSError, ValueError):
            raise unittest.SkipTest('Ironic does not answer at %r: '
                                    'python3 tools/loopback start ironic'
                                    % cls.url)
        cls.session = base.keystone_session(env)

    def call(self, method, path, body=None, token=True):
        """(status, JSON body or None) of one request to /v1."""
        headers = {'Content-Type': 'application/json',
                   'X-OpenStack-Ironic-API-Version': API_VERSION}
        if token and self.session is not None:
            headers['X-Auth-Token'] = self.session.get_token()
        req = urllib.request.Request(
            self.url + '/v1' + path, method=method, headers=headers,
            data=None if body is None else json.dumps(body).encode())
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                status, data = resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            status, data = exc.code, exc.read()
        return status, json.loads(data) if data else None

    def ok(self, expected, method, path, body=None, token=True):
        status, answer = self.call(method, path, body, token)
        self.assertEqual(expected, status, '%s %s: %s' % (
            method, path, answer))
        return answer

    def wait_for(self, node, field, value, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            got = self.ok(200, 'GET', '/nodes/%s' % node)
            if got[field] == value:
                return got
            self.assertIsNone(got.get('last_error'), got)
            self.assertLess(time.monotonic(), deadline, '%s of %s: %s' % (
                field, node, got[field]))
            time.sleep(0.2)

    def provision(self, node, target, state, timeout=60):
        self.ok(202, 'PUT', '/nodes/%s/states/provision' % node,
                {'target': target})
        return self.wait_for(node, 'provision_state', state, timeout)

    def enroll(self, **fields):
        node = self.ok(201, 'POST', '/nodes', dict(
            {'name': 'tpc-func-%s' % uuid.uuid4().hex[:12],
             'driver': 'fake-hardware'}, **fields))
        self.addCleanup(self.call, 'DELETE', '/nodes/%s' % node['uuid'])
        return node

    def test_enroll_inspect_provide_delete(self):
        mac = random_mac()
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
            'inventory': inventory(mac),
            'root_disk': inventory(mac)['disks'][0]}, token=False)
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
