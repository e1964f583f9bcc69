"""nodes/inspection.py on the fake Ironic: one node failing while the
others go on, a node past its timeout aborted, retried, then failed and
powered off, at most ``concurrency`` inspections at once, the whole
operation's timeout, one listing a round and at most ``parallel``
requests in flight."""

from tests.unit.nodes import states_base
from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import inspection
from tripleoplanclient import protocol


def limits(**given):
    return inspection.settings(dict(protocol.request(
        'node_introspect'), **given))


class InspectionTestCase(states_base.StatesTestCase):

    def start(self, nodes, provide=False, timeout=3600, **given):
        return inspection.start(self.ironic, nodes, provide, timeout,
                                limits(**given), self.clock)

    def run_to_end(self, started, rounds=40):
        return super().run_to_end(started, rounds, inspection.follow)

    def look(self, started):
        return self.by_name(inspection.follow(self.ironic, started,
                                              self.clock))

    def inspections(self, node):
        return [r for r in self.fake.log
                if r.path == '/v1/nodes/%s/states/provision' % node['uuid']
                and r.body['target'] == 'inspect']


class TestIntrospect(InspectionTestCase):

    def test_one_fails_the_others_go_on(self):
        nodes = self.nodes(3)
        self.fake.hold('n0', 3)
        self.fake.hold('n1', 2)
        self.fake.fail('n1', 'inspect', 'Ramdisk reported error: no disk')
        self.fake.inspected[nodes[2]['uuid']] = {
            'cpus': 8, 'memory_mb': 16384, 'local_gb': 199,
            'cpu_arch': 'x86_64'}
        started = self.start(nodes, max_retries=0)
        self.assertEqual(3, self.fake.count('PUT', '/nodes/'))
        rows = self.by_name(self.run_to_end(started))
        self.assertEqual(('FAILED', 'inspect failed',
                          'Ramdisk reported error: no disk (1 attempt); '
                          'powered off', 1),
                         (rows['n1']['status'], rows['n1']['provision_state'],
                          rows['n1']['error'], rows['n1']['attempts']))
        self.assertEqual('power off', self.fake.node('n1')['power_state'])
        self.assertEqual(('SUCCESS', 1), (rows['n0']['status'],
                                          rows['n0']['attempts']))
        self.assertEqual({'cpus': 8, 'memory_mb': 16384, 'local_gb': 199,
                          'cpu_arch': 'x86_64'}, rows['n2']['properties'])
        self.assertEqual('manageable', rows['n2']['provision_state'])

    def test_an_error_the_power_sync_cleared_is_read_from_history(self):
        # Ironic clears a node's last_error once its power state sync
        # confirms the power state: the row still names the reason.
        reason = ('Failed to finish inspection: ' * 12 +
                  'Ramdisk reported error: no disk')
        nodes = self.nodes(2)
        self.fake.fail('n1', 'inspect', reason)
        started = self.start(nodes, max_retries=0)
        self.fake.sync_power('n1')
        rows = self.by_name(self.run_to_end(started))
        self.assertEqual(('FAILED', reason + ' (1 attempt); powered off'),
                         (rows['n1']['status'], rows['n1']['error']))
        # asked only of the node that failed without an error
        self.assertEqual(1, self.fake.count('GET', '/nodes/%s/history'
                                            % nodes[1]['uuid']))
        self.assertEqual(0, self.fake.count('GET', '/nodes/%s/history'
                                            % nodes[0]['uuid']))

    def test_a_failed_inspection_is_retried_after_the_retry_timeout(self):
        nodes = self.nodes(2)
        self.fake.fail('n0', 'inspect', 'BMC did not answer')
        started = self.start(nodes, retry_timeout=30)
        self.assertEqual('IN_PROGRESS', self.look(started)['n0']['status'])
        self.clock.now += 29
        self.assertEqual(1, self.look(started)['n0']['attempts'])
        self.assertEqual(1, len(self.inspections(nodes[0])))
        self.clock.now += 1
        self.assertEqual(2, self.look(started)['n0']['attempts'])
        rows = self.by_name(self.run_to_end(started))
        self.assertEqual(('SUCCESS', 2, None), (
            rows['n0']['status'], rows['n0']['attempts'], rows['n0']['error']))
        self.assertEqual(('SUCCESS', 1), (rows['n1']['status'],
                                          rows['n1']['attempts']))

    def test_a_node_never_answering_is_aborted_retried_then_powered_off(self):
        nodes = self.nodes(2)
        self.fake.hang('n0')
        started = self.start(nodes, node_timeout=100, max_retries=2,
                             retry_timeout=10)
        rows = self.look(started)
        self.assertEqual(('inspect wait', 'SUCCESS'), (
            rows['n0']['provision_state'], rows['n1']['status']))
        self.clock.now += 100
        self.look(started)
        self.assertEqual(0, self.fake.count('PUT', '/nodes/%s/states/'
                                            'provision' % nodes[0]['uuid'])
                         - len(self.inspections(nodes[0])))
        self.clock.now += 1
        self.look(started)
        # aborted, still powered on while a retry may come
        self.assertEqual(('inspect failed', 'power on'), (
            self.fake.node('n0')['provision_state'],
            self.fake.node('n0')['power_state']))
        found = self.run_to_end(started, rounds=200)
        row = self.by_name(found)['n0']
        self.assertEqual(('FAILED', 3, 'timed out after 100 s (3 attempts); '
                          'powered off'),
                         (row['status'], row['attempts'], row['error']))
        self.assertEqual(1, found['failed'])
        self.assertEqual(3, len(self.inspections(nodes[0])))
        self.assertEqual(3, self.fake.count('PUT', '/nodes/%s/states/'
                                            'provision' % nodes[0]['uuid'])
                         - len(self.inspections(nodes[0])))
        self.assertEqual(('power off', 'inspect failed'), (
            self.fake.node('n0')['power_state'],
            self.fake.node('n0')['provision_state']))
        # what each node went through is on the node, this run's
        mark = self.fake.node('n0')['extra'][inspection.RECORD]
        self.assertEqual((started['run'], 3), (mark['run'], mark['attempt']))

    def test_at_most_concurrency_inspections_at_once(self):
        nodes = self.nodes(5)
        for node in nodes:
            self.fake.hold(node['uuid'], 2)
        started = self.start(nodes, concurrency=2)
        most = 0
        for _ in range(20):
            found = inspection.follow(self.ironic, started, self.clock)
            waiting = sum(n['provision_state'] == 'inspect wait'
                          for n in self.fake.nodes.values())
            most = max(most, waiting)
            if found['done']:
                break
            self.clock.now += 2
        self.assertEqual(2, most)
        self.assertEqual(['SUCCESS'] * 5,
                         [r['status'] for r in found['nodes']])
        # the first two started at once, the others as slots freed
        self.assertEqual(2, len([r for r in self.fake.log[:6]
                                 if isinstance(r.body, dict) and
                                 r.body.get('target') ==
                                 'inspect']))

    def test_a_node_ironic_refuses_fails_the_others_start(self):
        nodes = self.nodes(2)
        self.fake.refuse('PUT', '/nodes/%s/states/provision'
                         % nodes[0]['uuid'], 409, 'Node n0 is locked')
        started = self.start(nodes)
        rows = self.by_name(self.run_to_end(started))
        self.assertEqual(('FAILED', 1), (rows['n0']['status'],
                                         rows['n0']['attempts']))
        self.assertIn('locked', rows['n0']['error'])
        self.assertEqual('SUCCESS', rows['n1']['status'])

    def test_past_the_operations_timeout_the_rest_fails(self):
        nodes = self.nodes(3)
        self.fake.hang('n0')
        self.fake.hang('n1')
        started = self.start(nodes, timeout=50, concurrency=2)
        self.assertEqual('IN_PROGRESS', self.look(started)['n2']['status'])
        self.clock.now += 51
        found = inspection.follow(self.ironic, started, self.clock)
        self.assertTrue(found['done'])
        rows = self.by_name(found)
        self.assertEqual(
            "still inspect wait after the operation's 50 s; powered off",
            rows['n0']['error'])
        self.assertEqual(('inspect failed', 'power off'), (
            self.fake.node('n0')['provision_state'],
            self.fake.node('n0')['power_state']))
        self.assertEqual(("not started: the operation's 50 s ran out first",
                          0), (rows['n2']['error'], rows['n2']['attempts']))
        self.assertEqual([], self.inspections(nodes[2]))

    def test_provide_makes_those_that_passed_available(self):
        nodes = self.nodes(3, power_state='power on')
        self.fake.fail('n1', 'inspect', 'no inventory')
        started = self.start(nodes, provide=True, max_retries=0)
        found = self.run_to_end(started)
        self.assertEqual(1, found['failed'])
        self.assertEqual({'n0': 'available', 'n1': 'inspect failed',
                          'n2': 'available'},
                         {n: self.fake.node(n)['provision_state']
                          for n in ('n0', 'n1', 'n2')})
        self.assertEqual('power off', self.fake.node('n0')['power_state'])

    def test_at_most_five_requests_in_flight(self):
        nodes = self.nodes(12, power_state='power on')
        started = self.start(nodes, provide=True)
        self.run_to_end(started)
        self.assertEqual(5, self.session.most)
        self.assertTrue(all(n['provision_state'] == 'available'
                            for n in self.fake.nodes.values()))


