"""nodes/states.py: introspection and provide on the fake Ironic: which
nodes are taken, one node failing while the others go on, one listing a
round, the timeout, and at most ``parallel`` requests in flight."""

from tests.unit.nodes import states_base
from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import states


class TestSelect(states_base.StatesTestCase):

    def test_all_manageable_takes_only_manageable_nodes(self):
        self.fake.add_node(name='m1')
        self.fake.add_node(name='a1', provision_state='available')
        self.fake.add_node(name='e1', provision_state='enroll')
        self.fake.add_node(name='m2')
        found = states.select(self.ironic, [], True, 'introspect')
        self.assertEqual(['m1', 'm2'], sorted(n['name'] for n in found))

    def test_unknown_and_unmanageable_nodes_are_all_named_first(self):
        self.fake.add_node(name='m1')
        avail = self.fake.add_node(name='a1', provision_state='available')
        with self.assertRaises(exceptions.CommandError) as caught:
            states.select(self.ironic, ['m1', avail['uuid'], 'ghost'],
                          False, 'introspect')
        text = str(caught.exception)
        self.assertIn('%s is available, not manageable' % avail['uuid'],
                      text)
        self.assertIn('no node ghost in Ironic', text)
        self.assertIn('Nothing was started', text)
        self.assertEqual([], self.fake.writes())

    def test_by_name_or_uuid_once_each(self):
        node = self.fake.add_node(name='m1')
        found = states.select(self.ironic, ['m1', node['uuid']], False,
                              'provide')
        self.assertEqual([node['uuid']], [n['uuid'] for n in found])

    def test_nodes_or_all_manageable(self):
        self.assertRaisesRegex(exceptions.CommandError, 'or pass '
                               '--all-manageable', states.select,
                               self.ironic, [], False, 'provide')
        self.assertRaisesRegex(exceptions.CommandError, 'not both',
                               states.select, self.ironic, ['x'], True,
                               'provide')


