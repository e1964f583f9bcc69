"""The trigger: how a config is derived for one action, the inputs it
takes, and the deployment it creates (Heat and Swift over requests-mock)."""

import unittest

from heatclient import exc as heat_exc
import requests_mock

from tests.unit import fakes
from tripleoplanclient.common import exceptions
from tripleoplanclient.software import trigger
# Used in almost every test here.
COMPONENT = fakes.COMPONENT
stack_derived = fakes.stack_derived
inputs_of = fakes.inputs_of


class DeriveConfigTest(unittest.TestCase):

    def test_override_then_stack_value_then_default(self):
        source = trigger.Source(COMPONENT, stack_derived(
            COMPONENT, {'target': '/srv/stack', 'undeclared': 'kept'}))
        body = trigger.derive_config(
            source, 'BACKUP', 's1', {'level': 3},
            trigger.TEMP_URL_SIGNAL, 'http://signal?sig')
        values = inputs_of(body)
        self.assertEqual('/srv/stack', values['target'])
        self.assertEqual(3, values['level'])
        self.assertEqual({}, values['extra'])
        self.assertEqual('kept', values['undeclared'])
        self.assertEqual('s1', values['deploy_server_id'])
        self.assertEqual('BACKUP', values['deploy_action'])
        self.assertEqual('TEMP_URL_SIGNAL', values['deploy_signal_transport'])
        self.assertEqual('http://signal?sig', values['deploy_signal_id'])
        self.assertEqual('PUT', values['deploy_signal_verb'])
        # the stack's deployment inputs are not carried over
        self.assertNotIn('deploy_stack_id', values)
        self.assertEqual('deployment-BACKUP', body['name'])
        self.assertEqual(COMPONENT['config'], body['config'])
        self.assertEqual(COMPONENT['outputs'], body['outputs'])
        self.assertEqual('component', body['group'])

    def test_no_signal_has_no_signal_inputs(self):
        source = trigger.Source(COMPONENT)
        body = trigger.derive_config(
            source, 'BACKUP', 's1', {}, trigger.NO_SIGNAL)
        values = inputs_of(body)
        self.assertEqual('/var', values['target'])
        self.assertNotIn('deploy_signal_id', values)
        self.assertNotIn('deploy_signal_verb', values)
        self.assertEqual('stack-component-x-BACKUP', body['name'])

    def test_structured_config_resolves_inputs_again(self):
        structured = dict(COMPONENT, group='Heat::Ungrouped', config={
            'path': {'get_input': 'target'}, 'keep': {'get_input': 'nope'}})
        derived = stack_derived(structured, {'target': '/srv/stack'},
                                config={'path': '/srv/stack',
                                        'keep': {'get_input': 'nope'}})
        body = trigger.derive_config(
            trigger.Source(structured, derived), 'BACKUP', 's1',
            {'target': '/srv/new'}, trigger.NO_SIGNAL)
        self.assertEqual({'path': '/srv/new', 'keep': {'get_input': 'nope'}},
                         body['config'])

    def test_named_deployment_names_the_trigger(self):
        derived = stack_derived(COMPONENT, {}, name='ControllerDeployment')
        source = trigger.Source(COMPONENT, derived)
        self.assertEqual('ControllerDeployment', source.deployment_name())

    def test_fallback_source_is_the_derived_config_without_deploy_inputs(
            self):
        derived = stack_derived(COMPONENT, {'target': '/srv/stack'})
        original = trigger.strip_deploy_inputs(derived)
        self.assertEqual(['target', 'level', 'extra'],
                         [i['name'] for i in original['inputs']])
        self.assertTrue(all('value' not in i for i in original['inputs']))
        body = trigger.derive_config(
            trigger.Source(original, derived), 'BACKUP', 's1', {},
            trigger.NO_SIGNAL)
        self.assertEqual('/srv/stack', inputs_of(body)['target'])


