"""A deploy that changes nothing, told from the index (``mistral.
stack_step``): the step, its final outcome and the index in one write, the
stack looked up by its recorded id, no plan object read; anything else
(a stack touched since) goes to Heat as before, the event marker taken
just before the update."""

from tests.unit import fakes
from tests.unit.mistral import stack_step_base
from tests.unit import small_plan
from tripleoplanclient.record import index
from tripleoplanclient.record import log

HEAT = fakes.HEAT
STACK_ID = fakes.STACK_ID
UPDATED = '2024-05-01T10:00:00Z'     # created, never updated


class TestUnchanged(stack_step_base.StackStepTestCase):

    def deployed(self):
        """A first deploy, its end recorded as the client records it."""
        fakes.stack_is(self.m, None)
        first = self.ask('deploy', container='p')
        self.store.writer.write_outcome('p', first['step']['id'], {
            'status': 'SUCCESS', 'stack_id': STACK_ID,
            'stack_status': 'CREATE_COMPLETE'}, {
                'id': STACK_ID, 'operation': 'CREATE', 'updated': UPDATED,
                'fingerprint': first['fingerprint']})
        return first

    def requests(self, before):
        # requests-mock gives paths lower case
        return [(r.method, r.netloc, r.path.split('/v1/')[-1].split(
            '/', 1)[-1]) for r in self.m.request_history[before:]]

    def test_one_write_and_one_heat_request(self):
        first = self.deployed()
        fakes.stack_is(self.m, small_plan.stack('CREATE_COMPLETE', None),
                       STACK_ID)
        before = len(self.m.request_history)
        answer = self.ask('deploy', container='p')
        step = answer['step']
        self.assertEqual(('NONE', 'SUCCESS', 'NONE'), (
            answer['operation'], step['outcome']['status'],
            step['stack']['operation']))
        # the index read, the stack by its id, one archive: no listing, no
        # outcome or plan object read, no second index write
        self.assertEqual([
            ('GET', 'swift.test', 'p/' + log.PATH),
            ('GET', 'heat.test', 'stacks/p/' + STACK_ID),
            ('PUT', 'swift.test', 'p')], self.requests(before))
        self.assertEqual(1, self.create.call_count)
        # on record with its outcome, the index current
        self.assertEqual('SUCCESS', self.outcome(step['id'])['outcome'][
            'status'])
        rows = index.head(self.swift.objects[log.PATH][0], 'p').rows
        self.assertEqual((step['id'], 'SUCCESS', 'NONE', first[
            'fingerprint']), (rows[-1]['id'], rows[-1]['outcome'][
                'status'], rows[-1]['stack']['operation'], rows[-1][
                'stack']['fingerprint']))
        self.assertEqual(step['id'],
                         self.store.reader.history('p')[0][-1]['id'])
        # and the next one is recognised the same way
        again = self.ask('deploy', container='p')
        self.assertEqual('NONE', again['operation'])

    def test_a_stack_updated_since_is_updated_from_the_marker(self):
        self.deployed()
        # someone updated the stack outside the plan
        fakes.stack_is(self.m, small_plan.stack('UPDATE_COMPLETE'),
                       STACK_ID)
        update = self.m.put(HEAT + '/stacks/' + STACK_ID, status_code=202)
        answer = self.ask('deploy', container='p')
        self.assertEqual(('UPDATE', 'IN_PROGRESS', 'e1'), (
            answer['operation'], answer['step']['outcome']['status'],
            answer['marker']))
        self.assertEqual(1, update.call_count)
        # the marker taken before the update was asked
        names = [r.path for r in self.m.request_history]
        self.assertLess(names.index(
            '/v1/admin/stacks/p/%s/events' % STACK_ID), names.index(
                '/v1/admin/stacks/' + STACK_ID))

    def test_force_goes_to_heat(self):
        self.deployed()
        fakes.stack_is(self.m, small_plan.stack('CREATE_COMPLETE', None),
                       STACK_ID)
        update = self.m.put(HEAT + '/stacks/' + STACK_ID, status_code=202)
        answer = self.ask('deploy', container='p', force=True)
        self.assertEqual(('UPDATE', 'IN_PROGRESS'), (
            answer['operation'], answer['step']['outcome']['status']))
        self.assertEqual(1, update.call_count)