class TestIntrospect(states_base.StatesTestCase):

    def test_one_fails_the_others_go_on(self):
        nodes = self.nodes(3)
        self.fake.hold('n0', 3)
        self.fake.hold('n1', 2)
        self.fake.fail('n1', 'inspect', 'Ramdisk reported error: no disk')
        self.fake.inspected[nodes[2]['uuid']] = {
            'cpus': 8, 'memory_mb': 16384, 'local_gb': 199,
            'cpu_arch': 'x86_64'}
        started = states.start_introspect(self.ironic, nodes, False, 60,
                                          self.clock)
        self.assertEqual(3, self.fake.count('PUT', '/nodes/'))
        rows = self.by_name(self.run_to_end(started))
        self.assertEqual(('FAILED', 'inspect failed',
                          'Ramdisk reported error: no disk'),
                         (rows['n1']['status'], rows['n1']['provision_state'],
                          rows['n1']['error']))
        self.assertEqual('SUCCESS', rows['n0']['status'])
        self.assertEqual({'cpus': 8, 'memory_mb': 16384, 'local_gb': 199,
                          'cpu_arch': 'x86_64'}, rows['n2']['properties'])
        self.assertEqual('manageable', rows['n2']['provision_state'])

    def test_an_error_the_power_sync_cleared_is_read_from_history(self):
        # Ironic clears a node's last_error once its power state sync
        # confirms the power state: the row still names the reason.
        nodes = self.nodes(2)
        self.fake.fail('n1', 'inspect', 'Ramdisk reported error: no disk')
        started = states.start_introspect(self.ironic, nodes, False, 60,
                                          self.clock)
        self.fake.sync_power('n1')
        rows = self.by_name(self.run_to_end(started))
        self.assertEqual(('FAILED', 'Ramdisk reported error: no disk'),
                         (rows['n1']['status'], rows['n1']['error']))
        # asked only of the node that failed without an error
        self.assertEqual(1, self.fake.count('GET', '/nodes/%s/history'
                                            % nodes[1]['uuid']))
        self.assertEqual(0, self.fake.count('GET', '/nodes/%s/history'
                                            % nodes[0]['uuid']))

    def test_a_long_error_from_history_is_whole(self):
        # Ironic's hooks chain their reasons: the one that matters is last
        reason = ('Failed to finish inspection: ' * 12 +
                  'Ramdisk reported error: no disk')
        nodes = self.nodes(1)
        self.fake.fail('n0', 'inspect', reason)
        started = states.start_introspect(self.ironic, nodes, False, 60,
                                          self.clock)
        self.fake.sync_power('n0')
        rows = self.by_name(self.run_to_end(started))
        self.assertEqual(reason, rows['n0']['error'])

    def test_provide_makes_those_that_passed_available(self):
        nodes = self.nodes(3, power_state='power on')
        self.fake.fail('n1', 'inspect', 'no inventory')
        started = states.start_introspect(self.ironic, nodes, True, 60,
                                          self.clock)
        found = self.run_to_end(started)
        self.assertEqual(1, found['failed'])
        self.assertEqual({'n0': 'available', 'n1': 'inspect failed',
                          'n2': 'available'},
                         {n: self.fake.node(n)['provision_state']
                          for n in ('n0', 'n1', 'n2')})
        # powered off before provide, the failed node left alone
        self.assertEqual('power off', self.fake.node('n0')['power_state'])
        self.assertEqual(0, self.fake.count('PUT', '/nodes/%s/states/power'
                                            % nodes[1]['uuid']))

    def test_a_node_ironic_refuses_fails_the_others_start(self):
        nodes = self.nodes(2)
        self.fake.refuse('PUT', '/nodes/%s/states/provision'
                         % nodes[0]['uuid'], 409, 'Node n0 is locked')
        started = states.start_introspect(self.ironic, nodes, False, 60,
                                          self.clock)
        rows = self.by_name(self.run_to_end(started))
        self.assertEqual('FAILED', rows['n0']['status'])
        self.assertIn('locked', rows['n0']['error'])
        self.assertEqual('SUCCESS', rows['n1']['status'])

    def test_past_the_timeout_an_inspection_is_aborted(self):
        nodes = self.nodes(2)
        self.fake.hold('n0', 1000)
        started = states.start_introspect(self.ironic, nodes, False, 10,
                                          self.clock)
        found = states.follow(self.ironic, started, self.clock)
        self.assertFalse(found['done'])
        self.clock.now += 11
        found = states.follow(self.ironic, started, self.clock)
        self.assertTrue(found['done'])
        row = self.by_name(found)['n0']
        self.assertEqual('FAILED', row['status'])
        self.assertIn('still inspecting after 10 s', row['error'])
        self.assertEqual('SUCCESS', self.by_name(found)['n1']['status'])

    def test_at_most_five_requests_in_flight(self):
        nodes = self.nodes(12, power_state='power on')
        started = states.start_introspect(self.ironic, nodes, True, 60,
                                          self.clock)
        self.run_to_end(started)
        self.assertEqual(5, self.session.most)
        self.assertEqual(12, len(self.fake.nodes))
        self.assertTrue(all(n['provision_state'] == 'available'
                            for n in self.fake.nodes.values()))


class TestProvide(states_base.StatesTestCase):

    def test_power_off_then_provide_a_failure_with_its_last_error(self):
        nodes = self.nodes(3, power_state='power on')
        self.fake.fail('n2', 'provide', 'Clean step failed: erase')
        started = states.start_provide(self.ironic, nodes, 60, self.clock)
        # the first step: power off only
        self.assertEqual(3, self.fake.count('PUT', '/nodes/'))
        self.assertEqual('manageable',
                         self.fake.node('n0')['provision_state'])
        rows = self.by_name(self.run_to_end(started))
        self.assertEqual({'n0': 'SUCCESS', 'n1': 'SUCCESS', 'n2': 'FAILED'},
                         {n: r['status'] for n, r in rows.items()})
        self.assertEqual(('clean failed', 'Clean step failed: erase'),
                         (rows['n2']['provision_state'],
                          rows['n2']['error']))
        self.assertEqual('available', self.fake.node('n1')['provision_state'])

    def test_powered_off_nodes_are_provided_at_once(self):
        nodes = self.nodes(2)
        states.start_provide(self.ironic, nodes, 60, self.clock)
        self.assertEqual(['available', 'available'],
                         [self.fake.node(n['uuid'])['provision_state']
                          for n in nodes])
        self.assertEqual(0, self.fake.count('PUT', '/nodes/%s/states/power'
                                            % nodes[0]['uuid']))
