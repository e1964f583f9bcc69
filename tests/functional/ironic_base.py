"""REST against the loopback Ironic (``tools/loopback start ironic``) for
the tests that play the hardware: what a small machine's agent reports,
a MAC of its own, and a test case that enrolls, manages and provides
fake-hardware nodes.

Skipped when Ironic does not answer, unless FUNCTIONAL_REQUIRE_IRONIC is
set (CI sets it: base.ironic_url).
"""

import json
import time
import unittest
import urllib.error
import urllib.request
import uuid

from tests.functional import base

# The version our node commands will ask for: continue_inspection is 1.84
API_VERSION = '1.89'
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


class IronicCase(unittest.TestCase):
    """REST against the loopback Ironic, as the loopback cloud's user."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        env = base.loopback_env()
        cls.url = base.ironic_url(env)
        cls.session = base.keystone_session(env)

    def call(self, method, path, body=None, token=True):
        """(status, JSON body or None) of one request to /v1; token: True
        for the cloud's, False for none, or one."""
        headers = {'Content-Type': 'application/json',
                   'X-OpenStack-Ironic-API-Version': API_VERSION}
        if token is True and self.session is not None:
            token = self.session.get_token()
        if token:
            headers['X-Auth-Token'] = token
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
