"""A plan with a stack of three Computes and node k1 provisioned as the
middle one, behind a Mistral whose delete workflows run our action bodies
(node_delete's start and release around an update whose recorded end the
test chooses; overcloud_delete's start and follow) on the fake Ironic, a
requests-mock Heat and the fake Swift: for the delete command tests."""

import json
import re

from tests.unit import fakes
from tests.unit.nodes import fake_ironic
from tests.unit.nodes import plan_and_ironic
from tests.unit.osc import node_commands
from tripleoplanclient.mistral import node_delete as delete_side
from tripleoplanclient.mistral import overcloud_delete as overcloud_side
from tripleoplanclient import protocol
from tripleoplanclient.record import log

NESTED = 'p-Compute-abc/4d1c0a52-0000-4000-8000-0000000000aa'


class DeleteMistral(plan_and_ironic.PlanAndIronic):

    def setUp(self):
        super().setUp()
        self.k1 = self.fake.add_node(
            name='k1', provision_state='active', instance_uuid='i-1',
            extra={'tripleoplan': {'plan': 'p', 'role': 'Compute',
                                   'hostname': 'p-novacompute-1',
                                   'index': 1}})
        self.update_status = 'SUCCESS'
        self.executions = {}
        self.m.post(fakes.MISTRAL + '/executions', json=self.start,
                    status_code=201, headers=fakes.JSON)
        self.m.get(re.compile(re.escape(fakes.MISTRAL) +
                              '/executions/([^/]+)$'),
                   json=lambda r, c: self.executions[r.path.rsplit('/')[-1]][
                       'execution'], headers=fakes.JSON)
        self.m.get(re.compile(re.escape(fakes.MISTRAL) +
                              '/executions/([^/]+)/tasks'),
                   json=lambda r, c: {'tasks': [self.executions[
                       r.path.split('/')[-2]]['task']]}, headers=fakes.JSON)
        self.stack('UPDATE_COMPLETE')
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

    def stack(self, status):
        fakes.stack_is(self.m, {'stack': {
            'id': fakes.STACK_ID, 'stack_name': 'p', 'stack_status': status,
            'stack_status_reason': 'Heat says %s' % status,
            'parameters': {
                'ComputeCount': '3',
                'ComputeHostnameFormat': '%stackname%-novacompute-%index%',
                'HostnameMap': '{}'}}})

    def workflow(self, name, req):
        heat = fakes.heat_client()
        if name == 'node_delete':
            started = delete_side.start(self.store, heat, self.ironic, req)
            # the deploy workflow: its step's end as the test says
            self.store.container.write('p', {log.outcome_path('s1'): log.dump(
                {'outcome': dict({'status': self.update_status}, **(
                    {} if self.update_status == 'SUCCESS' else
                    {'reason': 'Heat says UPDATE_FAILED'})),
                 'stack': {}})})
            update = {'deploy': {'step': {'id': 's1', 'action': 'update'}}}
            for _ in range(10):
                followed = delete_side.release(
                    self.store, self.ironic, req, started, update)
                if followed['done']:
                    break
            return started, {'update': update, 'followed': followed}
        started = overcloud_side.start(self.store, heat, self.ironic, req)
        self.stack(self.heat_end)
        followed = overcloud_side.follow(self.store, heat, self.ironic, req,
                                         started)
        return started, {'followed': followed}

    def start(self, request, context):
        from requests_mock import mocker

        from tripleoplanclient.common import exceptions
        body = request.json()
        name = body['workflow_name'].rsplit('.', 1)[1]
        req = protocol.read(name, json.loads(body['input'])['request'])
        held = mocker._send_lock._release_save()
        try:
            started, output = self.workflow(name, req)
            task = {'id': 't1', 'name': name, 'state': 'SUCCESS',
                    'state_info': None,
                    'published': json.dumps({name: started})}
            output[name] = started
        except exceptions.CommandError as exc:
            task = {'id': 't1', 'name': name, 'state': 'ERROR',
                    'state_info': 'Failed to run action [action_ex_id=x, '
                                  'idx=0]: %s' % exc, 'published': '{}'}
            output = {}
        finally:
            mocker._send_lock._acquire_restore(held)
        ident = 'e%d' % (len(self.executions) + 1)
        execution = {'id': ident, 'workflow_name': body['workflow_name'],
                     'state': task['state'], 'output': json.dumps(output)}
        self.executions[ident] = {'execution': execution, 'task': task}
        return execution

    def run_command(self, cls, *argv):
        return node_commands.run_json(cls, dict(
            fakes.ENDPOINTS, workflowv2=fakes.MISTRAL,
            baremetal=fake_ironic.URL), *argv)
