"""mistral/node_discovery.py: the node_discover action's body with the
execution context Mistral 23 gives in each way of running it: probes and
registers in a run Mistral keeps nothing of; refused, before any probe or
Ironic request, where it keeps the input (the credentials' passwords)."""

import types

from tests.unit import fakes
from tests.unit.nodes import fake_ironic
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import node_discovery
from tripleoplanclient.nodes import ironic
from tripleoplanclient import protocol

# context.execution as Mistral 23 fills it: a workflow's task, an action
# run on its own and scheduled (saved), one run on its own unsaved
AS_TASK = {'workflow_execution_id': 'wf-1', 'task_execution_id': 't-1',
           'action_execution_id': 'a-1'}
SAVED = {'action_execution_id': 'a-2'}
UNSAVED = {}
PW = 'pw-kept-nowhere'


def context(execution):
    fields = dict.fromkeys(('workflow_execution_id', 'task_execution_id',
                            'action_execution_id'))
    fields.update(execution)
    return types.SimpleNamespace(execution=types.SimpleNamespace(**fields))


class TestDiscoverAction(fake_ironic.TestCase):

    def setUp(self):
        super().setUp()
        self.req = protocol.read('node_discover', protocol.request(
            'node_discover', addresses=['127.0.5.7'], ports=[8000],
            credentials=[['admin', PW]], timeout=30))
        self.made = []

    def ironic(self):
        self.made.append(1)
        return ironic.Ironic(fakes.session(), fake_ironic.URL)

    def test_refused_before_anything_where_mistral_keeps_the_input(self):
        for execution in (AS_TASK, SAVED):
            with self.assertRaises(exceptions.CommandError) as caught:
                node_discovery.discover(self.ironic, self.req,
                                        context(execution))
            self.assertIn('run it on its own, unsaved', str(caught.exception))
            self.assertNotIn(PW, str(caught.exception))
        self.assertEqual(([], 0), (self.made, self.m.call_count))

    def test_an_unsaved_run_probes_and_registers(self):
        def answer(request, context):
            if request.headers.get('Authorization'):
                return {'Members': [{'@odata.id': '/redfish/v1/Systems/1'}]}
            context.status_code = 401
            return {}

        self.m.get('http://127.0.5.7:8000/redfish/v1/Systems', json=answer)
        found = node_discovery.discover(self.ironic, self.req,
                                        context(UNSAVED))
        self.assertEqual([('SUCCESS', 'manageable')], [
            (r['status'], r['provision_state']) for r in found['nodes']])
        self.assertEqual((1, 1), (found['probed'], len(self.made)))
        self.assertGreater(found['requests'], 1)
        self.assertNotIn(PW, repr(found))
