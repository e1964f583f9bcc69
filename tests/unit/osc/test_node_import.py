"""``overcloud node import`` through the real plugin: the file checked
before anything is sent, its nodes (passwords included) given to the
node_register action run on its own, synchronously and unsaved (nothing
in Swift, no execution kept), rows and exit status, no password in what
it prints; Mistral (FakeMistral) runs the action's body on the fake
Ironic, with the execution context Mistral gives each way of running it.
"""

import io
import json
import os
import types

from tests.unit import fakes
from tests.unit.nodes import fake_ironic
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import node_access
from tripleoplanclient.mistral import node_registration
from tripleoplanclient.osc import node_import
from tripleoplanclient import protocol
from tripleoplanclient.workflows import executions
from tripleoplanclient.workflows import nodes

PW = 'cmd-test-password'
NODES = {'nodes': [{'name': 'n%d' % i, 'pm_type': 'fake-hardware',
                    'pm_addr': '127.0.0.1', 'pm_port': 7000 + i,
                    'pm_password': PW,
                    'mac': ['52:54:00:00:01:%02x' % i]} for i in range(2)]}
CATALOG = [{'type': 'baremetal', 'endpoints': [
    {'interface': 'public', 'url': fake_ironic.URL}]}]


REFUSED_ROW = {'name': None, 'uuid': None, 'action': None,
               'provision_state': None, 'status': 'REFUSED', 'note': None,
               'error': None, 'validations': None}


def early_row(test, rows, status, why):
    """The one row of an import that ended before its rows: ``status``,
    and ``why`` in its error (one line)."""
    row, = rows
    error = row.pop('error')
    test.assertIn(why, error)
    test.assertNotIn('\n', error)
    test.assertEqual(dict(REFUSED_ROW, status=status), dict(row, error=None))


class RegisteringMistral(fakes.FakeMistral):
    """Runs node_register's body (as its action does: ``node_access``,
    then ``node_registration``) on the fake Ironic, with the execution
    context Mistral 23 gives: an action run on its own and unsaved has no
    action execution; a scheduled (saved) one, or a workflow's task, has
    one. ``kept``: the inputs Mistral would save."""

    def __init__(self, mocker, store):
        super().__init__(mocker, store)
        self.kept = []

    def _register(self, request, execution):
        from requests_mock import mocker

        from tripleoplanclient.common import exceptions
        held = mocker._send_lock._release_save()
        try:
            req = protocol.read('node_register', request)
            context = types.SimpleNamespace(
                security=types.SimpleNamespace(
                    auth_token=None, service_catalog=CATALOG,
                    project_id='p1', project_name=None, user_name=None,
                    is_target=False),
                execution=types.SimpleNamespace(**dict(dict.fromkeys((
                    'workflow_execution_id', 'action_execution_id')),
                    **execution)))
            return 'SUCCESS', node_registration.register(
                node_access.ironic(context, req), req, context)
        except exceptions.CommandError as exc:
            return 'ERROR', str(exc)
        finally:
            mocker._send_lock._acquire_restore(held)

    def _action(self, request, context):
        body = request.json()
        if body['name'] != 'tripleoplan.node_register':
            return super()._action(request, context)
        params = json.loads(body.get('params') or '{}')
        sync, save = params.get('run_sync'), params.get('save_result')
        self.runs.append((body['name'], 'sync' if sync else 'async'))
        scheduled = not sync and save
        if save:
            self.kept.append(body['input'])
        state, result = self._register(
            json.loads(body['input'])['request'],
            {'action_execution_id': 'a1'} if scheduled else {})
        return {'id': 'a1' if save else None, 'name': body['name'],
                'state': state, 'output': json.dumps({'result': result})}

    def _run(self, action, request):
        if action != 'tripleoplan.node_register':
            return super()._run(action, request)
        self.kept.append(json.dumps(request))
        return self._register(request, {'workflow_execution_id': 'e1',
                                        'action_execution_id': 'a1'})


