"""HEAT_SIGNAL triggers: the stack that holds the deployment, the
credentials Heat made moving into the action's config, and what is
removed when a step fails (Heat over requests-mock)."""

import re

from heatclient import exc as heat_exc

from tests.unit import fakes
from tripleoplanclient.common import exceptions
from tripleoplanclient.software import heat_signal
from tripleoplanclient.software import trigger

COMPONENT = fakes.COMPONENT
STACK_PATH = re.escape(fakes.HEAT) + r'/stacks/[A-Za-z][\w.-]*/st1'
STACK = re.compile(STACK_PATH + r'(\?.*)?$')
CREDENTIALS = [
    {'name': 'deploy_stack_id', 'value': 'n/st1'},
    {'name': 'deploy_resource_name', 'value': 'deployment'},
    {'name': 'deploy_auth_url', 'value': 'http://keystone.test/v3'},
    {'name': 'deploy_username', 'value': 'n-deployment-x'},
    {'name': 'deploy_user_id', 'value': 'u1'},
    {'name': 'deploy_password', 'value': 'Pw#1'},
    {'name': 'deploy_project_id', 'value': 'p1'}]
# The config Heat derives for the stack's resource first
CARRIER = {'id': 'carrier9', 'group': 'Heat::Ungrouped', 'config': '',
           'inputs': [{'name': 'deploy_server_id', 'value': 's1'},
                      {'name': 'deploy_action', 'value': 'CREATE'},
                      {'name': 'deploy_signal_transport',
                       'value': 'HEAT_SIGNAL'}] + CREDENTIALS}


class HeatAnswers(fakes.SoftwareTestCase):

    def stack_answers(self, *resources, stack_status='CREATE_IN_PROGRESS',
                      reason=''):
        self.stacks = self.on_heat('POST', '/stacks',
                                   {'stack': {'id': 'st1', 'links': []}})
        self.resource = self.m.get(
            re.compile(STACK_PATH + '/resources/deployment$'), [
                {'status_code': 404, 'json': {}} if r is None else
                {'json': {'resource': r}, 'headers': fakes.JSON}
                for r in resources])
        self.stack = self.m.get(STACK, json={'stack': {
            'stack_status': stack_status, 'stack_status_reason': reason}},
            headers=fakes.JSON)
        self.stack_delete = self.m.delete(STACK, status_code=204)
        self.on_heat('GET', '/software_deployments/d0', {
            'software_deployment': {'id': 'd0', 'config_id': 'carrier9',
                                    'server_id': 's1', 'action': 'CREATE',
                                    'status': 'IN_PROGRESS'}})
        self.on_heat('GET', '/software_configs/carrier9',
                     {'software_config': CARRIER})


