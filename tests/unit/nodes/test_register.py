"""nodes/register.py on the fake Ironic: nodes matched, created and
managed, updated with only what differs, twice is unchanged, nothing
written when one entry is wrong, passwords never said."""

import copy

from tests.unit.nodes import fake_ironic
from tests.unit.nodes import ironic_base
from tripleoplanclient.nodes import bmc_digest
from tripleoplanclient.nodes import nodes_json
from tripleoplanclient.nodes import register

PW = ironic_base.PW


def entries(given):
    return nodes_json.read(copy.deepcopy(given), 'nodes.json')


class RegisterTestCase(ironic_base.IronicTestCase):

    def register(self, given, **kwargs):
        return register.register(self.ironic, entries(given),
                                 sleep=lambda s: None, **kwargs)


class TestRegister(RegisterTestCase):

    def test_new_nodes_are_created_with_ports_then_managed(self):
        rows = self.register(ironic_base.nodes())
        self.assertEqual(['created'] * 3, [r['action'] for r in rows])
        self.assertEqual(['manageable'] * 3,
                         [r['provision_state'] for r in rows])
        stored = self.fake.node('n1')
        self.assertEqual(PW, stored['driver_info']['ipmi_password'])
        self.assertEqual('baremetal', stored['resource_class'])
        self.assertEqual({'52:54:00:00:00:01': stored['uuid']},
                         {p['address']: p['node_uuid']
                          for p in self.fake.ports.values()
                          if p['node_uuid'] == stored['uuid']})
        self.assertEqual(3, self.fake.count('PUT', '/nodes/'))
        self.assertNotIn(PW, repr(rows))

    def test_the_same_file_twice_writes_nothing(self):
        self.register(ironic_base.nodes())
        before = len(self.fake.log)
        rows = self.register(ironic_base.nodes())
        self.assertEqual(['unchanged'] * 3, [r['action'] for r in rows])
        # two reads: the nodes and the ports
        self.assertEqual(['GET', 'GET'],
                         [r.method for r in self.fake.log[before:]])

    def test_what_differs_is_patched_what_ironic_has_is_kept(self):
        self.register(ironic_base.nodes())
        self.fake.node('n0')['properties'].update(
            local_gb=99, capabilities='boot_mode:uefi,cpu_vt:true')
        changed = ironic_base.nodes()
        changed[0].update(memory=8192, profile='control')
        changed[1]['ports'].append({'address': '52:54:00:00:01:01'})
        rows = self.register(changed)
        self.assertEqual(['updated', 'updated', 'unchanged'],
                         [r['action'] for r in rows])
        patch, = [r.body for r in self.fake.writes() if r.method == 'PATCH']
        self.assertEqual([
            {'op': 'add', 'path': '/properties/capabilities',
             'value': 'boot_mode:uefi,cpu_vt:true,profile:control'},
            {'op': 'add', 'path': '/properties/memory_mb', 'value': 8192}],
            patch)
        self.assertEqual(99, self.fake.node('n0')['properties']['local_gb'])
        self.assertEqual(['/ports/52:54:00:00:01:01'], rows[1]['changes'])

    def test_matched_by_mac_or_bmc_renamed_not_duplicated(self):
        old = self.fake.add_node(name='old', driver='ipmi', driver_info={
            'ipmi_address': '192.0.2.11', 'ipmi_port': 6230,
            'ipmi_username': 'admin', 'ipmi_password': 'x'})
        self.fake.add_node(name='other', ports=['52:54:00:00:00:02'])
        given = ironic_base.nodes()
        rows = self.register(given[1:2])
        self.assertEqual((old['uuid'], 'updated'),
                         (rows[0]['uuid'], rows[0]['action']))
        self.assertEqual('n1', self.fake.node(old['uuid'])['name'])
        # a node with no digest of ours: the file's password is written
        # (nothing to compare it with), with its digest; no note (unknown)
        self.assertEqual(PW, old['driver_info']['ipmi_password'])
        self.assertIn(bmc_digest.EXTRA, old['extra'])
        self.assertIsNone(rows[0]['note'])
        rows = self.register(given[2:])
        self.assertEqual('n2', self.fake.node(rows[0]['uuid'])['name'])
        self.assertEqual(2, len(self.fake.nodes))

    def test_a_new_bmc_address_brings_the_password(self):
        self.register(ironic_base.nodes(1))
        given = ironic_base.nodes(1)
        given[0].update(pm_addr='192.0.2.99', pm_password='new-pw-2')
        row, = self.register(given)
        info = self.fake.node('n0')['driver_info']
        self.assertEqual(('192.0.2.99', 'new-pw-2'),
                         (info['ipmi_address'], info['ipmi_password']))
        self.assertEqual(('updated', register.CHANGED),
                         (row['action'], row['note']))

    def test_a_changed_password_is_noticed_without_being_said(self):
        self.register(ironic_base.nodes(2))
        recorded = self.fake.node('n0')['extra'][bmc_digest.EXTRA]
        self.assertNotIn(PW, recorded)
        given = ironic_base.nodes(2)
        given[0]['pm_password'] = 'rotated-pw-7'
        before = len(self.fake.log)
        rows = self.register(given, validate_only=True)
        self.assertEqual([('would update', register.CHANGED),
                          ('would stay unchanged', None)],
                         [(r['action'], r['note']) for r in rows])
        self.assertEqual([], [r for r in self.fake.log[before:]
                              if r.method != 'GET'])
        rows = self.register(given)
        self.assertEqual([('updated', register.CHANGED),
                          ('unchanged', None)],
                         [(r['action'], r['note']) for r in rows])
        self.assertEqual(['/driver_info/ipmi_password',
                          '/extra/' + bmc_digest.EXTRA], rows[0]['changes'])
        node = self.fake.node('n0')
        self.assertEqual('rotated-pw-7', node['driver_info']['ipmi_password'])
        # a new salt, and the password nowhere in what was answered
        self.assertNotEqual(recorded, node['extra'][bmc_digest.EXTRA])
        self.assertNotIn('rotated-pw-7', repr(rows))
        # the same again: compared, nothing written
        before = len(self.fake.log)
        rows = self.register(given)
        self.assertEqual(['unchanged', 'unchanged'],
                         [r['action'] for r in rows])
        self.assertEqual(['GET', 'GET'],
                         [r.method for r in self.fake.log[before:]])

    def test_two_nodes_matching_one_entry_nothing_is_written(self):
        a = self.fake.add_node(name='n0')
        b = self.fake.add_node(name='b', ports=['52:54:00:00:00:00'])
        with self.assertRaises(nodes_json.NodesFileError) as caught:
            self.register(ironic_base.nodes())
        self.assertEqual([
            'nodes[0] (n0) matches 2 nodes in Ironic: %s (n0) by name n0; '
            '%s (b) by MAC 52:54:00:00:00:00. Make the file name one node, '
            'or delete the other' % (a['uuid'], b['uuid'])],
            caught.exception.problems)
        self.assertEqual([], self.fake.writes())

    def test_two_entries_matching_one_node(self):
        self.fake.add_node(name='n0', ports=['52:54:00:00:00:01'])
        with self.assertRaises(nodes_json.NodesFileError) as caught:
            self.register(ironic_base.nodes(2))
        self.assertIn('nodes[0] (n0) and nodes[1] (n1) are the same Ironic '
                      'node', str(caught.exception))
        self.assertEqual([], self.fake.writes())

    def test_validate_only_writes_nothing(self):
        self.fake.add_node(name='n0')
        rows = self.register(ironic_base.nodes(2), validate_only=True)
        self.assertEqual(['would update', 'would create'],
                         [r['action'] for r in rows])
        self.assertEqual([], self.fake.writes())

    def test_one_failing_node_the_others_go_on(self):
        self.fake.refuse('POST', '/nodes', 400, 'bad driver_info %s' % PW)
        self.fake.add_node(name='n0', provision_state='enroll')
        self.fake.fail('n0', 'manage', 'BMC said no')
        rows = self.register(ironic_base.nodes(1))
        self.assertEqual(('failed', 'not manageable (enroll): BMC said no'),
                         (rows[0]['action'], rows[0]['error']))
        rows = self.register(ironic_base.nodes(2)[1:])
        self.assertEqual('failed', rows[0]['action'])
        self.assertIn('bad driver_info ***', rows[0]['error'])
        self.assertNotIn(PW, repr(rows))

    def test_a_slow_verification_is_waited_for(self):
        self.fake.add_node(name='n0', provision_state='enroll')
        self.fake.hold('n0', 3)
        waits = []
        rows = register.register(self.ironic, entries(ironic_base.nodes(1)),
                                 sleep=waits.append)
        self.assertEqual('manageable', rows[0]['provision_state'])
        self.assertEqual(2, len(waits))

    def test_a_node_still_verifying_at_the_timeout_keeps_its_row(self):
        # the timeout counts from the call: the writes' time is in it
        self.fake.add_node(name='n0', provision_state='enroll')
        self.fake.hold('n0', 10 ** 6)
        now = [0.0]

        def sleep(seconds):
            now[0] += seconds

        rows = register.register(self.ironic, entries(ironic_base.nodes(2)),
                                 sleep=sleep, clock=lambda: now[0],
                                 timeout=45)
        self.assertEqual([('updated', 'verifying'), ('created', 'manageable')],
                         [(r['action'], r['provision_state']) for r in rows])
        self.assertEqual(register.STILL_VERIFYING % (45, rows[0]['uuid']),
                         rows[0]['error'])
        self.assertIn('still verifying its BMC after 45 s', rows[0]['error'])
        self.assertIsNone(rows[1]['error'])
        # slept up to the deadline, not past it
        self.assertEqual(45, now[0])

    def test_parallel_writes_are_bounded(self):
        self.assertEqual(5, self.ironic.parallel)
        rows = self.register(ironic_base.nodes(12))
        self.assertEqual(12, len(self.fake.nodes))
        self.assertEqual(['created'] * 12, [r['action'] for r in rows])
        self.assertEqual(fake_ironic.URL, self.ironic.url)

    def test_capabilities_ironic_has_are_kept_as_they_are(self):
        self.register(ironic_base.nodes(1))
        self.fake.node('n0')['properties']['capabilities'] = \
            'boot_mode:uefi,odd key:a:b'
        given = ironic_base.nodes(1)
        given[0]['profile'] = 'control'
        self.register(given)
        self.assertEqual('boot_mode:uefi,odd key:a:b,profile:control',
                         self.fake.node('n0')['properties']['capabilities'])
