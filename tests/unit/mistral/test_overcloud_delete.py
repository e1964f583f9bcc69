"""Deleting an overcloud inside Mistral (``mistral.overcloud_delete``) on a
plan made by the real create command in the stateful fake Swift, a
requests-mock Heat and the fake Ironic: refused with nothing asked while
the stack works; Heat's failure leaves the plan untouched; once the stack
is gone the plan is deleted, or kept with one ``delete`` step however
many rounds see it; with unprovision the plan's nodes are released."""

from tests.unit import fakes
from tests.unit.nodes import plan_and_ironic
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import overcloud_delete
from tripleoplanclient import protocol

BY_ID = '/stacks/p/%s' % fakes.STACK_ID


class OvercloudDeleteTest(plan_and_ironic.PlanAndIronic,
                          fakes.PlanTestCase):

    def setUp(self):
        super().setUp()
        self.k0 = self.fake.add_node(
            name='k0', provision_state='active', instance_uuid='i-0',
            extra={'tripleoplan': {'plan': 'p', 'role': 'Compute',
                                   'hostname': 'p-novacompute-0'}})
        self.heat = fakes.heat_client()
        self.deleted = self.m.delete(fakes.HEAT + '/stacks/' +
                                     fakes.STACK_ID, status_code=204)

    def stack(self, status):
        body = {'stack': {'id': fakes.STACK_ID, 'stack_name': 'p',
                          'stack_status': status,
                          'stack_status_reason': 'Heat says %s' % status}}
        fakes.stack_is(self.m, body)

    def req(self, **fields):
        return protocol.read('overcloud_delete', protocol.request(
            'overcloud_delete', container='p', swift_url=fakes.SWIFT,
            heat_url=fakes.HEAT, ironic_url=self.fake.url,
            command=['overcloud', 'delete', 'p'], **fields))

    def test_busy_stack_refused_nothing_asked(self):
        self.stack('UPDATE_IN_PROGRESS')
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'UPDATE_IN_PROGRESS'):
            overcloud_delete.start(self.store, self.heat, self.ironic,
                                   self.req())
        self.assertFalse(self.deleted.called)

    def test_unprovision_without_ironic_refused(self):
        self.stack('CREATE_COMPLETE')
        with self.assertRaisesRegex(exceptions.CommandError, 'needs Ironic'):
            overcloud_delete.start(self.store, self.heat, None,
                                   self.req(unprovision=True))
        self.assertFalse(self.deleted.called)

    def test_heat_failure_leaves_the_plan(self):
        self.stack('CREATE_COMPLETE')
        req = self.req()
        started = overcloud_delete.start(self.store, self.heat, None, req)
        self.assertTrue(self.deleted.called)
        self.stack('DELETE_IN_PROGRESS')
        self.assertFalse(overcloud_delete.follow(
            self.store, self.heat, None, req, started)['done'])
        self.stack('DELETE_FAILED')
        found = overcloud_delete.follow(self.store, self.heat, None, req,
                                        started)
        self.assertEqual(('FAILED', 'Heat says DELETE_FAILED', 'untouched'),
                         (found['status'], found['reason'], found['plan']))
        self.assertTrue(self.swift.objects)

    def gone(self):
        fakes.stack_is(self.m, None)
        self.m.get(fakes.HEAT + BY_ID, status_code=404, headers=fakes.JSON,
                   json={'code': 404, 'error': {'message': 'gone'}})

    def test_kept_plan_one_step(self):
        self.stack('CREATE_COMPLETE')
        req = self.req(keep_plan=True)
        started = overcloud_delete.start(self.store, self.heat, None, req)
        self.gone()
        steps = len(self.store.reader.history('p')[0])
        for _ in range(2):
            found = overcloud_delete.follow(self.store, self.heat, None, req,
                                            started)
            self.assertEqual(('SUCCESS', 'kept'), (found['status'],
                                                   found['plan']))
        rows = self.store.reader.history('p')[0]
        self.assertEqual(steps + 1, len(rows))
        self.assertEqual(('delete', fakes.STACK_ID,
                          'openstack overcloud delete p'), (
            rows[-1]['action'], rows[-1]['outcome']['stack_id'],
            rows[-1]['command']))
        self.assertEqual('active', self.fake.node('k0')['provision_state'])

    def test_plan_deleted_and_nodes_released(self):
        self.stack('CREATE_COMPLETE')
        self.container_deleted = self.m.delete(fakes.SWIFT + '/p',
                                               status_code=204)
        req = self.req(unprovision=True)
        started = overcloud_delete.start(self.store, self.heat, self.ironic,
                                         req)
        self.assertEqual([self.k0['uuid']], started['nodes'])
        self.gone()
        for _ in range(10):
            found = overcloud_delete.follow(self.store, self.heat,
                                            self.ironic, req,
                                            dict(started, since=1e12))
            if found['done']:
                break
        self.assertEqual(('SUCCESS', 'deleted'), (found['status'],
                                                  found['plan']))
        self.assertEqual({}, self.swift.objects)
        self.assertTrue(self.container_deleted.called)
        node = self.fake.node('k0')
        self.assertEqual(('available', None), (node['provision_state'],
                                               node.get('instance_uuid')))
        self.assertNotIn('tripleoplan', node['extra'])