class HolderTest(HeatAnswers):

    def open(self, timeout=90):
        slept = []
        holder = heat_signal.open_holder(
            self.heat, 'stack-component-x-BACKUP', 's1', timeout,
            self.lines.append, sleep=slept.append, clock=lambda: 0.0)
        return holder, slept

    def test_waits_for_heat_then_keeps_the_credentials(self):
        self.stack_answers(None, {'physical_resource_id': '',
                                  'resource_status': 'INIT_COMPLETE'},
                           {'physical_resource_id': 'd0',
                            'resource_status': 'CREATE_IN_PROGRESS'})
        holder, slept = self.open(timeout=90)
        sent = self.stacks.last_request.json()
        self.assertRegex(sent['stack_name'],
                         r'^stack-component-x-BACKUP-[0-9a-f]{8}$')
        self.assertEqual(2, sent['timeout_mins'])   # 90 s, in whole minutes
        deployment = sent['template']['resources']['deployment']
        self.assertEqual({'config': {'get_resource': 'carrier'},
                          'server': 's1', 'signal_transport': 'HEAT_SIGNAL',
                          'actions': ['CREATE']}, deployment['properties'])
        self.assertEqual('%s/st1' % sent['stack_name'], holder.stack)
        self.assertEqual(('d0', 'carrier9'), (holder.deployment_id,
                                              holder.carrier_config_id))
        self.assertEqual(CREDENTIALS, holder.credentials)
        self.assertEqual(3, self.resource.call_count)
        self.assertEqual([0.2, 0.4], slept)
        self.assertFalse(self.stack_delete.called)

    def test_a_heat_without_a_stack_user_domain_is_a_clear_error(self):
        self.stack_answers({'physical_resource_id': '',
                            'resource_status': 'CREATE_FAILED',
                            'resource_status_reason': 'Error: the stack '
                            'user domain is not configured'})
        with self.assertRaisesRegex(
                exceptions.CommandError, r'HEAT_SIGNAL: Heat could not '
                r'create .*stack user domain is not configured.* use '
                r'TEMP_URL_SIGNAL otherwise. Nothing was triggered'):
            self.open()
        self.assertTrue(self.stack_delete.called)

    def test_a_failed_stack_is_an_error_too(self):
        self.stack_answers({'physical_resource_id': '',
                            'resource_status': 'INIT_COMPLETE'},
                           stack_status='CREATE_FAILED',
                           reason='Resource CREATE failed: carrier')
        with self.assertRaisesRegex(exceptions.CommandError,
                                    r'\(Resource CREATE failed: carrier\)'):
            self.open()
        self.assertTrue(self.stack_delete.called)

    def test_stack_names_are_heat_names(self):
        for name, pattern in (('deployment-BACKUP', 'deployment-BACKUP'),
                              ('9 lives/ä-BACKUP', 'trigger-9-lives-BACKUP'),
                              ('', 'trigger')):
            self.assertRegex(heat_signal.stack_name(name),
                             r'^%s-[0-9a-f]{8}$' % pattern)

    def test_signal_path(self):
        self.assertEqual('stacks/n/st1/resources/deployment/signal',
                         heat_signal.signal_path({'inputs': CREDENTIALS}))
        self.assertIsNone(heat_signal.signal_path({'inputs': []}))


class TriggerTest(HeatAnswers):

    def trigger(self):
        return trigger.create(
            self.heat, self.signals, trigger.Source(COMPONENT), 'BACKUP',
            's1', {'level': 2}, trigger.HEAT_SIGNAL, 60, self.lines.append)

    def test_the_action_takes_over_heats_deployment(self):
        self.stack_answers({'physical_resource_id': 'd0',
                            'resource_status': 'CREATE_IN_PROGRESS'})
        configs = self.on_heat('POST', '/software_configs',
                               {'software_config': dict(COMPONENT, id='t9')})
        put = self.on_heat('PUT', '/software_deployments/d0',
                           {'software_deployment': {'id': 'd0'}})
        carrier_delete = self.m.delete(
            fakes.HEAT + '/software_configs/carrier9', status_code=204)
        deployment, body = self.trigger()
        self.assertEqual('d0', deployment['id'])
        values = fakes.inputs_of(configs.last_request.json())
        self.assertEqual('BACKUP', values['deploy_action'])
        self.assertEqual('HEAT_SIGNAL', values['deploy_signal_transport'])
        self.assertEqual(2, values['level'])
        for item in CREDENTIALS:
            self.assertEqual(item['value'], values[item['name']])
        names = [i['name'] for i in body['inputs']]
        self.assertEqual(len(names), len(set(names)))
        self.assertEqual({'config_id': 't9', 'action': 'BACKUP',
                          'input_values': {'level': 2},
                          'status': 'IN_PROGRESS',
                          'status_reason': 'Deploy data available'},
                         put.last_request.json())
        self.assertTrue(carrier_delete.called)
        self.assertFalse(self.stack_delete.called)
        self.assertFalse(any(r.url.startswith(fakes.SWIFT)
                             for r in self.m.request_history))

    def test_a_failed_takeover_removes_the_config_and_the_stack(self):
        self.stack_answers({'physical_resource_id': 'd0',
                            'resource_status': 'CREATE_IN_PROGRESS'})
        self.on_heat('POST', '/software_configs',
                     {'software_config': dict(COMPONENT, id='t9')})
        self.on_heat('PUT', '/software_deployments/d0',
                     {'error': {'message': 'boom'}}, status=500)
        config_delete = self.m.delete(fakes.HEAT + '/software_configs/t9',
                                      status_code=204)
        with self.assertRaises(heat_exc.HTTPInternalServerError):
            self.trigger()
        self.assertTrue(config_delete.called)
        self.assertTrue(self.stack_delete.called)
        self.assertFalse(any(r.method == 'POST' and 'software_deployments'
                             in r.url for r in self.m.request_history))
