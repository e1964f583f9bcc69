"""nodes/states.py: which nodes an operation takes, and provide on the
fake Ironic: one node failing while the others go on, one listing a
round."""

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