class TestImport(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
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
        # Swift is not asked anything; Mistral keeps nothing
        self.assertEqual([], [r.url for r in self.m.request_history
                              if r.url.startswith(fakes.SWIFT)])
        self.assertEqual([], self.mistral.kept)
        return code, json.loads(out), err

    def mistral_requests(self):
        return [r for r in self.m.request_history
                if r.url.startswith(fakes.MISTRAL)]

    def test_registered_then_unchanged_in_one_unsaved_run(self):
        code, rows, err = self.run_import(NODES)
        self.assertEqual(0, code, err)
        self.assertEqual([('n0', 'created', 'manageable', 'SUCCESS'),
                          ('n1', 'created', 'manageable', 'SUCCESS')],
                         [(r['name'], r['action'], r['provision_state'],
                           r['status']) for r in rows])
        self.assertEqual(PW, self.ironic.node('n0')['driver_info'][
            'fake_password'])
        # one request to Mistral: the action run on its own, synchronously
        # and unsaved, the nodes inline with their passwords
        sent, = self.mistral_requests()
        self.assertEqual(('POST', '/v2/action_executions'),
                         (sent.method, sent.path))
        body = sent.json()
        self.assertEqual({'run_sync': True, 'save_result': False},
                         json.loads(body['params']))
        request = json.loads(body['input'])['request']
        self.assertEqual(PW, request['nodes'][0]['pm_password'])
        self.assertEqual(nodes.REGISTER_WAIT, request['timeout'])
        self.assertNotIn('staged', request)
        self.assertRegex(err, r'Registering 2 nodes: done in [0-9.]+ s')
        code, rows, err = self.run_import(NODES)
        self.assertEqual(['unchanged'] * 2, [r['action'] for r in rows])
        self.assertIn('2 node(s): 2 unchanged (2 requests to Ironic)', err)

    def test_a_wrong_file_sends_nothing(self):
        bad = {'nodes': [dict(NODES['nodes'][0], mac=['x']),
                         dict(NODES['nodes'][1], colour='red')]}
        code, rows, err = self.run_import(bad)
        self.assertEqual(3, code)
        early_row(self, rows, 'REFUSED',
                  "nodes[0] (n0): MAC 'x' is not a MAC address")
        self.assertIn("nodes[0] (n0): MAC 'x' is not a MAC address", err)
        self.assertIn("nodes[1] (n1): unknown field 'colour'", err)
        self.assertEqual([], self.m.request_history)

    def test_refused_by_the_action_nothing_written(self):
        self.ironic.add_node(name='n0')
        self.ironic.add_node(name='other', ports=['52:54:00:00:01:00'])
        code, rows, err = self.run_import(NODES)
        self.assertEqual(3, code)
        early_row(self, rows, 'REFUSED',
                  'nodes[0] (n0) matches 2 nodes in Ironic')
        self.assertIn('nodes[0] (n0) matches 2 nodes in Ironic', err)
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

    def test_a_node_still_verifying_when_the_action_answers_is_exit_4(self):
        # the action answers within the request's timeout (here --timeout
        # 1 s, below WAIT): the node's row says it goes on in Ironic
        self.ironic.add_node(name='n1', provision_state='enroll')
        self.ironic.hold('n1', 10 ** 6)
        code, rows, err = self.run_import(NODES, '--timeout', '1')
        self.assertEqual(4, code, err)
        self.assertEqual([('created', 'manageable', 'SUCCESS'),
                          ('updated', 'verifying', 'IN_PROGRESS')],
                         [(r['action'], r['provision_state'], r['status'])
                          for r in rows])
        self.assertIn('still verifying its BMC after 1 s', rows[1]['error'])
        self.assertIn('Node n1 goes on: still verifying', err)

    def test_mistral_giving_up_is_exit_4(self):
        # the API past rpc_response_timeout: the action may go on
        self.m.post(fakes.MISTRAL + '/action_executions', status_code=500,
                    json={'faultstring': 'This rpc call "start_action" took '
                                         'longer than configured 60 seconds.'})
        code, rows, err = self.run_import(NODES)
        self.assertEqual(4, code)
        early_row(self, rows, 'TIMEOUT', 'No answer from the node '
                  'registration in Mistral')
        self.assertIn('No answer from the node registration in Mistral '
                      '(Mistral\'s rpc_response_timeout passed): it may have '
                      'registered nodes', err)
        self.assertIn('above %d s' % (nodes.REGISTER_WAIT + 15), err)


class TestWorkflowForm(fakes.HttpTestCase):
    """The node_register workflow (GUIs), and an action execution Mistral
    saves: their input is kept, so a password is refused there, before
    Ironic is written to; without passwords they register."""

    def setUp(self):
        super().setUp()
        self.mistral = RegisteringMistral(self.m, fakes.plan_store())
        self.ironic = fake_ironic.FakeIronic(self.m)
        self.workflows = executions.Workflows(
            fakes.mistral_client(), fakes.MISTRAL, lambda line: None,
            sleep=lambda s: None)

    def assert_refused(self, message):
        self.assertIn('pm_password given in a request Mistral keeps',
                      message)
        self.assertIn('"save_result": false', message)
        self.assertNotIn(PW, message)
        self.assertEqual([], self.ironic.writes())

    def test_a_password_in_a_workflow_is_refused(self):
        with self.assertRaises(exceptions.CommandError) as caught:
            self.workflows.run_workflow('node_register', protocol.request(
                'node_register', nodes=NODES['nodes']), 60)
        self.assert_refused(str(caught.exception))
        inline = [dict(n, pm_password=None) for n in NODES['nodes']]
        found = self.workflows.run_workflow(
            'node_register', protocol.request('node_register',
                                              nodes=inline), 60)
        self.assertEqual(['created'] * 2,
                         [r['action'] for r in found['nodes']])

    def test_a_scheduled_saved_action_execution_is_refused(self):
        execution = fakes.mistral_client().action_executions.create(
            protocol.action('node_register'), {'request': protocol.request(
                'node_register', nodes=NODES['nodes'])},
            run_sync=False, save_result=True)
        self.assertEqual('ERROR', execution.state)
        self.assert_refused(json.loads(execution.output)['result'])
