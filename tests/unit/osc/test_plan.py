"""Plan commands through the real client wrapper, with HTTP faked."""

from osc_lib import exceptions

from tests.unit import fakes
from tripleoplanclient.osc import plan as plan_commands

SWIFT = fakes.SWIFT
HEAT = fakes.HEAT


class TestDeletePlan(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.m.get(SWIFT + '/p', json=[{'name': 'a.yaml', 'hash': 'h'}],
                   headers={'X-Container-Meta-Usage-Tripleo': 'plan'})
        self.m.get('http://swift.test/info', json={})
        self.obj_delete = self.m.delete(SWIFT + '/p/a.yaml', status_code=204)
        self.delete = self.m.delete(SWIFT + '/p', status_code=204)

    def run_delete(self, endpoints, *argv):
        app = fakes.make_app(endpoints)
        cmd = plan_commands.DeletePlan(app, None)
        parsed = cmd.get_parser('delete').parse_args(list(argv))
        cmd.take_action(parsed)
        return app.stderr.getvalue()

    def test_refuses_while_the_stack_exists(self):
        self.m.get(HEAT + '/stacks/p', json={'stack': {
            'id': '1', 'stack_name': 'p', 'stack_status': 'CREATE_COMPLETE'}},
            headers={'Content-Type': 'application/json'})
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Stack p exists'):
            self.run_delete({'object-store': SWIFT, 'orchestration': HEAT},
                            '-y', 'p')
        self.assertEqual(0, self.delete.call_count)
        self.assertEqual(0, self.obj_delete.call_count)

    def test_deletes_when_heat_has_no_such_stack(self):
        self.m.get(HEAT + '/stacks/p', status_code=404)
        self.run_delete({'object-store': SWIFT, 'orchestration': HEAT},
                        '-y', 'p')
        self.assertEqual(1, self.obj_delete.call_count)
        self.assertEqual(1, self.delete.call_count)

    def test_without_heat_it_says_it_did_not_check(self):
        err = self.run_delete({'object-store': SWIFT}, '-y', 'p')
        self.assertIn('not checking for stacks', err)
        self.assertEqual(1, self.delete.call_count)

    def test_one_unknown_plan_stops_the_whole_delete(self):
        self.m.get(SWIFT + '/q', status_code=404)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Plan q does not exist'):
            self.run_delete({'object-store': SWIFT}, '-y', 'p', 'q')
        self.assertEqual(0, self.delete.call_count)

    def test_no_object_store_endpoint(self):
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'object_store_endpoint_override'):
            self.run_delete({}, '-y', 'p')
