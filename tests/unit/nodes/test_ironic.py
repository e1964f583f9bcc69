"""nodes/ironic.py: the microversion it asks for, Ironic's messages,
listings across pages and the bound on requests in flight; on the fake
Ironic (tests.unit.nodes.fake_ironic), which these tests also pin."""

import threading
import time
import unittest

import requests

from tests.unit.nodes import fake_ironic
from tests.unit.nodes import ironic_base
from tripleoplanclient.nodes import ironic


class TestCall(ironic_base.IronicTestCase):

    def test_every_request_asks_for_the_microversion(self):
        self.ironic.create_node({'name': 'n0', 'driver': 'fake-hardware'})
        self.ironic.node('n0')
        self.ironic.nodes()
        self.assertEqual(3, len(self.m.request_history))
        for request in self.m.request_history:
            self.assertEqual(ironic.API_VERSION, request.headers[
                'X-OpenStack-Ironic-API-Version'])
        self.assertEqual(3, self.ironic.requests)

    def test_ironic_s_own_message_is_said(self):
        with self.assertRaises(ironic.IronicError) as caught:
            self.ironic.node('missing')
        self.assertEqual(404, caught.exception.status)
        self.assertEqual('Ironic answered GET /nodes/missing with 404: '
                         'Node missing could not be found.',
                         str(caught.exception))

    def test_a_plain_text_error_is_said_as_it_is(self):
        self.m.get(fake_ironic.URL + '/v1/nodes/x', status_code=503,
                   text='  proxy says no  ')
        with self.assertRaises(ironic.IronicError) as caught:
            self.ironic.node('x')
        self.assertIn('with 503: proxy says no', str(caught.exception))

    def test_a_refused_request(self):
        self.fake.refuse('POST', '/nodes', 403,
                         'Access was denied to the following resource')
        with self.assertRaises(ironic.IronicError) as caught:
            self.ironic.create_node({'driver': 'fake-hardware'})
        self.assertEqual(403, caught.exception.status)
        self.assertIn('Access was denied', str(caught.exception))
        self.assertEqual({}, dict(self.fake.nodes))

    def test_an_unreachable_ironic_is_named(self):
        self.m.get('http://down.test/v1/nodes/x',
                   exc=requests.exceptions.ConnectTimeout)
        with self.assertRaises(ironic.IronicError) as caught:
            ironic_base.client('http://down.test/').node('x')
        self.assertIn('unreachable at http://down.test', str(caught.exception))


class TestListing(ironic_base.IronicTestCase):

    def test_pages_are_followed(self):
        self.fake.page_size = 2
        made = [self.fake.add_node(name='n%d' % i) for i in range(5)]
        found = self.ironic.nodes(fields=('uuid', 'name'))
        self.assertEqual([{'uuid': n['uuid'], 'name': n['name']}
                          for n in made], found)
        self.assertEqual(3, self.fake.count('GET', '/nodes'))
        self.assertEqual('uuid,name', self.fake.log[0].query['fields'])

    def test_filters_are_ironic_s_query(self):
        self.fake.add_node(name='a', provision_state='available')
        self.fake.add_node(name='m')
        found = self.ironic.nodes(provision_state='available')
        self.assertEqual(['a'], [n['name'] for n in found])
        self.assertEqual('available',
                         self.fake.log[-1].query['provision_state'])

    def test_ports_of_a_node(self):
        node = self.fake.add_node(name='n', ports=['52:54:00:00:00:01'])
        self.fake.add_node(name='o', ports=['52:54:00:00:00:02'])
        ports = self.ironic.ports(node_uuid=node['uuid'])
        self.assertEqual(['52:54:00:00:00:01'],
                         [p['address'] for p in ports])

    def test_passwords_come_masked(self):
        self.ironic.create_node({'name': 'n', 'driver': 'ipmi',
                                 'driver_info': {'ipmi_password': 'sec',
                                                 'ipmi_address': '1.2.3.4'}})
        shown = self.ironic.node('n')
        self.assertEqual({'ipmi_password': '******',
                          'ipmi_address': '1.2.3.4'}, shown['driver_info'])
        self.assertEqual('sec', self.fake.node('n')['driver_info'][
            'ipmi_password'])


class TestStates(ironic_base.IronicTestCase):

    def test_enroll_manage_inspect_provide(self):
        uuid = self.ironic.create_node({'name': 'n',
                                        'driver': 'fake-hardware'})['uuid']
        self.assertEqual('enroll', self.fake.node(uuid)['provision_state'])
        for target, state in (('manage', 'manageable'),
                              ('inspect', 'manageable'),
                              ('provide', 'available')):
            self.ironic.provision(uuid, target)
            self.assertEqual(state, self.ironic.node(uuid)['provision_state'])
        self.assertEqual(4, self.ironic.node(uuid)['properties']['cpus'])

    def test_a_held_transition_ends_after_reads_a_failed_one_says_why(self):
        self.fake.add_node(name='n')
        self.fake.hold('n', 2)
        self.fake.fail('n', 'inspect', 'no inventory came')
        self.ironic.provision('n', 'inspect')
        self.assertEqual('inspect wait',
                         self.ironic.node('n')['provision_state'])
        node = self.ironic.nodes()[0]
        self.assertEqual(('inspect failed', 'no inventory came'),
                         (node['provision_state'], node['last_error']))

    def test_a_transition_from_the_wrong_state_is_refused(self):
        self.fake.add_node(name='n', provision_state='enroll')
        with self.assertRaises(ironic.IronicError) as caught:
            self.ironic.provision('n', 'provide')
        self.assertEqual(400, caught.exception.status)
        self.assertIn('while it is in state "enroll"', str(caught.exception))

    def test_power(self):
        self.fake.add_node(name='n', power_state='power on')
        self.ironic.power('n', 'power off')
        self.assertEqual('power off', self.fake.node('n')['power_state'])


class TestEach(unittest.TestCase):

    def test_at_most_parallel_calls_at_once_results_in_order(self):
        ironic_ = ironic_base.client(parallel=3)
        lock = threading.Lock()
        state = {'now': 0, 'most': 0}

        def slow(item):
            with lock:
                state['now'] += 1
                state['most'] = max(state['most'], state['now'])
            time.sleep(0.02)
            with lock:
                state['now'] -= 1
            if item == 4:
                raise ValueError('four')
            return item * 10

        done = ironic_.each(slow, range(10))
        self.assertEqual(3, state['most'])
        self.assertEqual([i * 10 for i in range(10) if i != 4],
                         [r for _, r, e in done if e is None])
        self.assertEqual([4], [i for i, _, e in done if e is not None])
        self.assertEqual(list(range(10)), [i for i, _, _ in done])

    def test_the_default_bound_is_five(self):
        self.assertEqual(5, ironic_base.client().parallel)
        self.assertEqual([], ironic_base.client().each(str, []))
