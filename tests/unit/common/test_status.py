"""Looking a plan's stack up by the id its record holds
(``status.recorded``), on a faked Heat."""

from tests.unit import fakes
from tests.unit import small_plan
from tripleoplanclient.common import status

STACK_ID = fakes.STACK_ID
OLD_ID = '0ld00000-0000-4000-8000-000000000000'


def rows(stack_id):
    return [{'id': 'a', 'outcome': {'status': 'SUCCESS'}},
            {'id': 'b', 'outcome': {'status': 'SUCCESS',
                                    'stack_id': stack_id},
             'stack': {'operation': 'CREATE'}},
            {'id': 'c', 'outcome': {'status': 'SUCCESS'}}]


class TestRecorded(fakes.HttpTestCase):

    def lookups(self, history):
        fakes.stack_is(self.m, small_plan.stack('CREATE_COMPLETE'))
        before = len(self.m.request_history)
        found = status.recorded(fakes.heat_client(), 'p', history,
                                fakes.HEAT)
        return found.id, [r.path.rsplit('/stacks/', 1)[1] for r in
                          self.m.request_history[before:]]

    def test_by_the_recorded_id_one_request(self):
        self.assertEqual((STACK_ID, ['p/' + STACK_ID.lower()]),
                         self.lookups(rows(STACK_ID)))

    def test_by_name_when_none_is_recorded_or_it_is_gone(self):
        self.assertEqual((STACK_ID, ['p', 'p/' + STACK_ID.lower()]),
                         self.lookups(rows(None)[:1]))
        self.m.get(fakes.HEAT + '/stacks/p/' + OLD_ID, status_code=404,
                   headers=fakes.JSON, json={'code': 404, 'error': {
                       'message': 'gone', 'type': 'EntityNotFound'}})
        self.assertEqual((STACK_ID, ['p/' + OLD_ID, 'p',
                                     'p/' + STACK_ID.lower()]),
                         self.lookups(rows(OLD_ID)))

    def test_a_deleted_stack_is_none(self):
        # Heat answers a deleted stack's id (and its name, for a moment
        # after the delete) with DELETE_COMPLETE: by the name then, which
        # finds the stack made since or none.
        gone = small_plan.stack('DELETE_COMPLETE')
        gone['stack']['id'] = OLD_ID
        self.m.get(fakes.HEAT + '/stacks/p/' + OLD_ID, headers=fakes.JSON,
                   json=gone)
        self.assertEqual((STACK_ID, ['p/' + OLD_ID, 'p',
                                     'p/' + STACK_ID.lower()]),
                         self.lookups(rows(OLD_ID)))
        fakes.stack_is(self.m, small_plan.stack('DELETE_COMPLETE'))
        self.assertIsNone(status.recorded(fakes.heat_client(), 'p',
                                          rows(OLD_ID), fakes.HEAT))