class TestSettings(InspectionTestCase):

    def test_defaults_are_tripleoclients(self):
        self.assertEqual({'node_timeout': 1200, 'max_retries': 1,
                          'retry_timeout': 120, 'concurrency': 20},
                         limits())

    def test_a_bad_setting_is_named(self):
        for key, bad in (('node_timeout', 0), ('max_retries', -1),
                         ('concurrency', True), ('retry_timeout', '5'),
                         ('max_retries', 11)):
            with self.assertRaises(exceptions.CommandError) as caught:
                limits(**{key: bad})
            self.assertIn('%s %r is not a whole number' % (key, bad),
                          str(caught.exception))


class TestBusy(InspectionTestCase):

    def test_a_retry_ironic_refuses_as_busy_is_asked_again(self):
        nodes = self.nodes(1)
        self.fake.fail('n0', 'inspect', 'BMC did not answer')
        started = self.start(nodes, retry_timeout=0)
        self.look(started)      # the failure written down
        path = '/nodes/%s/states/provision' % nodes[0]['uuid']
        self.fake.refuse('PUT', path, 409, 'Node n0 is locked')
        row = self.look(started)['n0']
        self.assertEqual(('IN_PROGRESS', None), (row['status'],
                                                 row['error']))
        mark = self.fake.node('n0')['extra'][inspection.RECORD]
        self.assertEqual((1, 'BMC did not answer'), (mark['attempt'],
                                                     mark['reason']))
        self.fake.allow()
        rows = self.by_name(self.run_to_end(started))
        self.assertEqual(('SUCCESS', 2), (rows['n0']['status'],
                                          rows['n0']['attempts']))