class ActionAndInputsTest(unittest.TestCase):

    def test_component_actions(self):
        source = trigger.Source(COMPONENT)
        self.assertEqual('BACKUP',
                         trigger.check_action(source, 'BACKUP'))
        self.assertEqual('BACKUP',
                         trigger.check_action(source, 'backup'))
        self.assertEqual('Restore',
                         trigger.check_action(source, 'RESTORE'))
        with self.assertRaisesRegex(
                exceptions.CommandError,
                r'--action FOO: .* \(it defines: CREATE, BACKUP, Restore\)'):
            trigger.check_action(source, 'FOO')
        with self.assertRaisesRegex(exceptions.CommandError, 'action name'):
            trigger.check_action(source, 'BACK UP')

    def test_other_configs_take_any_action(self):
        plain = dict(COMPONENT, group='script', config='echo')
        self.assertEqual('FOO', trigger.check_action(
            trigger.Source(plain), 'foo'))

    def test_input_values_take_the_declared_type(self):
        values = trigger.parse_input_values(
            ['level=2', 'target=/a=b', 'extra={"k": [1]}'], COMPONENT)
        self.assertEqual({'level': 2, 'target': '/a=b',
                          'extra': {'k': [1]}}, values)
        self.assertEqual({'level': 2.5}, trigger.parse_input_values(
            ['level=2.5'], COMPONENT))

    def test_bad_input_values(self):
        for pairs, pattern in (
                (['colour=blue'], r'declares no input colour \(declared: '
                                  r'extra, level, target\)'),
                (['level=high'], r'level=high: input level is a Number'),
                (['extra={'], r'input extra is a Json'),
                (['deploy_action=X'], r'deploy_\* inputs are set'),
                (['novalue'], r'KEY=VALUE')):
            with self.assertRaisesRegex(exceptions.CommandError, pattern):
                trigger.parse_input_values(pairs, COMPONENT)


class CreateTest(fakes.SoftwareTestCase):

    def test_a_failed_deployment_create_leaves_nothing_behind(self):
        self.m.head(fakes.SWIFT, status_code=204,
                    headers={'X-Account-Meta-Temp-Url-Key': 'k'})
        self.m.put(requests_mock.ANY, status_code=201)
        object_delete = self.m.delete(requests_mock.ANY, status_code=204)
        self.on_heat('POST', '/software_configs',
                     {'software_config': dict(COMPONENT, id='t9')})
        self.on_heat('POST', '/software_deployments',
                     {'error': {'message': 'boom'}}, status=500)
        config_delete = self.m.delete(fakes.HEAT + '/software_configs/t9',
                                      status_code=204)
        with self.assertRaises(heat_exc.HTTPInternalServerError):
            trigger.create(
                self.heat, self.signals, trigger.Source(COMPONENT),
                'BACKUP', 's1', {}, trigger.TEMP_URL_SIGNAL, 60,
                self.lines.append)
        self.assertTrue(config_delete.called)
        self.assertTrue(object_delete.called)
        self.assertTrue(
            object_delete.last_request.url.startswith(fakes.SIGNALS))

    def test_no_signal_creates_a_complete_deployment_without_swift(self):
        configs = self.on_heat('POST', '/software_configs',
                               {'software_config': dict(COMPONENT, id='t9')})
        deployments = self.on_heat(
            'POST', '/software_deployments',
            {'software_deployment': {'id': 'sd9', 'config_id': 't9'}})
        deployment, body = trigger.create(
            self.heat, self.signals, trigger.Source(COMPONENT),
            'BACKUP', 's1', {'level': 2}, trigger.NO_SIGNAL, 60,
            self.lines.append)
        self.assertEqual('sd9', deployment['id'])
        self.assertEqual({'config_id': 't9', 'server_id': 's1',
                          'action': 'BACKUP', 'input_values': {'level': 2},
                          'status': 'COMPLETE',
                          'status_reason': 'Not waiting for outputs signal'},
                         deployments.last_request.json())
        self.assertEqual(body, configs.last_request.json())
        self.assertEqual(2, inputs_of(body)['level'])
        self.assertFalse(any(r.url.startswith(fakes.SWIFT)
                             for r in self.m.request_history))
