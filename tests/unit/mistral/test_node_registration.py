"""mistral/node_registration.py: the node_register action's body on the
fake Ironic, with the execution context Mistral 23 gives in each way
of running it: BMC passwords registered only in a run Mistral keeps
nothing of; refused, before any write, where it keeps the input."""

import types

from tests.unit.nodes import ironic_base
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import node_registration
from tripleoplanclient.nodes import nodes_json
from tripleoplanclient import protocol

PW = ironic_base.PW

# context.execution as Mistral 23 fills it (engine/actions.py
# _prepare_execution_context): a workflow's task; an action run on its own
# and scheduled (saved); one run on its own, unsaved (no action execution)
AS_TASK = {'workflow_execution_id': 'wf-1', 'task_execution_id': 't-1',
           'workflow_name': 'tripleoplan.v1.node_register',
           'action_execution_id': 'a-1',
           'callback_url': '/v2/action_executions/a-1'}
SAVED = {'action_execution_id': 'a-2',
         'callback_url': '/v2/action_executions/a-2'}
UNSAVED = {}


def context(execution):
    # mistral_lib's ExecutionContext: every field, None unless given
    fields = dict.fromkeys((
        'workflow_execution_id', 'task_execution_id', 'action_execution_id',
        'workflow_name', 'callback_url', 'workflow_propagated_headers'))
    fields.update(execution)
    return types.SimpleNamespace(execution=types.SimpleNamespace(**fields))


class TestRegisterAction(ironic_base.IronicTestCase):

    def request(self, **fields):
        return protocol.read('node_register', protocol.request(
            'node_register', **fields))

    def run_as(self, execution, nodes, **fields):
        return node_registration.register(
            self.ironic, self.request(nodes=nodes, **fields),
            context(execution))

    def test_an_unsaved_run_registers_the_passwords(self):
        self.assertFalse(node_registration.input_saved(context(UNSAVED)))
        found = self.run_as(UNSAVED, ironic_base.nodes(2))
        self.assertEqual(['created'] * 2,
                         [r['action'] for r in found['nodes']])
        self.assertEqual(0, found['failed'])
        self.assertEqual(PW, self.fake.node('n1')['driver_info'][
            'ipmi_password'])
        self.assertNotIn(PW, repr(found))

    def test_a_password_mistral_keeps_is_refused_before_any_write(self):
        for execution in (AS_TASK, SAVED):
            self.assertTrue(node_registration.input_saved(
                context(execution)))
            with self.assertRaises(nodes_json.NodesFileError) as caught:
                self.run_as(execution, ironic_base.nodes(2))
            message = str(caught.exception)
            self.assertIn('nodes[0] (n0): pm_password given in a request '
                          'Mistral keeps', message)
            self.assertIn('nodes[1] (n1)', message)
            for said in ('openstack overcloud node import',
                         '"run_sync": true', '"save_result": false'):
                self.assertIn(said, message)
            self.assertNotIn(PW, message)
        self.assertEqual([], self.fake.log)

    def test_a_workflow_without_passwords_registers(self):
        given = ironic_base.nodes(1)
        del given[0]['pm_password']
        found = self.run_as(AS_TASK, given)
        self.assertEqual(['created'], [r['action'] for r in found['nodes']])
        self.assertNotIn('ipmi_password',
                         self.fake.node('n0')['driver_info'])

    def test_a_bad_request_is_refused(self):
        for fields, said in (
                ({'nodes': {'n0': {}}}, 'nodes must be a list'),
                ({'nodes': [], 'timeout': 0}, 'timeout 0 is not a number'),
                ({'nodes': [], 'timeout': '45'}, "timeout '45' is not"),
                ({'nodes': [], 'timeout': True}, 'timeout True is not')):
            with self.assertRaises(exceptions.CommandError) as caught:
                node_registration.register(
                    self.ironic, self.request(**fields), context(UNSAVED))
            self.assertIn(said, str(caught.exception))
        with self.assertRaises(exceptions.CommandError) as caught:
            protocol.read('node_register', {'protocol': protocol.PROTOCOL})
        self.assertIn('missing nodes', str(caught.exception))
        self.assertEqual([], self.fake.log)

    def test_the_request_answers_within_its_timeout(self):
        self.fake.add_node(name='n0', provision_state='enroll',
                           driver='ipmi')
        self.fake.hold('n0', 10 ** 6)
        found = self.run_as(UNSAVED, ironic_base.nodes(1), timeout=0.5)
        row, = found['nodes']
        self.assertEqual(('updated', 'verifying'),
                         (row['action'], row['provision_state']))
        self.assertIn('still verifying its BMC after 0.5 s', row['error'])
