"""Plan commands through the real client wrapper, with HTTP faked."""

import io
import unittest
from unittest import mock

from keystoneauth1 import noauth
from keystoneauth1 import session as ksa_session
from osc_lib import clientmanager
from osc_lib import exceptions
import requests_mock

from tripleoplanclient import plugin
from tripleoplanclient.v1 import overcloud_plan

SWIFT = 'http://swift.test/v1/AUTH_t'
HEAT = 'http://heat.test/v1/admin'


def make_app(endpoints):
    instance = mock.Mock(spec=clientmanager.ClientManager)
    instance.session = ksa_session.Session(auth=noauth.NoAuth())
    instance.region_name = None
    instance.interface = 'public'
    instance.get_endpoint_for_service_type.side_effect = (
        lambda service_type, **kw: endpoints.get(service_type))
    app = mock.Mock(spec=['client_manager', 'stderr'])
    app.client_manager = mock.Mock(spec=['tripleoplan'])
    app.client_manager.tripleoplan = plugin.make_client(instance)
    app.stderr = io.StringIO()
    return app


class TestDeletePlan(unittest.TestCase):

    def setUp(self):
        self.m = requests_mock.Mocker()
        self.m.start()
        self.addCleanup(self.m.stop)
        self.m.get(SWIFT + '/p', json=[{'name': 'a.yaml', 'hash': 'h'}],
                   headers={'X-Container-Meta-Usage-Tripleo': 'plan'})
        self.m.get('http://swift.test/info', json={})
        self.obj_delete = self.m.delete(SWIFT + '/p/a.yaml', status_code=204)
        self.delete = self.m.delete(SWIFT + '/p', status_code=204)

    def run_delete(self, endpoints, *argv):
        app = make_app(endpoints)
        cmd = overcloud_plan.DeletePlan(app, None)
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
