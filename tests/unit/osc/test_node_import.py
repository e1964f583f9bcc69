"""``overcloud node import`` through the real plugin: the file checked
before anything is sent, staged in Swift for the action and gone
after, rows and exit status, no password in what it prints; Mistral
(FakeMistral) runs the register body on the fake Ironic."""

import io
import json
import os
import re

from keystoneauth1 import noauth
from keystoneauth1 import session as ksa_session

from tests.unit import fakes
from tests.unit.nodes import fake_ironic
from tripleoplanclient import protocol
from tripleoplanclient.nodes import ironic
from tripleoplanclient.nodes import register
from tripleoplanclient.nodes import staging
from tripleoplanclient.osc import node_import

PW = 'cmd-test-password'
NODES = {'nodes': [{'name': 'n%d' % i, 'pm_type': 'fake-hardware',
                    'pm_addr': '127.0.0.1', 'pm_port': 7000 + i,
                    'pm_password': PW,
                    'mac': ['52:54:00:00:01:%02x' % i]} for i in range(2)]}


class RegisteringMistral(fakes.FakeMistral):
    """Runs node_register's body (as the action does) on the fake Ironic
    and the test's Swift."""

    def _run(self, action, request):
        if action != 'tripleoplan.node_register':
            return super()._run(action, request)
        from requests_mock import mocker

        from tripleoplanclient.common import exceptions
        held = mocker._send_lock._release_save()
        try:
            req = protocol.read('node_register', request)
            client = ironic.Ironic(ksa_session.Session(auth=noauth.NoAuth()),
                                   fake_ironic.URL)
            rows = register.register(client, staging.entries(
                req, fakes.swift_connection), sleep=lambda s: None,
                validate_only=req['validate_only'])
            return 'SUCCESS', {'nodes': rows, 'requests': client.requests}
        except exceptions.CommandError as exc:
            return 'ERROR', str(exc)
        finally:
            mocker._send_lock._acquire_restore(held)


class TestImport(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.swift = fakes.FakeSwift(self.m, plan=staging.CONTAINER)
        self.swift_info()
        self.m.put(fakes.SWIFT + '/' + staging.CONTAINER, status_code=201)
        self.mistral = RegisteringMistral(self.m, fakes.plan_store())
        self.ironic = fake_ironic.FakeIronic(self.m)
        self.dir = self.temp_dir()

    def run_import(self, data, *options):
        path = fakes.write_file(os.path.join(self.dir, 'nodes.json'),
                                json.dumps(data))
        app = fakes.make_app({'object-store': fakes.SWIFT,
                              'workflow': fakes.MISTRAL,
                              'baremetal': fake_ironic.URL})
        app.stdout = io.StringIO()
        cmd = node_import.ImportNode(app, None)
        parsed = cmd.get_parser('openstack').parse_args(
            [path, '-f', 'json'] + list(options))
        code = cmd.run(parsed)
        out, err = app.stdout.getvalue(), app.stderr.getvalue()
        self.assertNotIn(PW, out + err)
        return code, json.loads(out), err

    def test_registered_then_unchanged_the_file_not_left(self):
        code, rows, err = self.run_import(NODES)
        self.assertEqual(0, code, err)
        self.assertEqual([('n0', 'created', 'manageable', 'SUCCESS'),
                          ('n1', 'created', 'manageable', 'SUCCESS')],
                         [(r['name'], r['action'], r['provision_state'],
                           r['status']) for r in rows])
        self.assertEqual(PW, self.ironic.node('n0')['driver_info'][
            'fake_password'])
        self.assertEqual({}, self.swift.objects)
        # the request Mistral keeps names the staged file, no password
        sent = [r.text for r in self.m.request_history
                if 'mistral' in r.url]
        self.assertNotIn(PW, json.dumps(sent))
        code, rows, err = self.run_import(NODES)
        self.assertEqual(['unchanged'] * 2, [r['action'] for r in rows])
        self.assertIn('2 node(s): 2 unchanged (2 requests to Ironic)', err)

    def test_a_wrong_file_sends_nothing(self):
        bad = {'nodes': [dict(NODES['nodes'][0], mac=['x']),
                         dict(NODES['nodes'][1], colour='red')]}
        code, rows, err = self.run_import(bad)
        self.assertEqual((3, []), (code, rows))
        self.assertIn("nodes[0] (n0): MAC 'x' is not a MAC address", err)
        self.assertIn("nodes[1] (n1): unknown field 'colour'", err)
        self.assertEqual([], self.m.request_history)

    def test_refused_by_the_action_the_staged_file_is_gone(self):
        self.ironic.add_node(name='n0')
        self.ironic.add_node(name='other', ports=['52:54:00:00:01:00'])
        code, rows, err = self.run_import(NODES)
        self.assertEqual((3, []), (code, rows))
        self.assertIn('nodes[0] (n0) matches 2 nodes in Ironic', err)
        self.assertEqual({}, self.swift.objects)
        self.assertEqual([], self.ironic.writes())

    def test_a_failed_node_is_exit_1(self):
        self.ironic.add_node(name='n1', provision_state='enroll')
        self.ironic.fail('n1', 'manage', 'power credentials refused')
        code, rows, err = self.run_import(NODES)
        self.assertEqual(1, code)
        self.assertEqual(['SUCCESS', 'FAILED'], [r['status'] for r in rows])
        self.assertIn('Node n1 failed: not manageable (enroll): power '
                      'credentials refused', err)

    def test_validate_only_is_alone(self):
        code, rows, err = self.run_import(NODES, '--validate-only',
                                          '--provide')
        self.assertEqual(3, code)
        self.assertIn('--validate-only registers nothing', err)
        code, rows, err = self.run_import(NODES, '--validate-only')
        self.assertEqual(['would create'] * 2, [r['action'] for r in rows])
        self.assertEqual({}, dict(self.ironic.nodes))

    def test_still_running_at_the_timeout_is_exit_4(self):
        # Mistral took the request; its task has not ended by --timeout
        def running(request, context):
            execution = self.mistral.executions[request.path.split('/')[-2]]
            return {'tasks': [dict(execution['task'], state='RUNNING')]}

        self.m.get(re.compile(re.escape(fakes.MISTRAL) +
                              '/executions/[^/]+/tasks'), json=running)
        code, rows, err = self.run_import(NODES, '--timeout', '1')
        self.assertEqual((4, []), (code, rows))
        self.assertIn('node_register workflow is still running after 1 s',
                      err)
