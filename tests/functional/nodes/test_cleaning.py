"""overcloud node manage|clean, overcloud node bios configure|reset and
overcloud raid create through the real CLI, on fake-hardware nodes of the
test's own with the fake BIOS and RAID interfaces (the loopback Ironic
enables them for nodes that ask).

What Ironic 39's fake interfaces offer as manual clean steps: the fake
BIOS's apply_configuration, factory_reset and cache_bios_settings; none
of the fake deploy (no erase_devices_metadata: that is the agent's) nor of
the fake RAID (it takes a target RAID configuration, but its
create/delete_configuration are no clean steps). Those commands fail here
as on such a driver: each node's row with Ironic's reason, exit 1.
"""

import json
import subprocess
import time
import uuid

from tests.functional import base
from tests.functional import ironic_base


class NodeCleaningTest(base.FunctionalTest, ironic_base.IronicCase):

    def node(self, state='manageable'):
        """A fake-hardware node with fake BIOS and RAID: its name."""
        node = self.enroll(bios_interface='fake', raid_interface='fake',
                           name='after-%s' % uuid.uuid4().hex[:12])
        self.addCleanup(self.deletable, node['uuid'])
        if state != 'enroll':
            self.provision(node['uuid'], 'manage', 'manageable')
        if state == 'available':
            self.ok(202, 'PUT', '/nodes/%s/states/power' % node['uuid'],
                    {'target': 'power off'})
            self.provision(node['uuid'], 'provide', 'available')
        return node['name']

    def deletable(self, ident):
        """Ironic deletes no node in clean failed: managed again."""
        status, got = self.call('GET', '/nodes/%s' % ident)
        if status == 200 and got['provision_state'] == 'clean failed':
            self.provision(ident, 'manage', 'manageable')

    def resting(self, ident, timeout=60):
        """The node once its conductor let it go: Ironic shows the new
        provision state before it releases its lock, and the release
        moves ``updated_at`` once more."""
        deadline = time.monotonic() + timeout
        while True:
            got = self.ok(200, 'GET', '/nodes/%s' % ident)
            if not got['reservation']:
                return got
            self.assertLess(time.monotonic(), deadline, got)
            time.sleep(0.2)

    def run_cli(self, *args):
        """(exit status, rows, stderr) of ``openstack args -f json``."""
        proc = subprocess.run(
            ['openstack'] + list(args) + ['-f', 'json'], env=self.env,
            capture_output=True, text=True, stdin=subprocess.DEVNULL,
            timeout=600)
        self.assertNotIn('Traceback', proc.stderr)
        return proc.returncode, json.loads(proc.stdout), proc.stderr

    def bios(self, name):
        return {s['name']: s['value'] for s in self.ok(
            200, 'GET', '/nodes/%s/bios' % name)['bios']}

    def test_manage_then_bios_configure_and_reset(self):
        enrolled, available = self.node('enroll'), self.node('available')
        code, rows, err = self.run_cli('overcloud', 'node', 'manage',
                                       enrolled, available)
        self.assertEqual(0, code, err)
        self.assertEqual([(enrolled, 'manageable', 'SUCCESS'),
                          (available, 'manageable', 'SUCCESS')],
                         [(r['name'], r['provision_state'], r['status'])
                          for r in rows])

        settings = {'settings': [{'name': 'LogicalProc',
                                  'value': 'Enabled'},
                                 {'name': 'BootMode', 'value': 'Uefi'}]}
        path = self.write('bios-%s.yaml' % enrolled, json.dumps(settings))
        code, rows, err = self.run_cli('overcloud', 'node', 'bios',
                                       'configure', '--configuration', path,
                                       enrolled, available)
        self.assertEqual((0, ['SUCCESS', 'SUCCESS']),
                         (code, [r['status'] for r in rows]), err)
        for name in (enrolled, available):
            self.assertEqual({'LogicalProc': 'Enabled', 'BootMode': 'Uefi'},
                             self.bios(name))

        code, rows, err = self.run_cli('overcloud', 'node', 'bios', 'reset',
                                       enrolled)
        self.assertEqual((0, 'manageable'), (code,
                                             rows[0]['provision_state']))
        self.assertEqual({}, self.bios(enrolled))
        self.assertEqual(2, len(self.bios(available)))

    def test_bad_configurations_change_nothing(self):
        name = self.node()
        before = self.resting(name)
        for args in (
                ['node', 'bios', 'configure', '--configuration',
                 '{"settings": [{"name": "A"}]}', name],
                ['node', 'bios', 'configure', '--configuration',
                 'settings: &a [1]\nx: *a', name],
                ['raid', 'create', '--node', name,
                 '{"logical_disks": [{"size_gb": 0, "raid_level": "1"}]}'],
                ['node', 'bios', 'reset', name, 'after-no-such-node']):
            code, rows, err = self.run_cli('overcloud', *args)
            self.assertEqual(3, code, err)
            self.assertEqual({'REFUSED'}, {r['status'] for r in rows})
        after = self.ok(200, 'GET', '/nodes/%s' % name)
        self.assertEqual((before['updated_at'], None, {}), (
            after['updated_at'], after['last_error'],
            after['target_raid_config']))
        self.assertEqual({}, self.bios(name))

    def test_clean_and_raid_without_their_steps_fail_with_ironics_reason(
            self):
        name = self.node()
        code, rows, err = self.run_cli('overcloud', 'node', 'clean', name,
                                       '--provide')
        self.assertEqual(1, code)
        self.assertEqual(('clean failed', 'FAILED'), (
            rows[0]['provision_state'], rows[0]['status']))
        self.assertIn("'step': 'erase_devices_metadata'", rows[0]['error'])
        self.assertIn('does not support this clean step', err)

        code, rows, _ = self.run_cli('overcloud', 'node', 'manage', name)
        self.assertEqual((0, 'manageable'), (code,
                                             rows[0]['provision_state']))
        raid = {'logical_disks': [{'size_gb': 100, 'raid_level': '1',
                                   'is_root_volume': True}]}
        code, rows, err = self.run_cli('overcloud', 'raid', 'create',
                                       '--node', name, json.dumps(raid))
        self.assertEqual((1, 'FAILED'), (code, rows[0]['status']))
        self.assertIn("'step': 'create_configuration'", rows[0]['error'])
        # the target was taken (the fake RAID's schema check) before
        self.assertEqual(raid, self.ok(200, 'GET', '/nodes/%s' % name)[
            'target_raid_config'])
