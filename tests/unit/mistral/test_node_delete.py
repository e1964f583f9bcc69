"""A scale down inside Mistral (``mistral.node_delete``) on a plan made by
the real create command in the stateful fake Swift, a requests-mock Heat
and the fake Ironic: refused with nothing written when the stack is
missing or busy or a name unknown; else the plan's environment gains the
removal policy and the lower count, and the answer carries the update
request; the release moves the node only once the update succeeded, to
available (or manageable) with its record off."""

import yaml

from tests.unit import fakes
from tests.unit.nodes import plan_and_ironic
from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import node_delete
from tripleoplanclient import protocol
from tripleoplanclient.record import log

PATH = protocol.PROVISION_ENVIRONMENT
NESTED = 'p-Compute-abc/4d1c0a52-0000-4000-8000-0000000000aa'


class NodeDeleteTest(plan_and_ironic.PlanAndIronic, fakes.PlanTestCase):

    def setUp(self):
        super().setUp()
        self.k1 = self.fake.add_node(
            name='k1', provision_state='active', instance_uuid='i-1',
            extra={'tripleoplan': {'plan': 'p', 'role': 'Compute',
                                   'hostname': 'p-novacompute-1',
                                   'index': 1}})
        self.heat = fakes.heat_client()

    def stack(self, status='UPDATE_COMPLETE'):
        fakes.stack_is(self.m, {'stack': {
            'id': fakes.STACK_ID, 'stack_name': 'p', 'stack_status': status,
            'parameters': {
                'ComputeCount': '3',
                'ComputeHostnameFormat': '%stackname%-novacompute-%index%',
                'HostnameMap': '{}'}}})
        self.on_heat('GET', '/stacks/p/%s/resources' % fakes.STACK_ID, {
            'resources': [{'resource_name': 'Compute',
                           'resource_status': 'UPDATE_COMPLETE',
                           'physical_resource_id': 'x', 'links': [{
                               'rel': 'nested', 'href': 'h/stacks/' +
                               NESTED}]}]})
        self.on_heat('GET', '/stacks/%s/resources' % NESTED, {'resources': [
            {'resource_name': str(i), 'resource_status': 'CREATE_COMPLETE',
             'physical_resource_id': 'm%d' % i, 'links': []}
            for i in range(3)]})

    def req(self, *names, **fields):
        return protocol.read('node_delete', protocol.request(
            'node_delete', container='p', nodes=list(names),
            swift_url=fakes.SWIFT, heat_url=fakes.HEAT,
            ironic_url=self.fake.url,
            command=['overcloud', 'node', 'delete', 'k1'],
            **fields))

    def objects(self):
        return {n: v[0] for n, v in self.swift.objects.items()}

    def refused(self, pattern, *names):
        before = self.objects()
        with self.assertRaisesRegex(exceptions.CommandError, pattern):
            node_delete.start(self.store, self.heat, self.ironic,
                              self.req(*names))
        self.assertEqual(before, self.objects())
        self.assertEqual([], self.fake.writes())

    def test_no_stack_busy_stack_unknown_name_nothing_written(self):
        fakes.stack_is(self.m, None)
        self.refused('Plan p has no stack', 'p-novacompute-1')
        self.stack('UPDATE_IN_PROGRESS')
        self.refused('Stack p is UPDATE_IN_PROGRESS', 'p-novacompute-1')
        self.stack()
        self.refused(r'no server Compute/3, x\. Its servers: Compute/0 '
                     r'\(p-novacompute-0\), Compute/1', 'Compute/3', 'x',
                     'k1')

    def test_environment_written_and_the_update_asked(self):
        self.stack()
        started = node_delete.start(self.store, self.heat, self.ironic,
                                    self.req('k1'))
        data = self.swift.objects[PATH][0]
        values = yaml.safe_load(data)['parameter_defaults']
        self.assertEqual({'ComputeCount': 2, 'ComputeRemovalPolicies': [
            {'resource_list': ['1']}]}, values)
        deploy = started['deploy']
        self.assertEqual(('update', [PATH], {PATH: content.md5(data)},
                          ['overcloud', 'node', 'delete', 'k1']), (
            deploy['action'], deploy['add'], deploy['tree'],
            deploy['command']))
        protocol.read('deploy', deploy)     # what the deploy action reads
        self.assertEqual([{'role': 'Compute', 'index': 1,
                           'hostname': 'p-novacompute-1', 'node': 'k1',
                           'uuid': self.k1['uuid']}], started['servers'])
        self.assertEqual([], self.fake.writes())

    def outcome(self, step_id, status):
        self.store.container.write('p', {log.outcome_path(step_id): log.dump(
            {'outcome': {'status': status}, 'stack': {}})})
        return {'deploy': {'step': {'id': step_id}}}

    def release(self, req, update, rounds=10):
        started = {'servers': [{'uuid': self.k1['uuid']}], 'since': 0}
        for _ in range(rounds):
            found = node_delete.release(self.store, self.ironic, req,
                                        dict(started, since=1e12), update)
            if found['done']:
                return found
        self.fail('not done: %s' % found)

    def test_released_once_the_update_succeeded(self):
        found = self.release(self.req('k1'), self.outcome('s1', 'FAILED'))
        self.assertEqual(('FAILED', []), (found['status'],
                                          found['released']))
        self.assertEqual('active', self.fake.node('k1')['provision_state'])
        found = self.release(self.req('k1'), self.outcome('s2', 'SUCCESS'))
        self.assertEqual(('SUCCESS', [self.k1['uuid']]),
                         (found['status'], found['released']))
        node = self.fake.node('k1')
        self.assertEqual('available', node['provision_state'])
        self.assertNotIn('tripleoplan', node['extra'])

    def test_no_provide_leaves_it_manageable(self):
        found = self.release(self.req('k1', provide=False),
                             self.outcome('s3', 'SUCCESS'))
        self.assertEqual('SUCCESS', found['status'])
        self.assertEqual('manageable',
                         self.fake.node('k1')['provision_state'])

    def test_a_node_ironic_fails_to_undeploy_is_named(self):
        self.fake.fail('k1', 'deleted', 'BMC gone')
        found = self.release(self.req('k1'), self.outcome('s4', 'SUCCESS'))
        self.assertEqual(('FAILED', [], [{'node': self.k1['uuid'],
                                          'state': 'error',
                                          'error': 'BMC gone'}]),
                         (found['status'], found['released'],
                          found['failed']))

    def test_an_update_refused_before_its_step_puts_the_plan_back(self):
        # the environment as node provision left it, then a delete whose
        # update the deploy workflow refused before recording a step
        before = b'parameter_defaults:\n  ComputeCount: 3\n'
        self.store.container.write('p', {PATH: before})
        listing = self.objects()
        self.stack()
        started = node_delete.start(self.store, self.heat, self.ironic,
                                    self.req('k1'))
        self.assertNotEqual(before, self.swift.objects[PATH][0])
        found = node_delete.release(self.store, self.ironic, self.req('k1'),
                                    started, {'deploy': None})
        self.assertEqual(('FAILED', []), (found['status'],
                                          found['released']))
        self.assertEqual(before, self.swift.objects[PATH][0])
        self.assertEqual(set(listing), {
            n for n in self.objects() if not n.startswith(
                'user-environments/kept/')})
        self.assertEqual('active', self.fake.node('k1')['provision_state'])

    def test_put_back_leaves_what_another_writer_wrote_since(self):
        self.stack()
        started = node_delete.start(self.store, self.heat, self.ironic,
                                    self.req('k1'))
        self.store.container.write('p', {PATH: b'theirs: 1\n'})
        node_delete.release(self.store, self.ironic, self.req('k1'),
                            started, {'deploy': None})
        self.assertEqual(b'theirs: 1\n', self.swift.objects[PATH][0])
        # a new environment nobody else touched: gone again
        self.store.container.write('p', {PATH: self.swift.objects[
            'user-environments/kept/' + started['environment']['md5']][0]})
        node_delete.release(self.store, self.ironic, self.req('k1'),
                            started, {'deploy': None})
        self.assertNotIn(PATH, self.swift.objects)
