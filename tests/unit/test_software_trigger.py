"""Software deployment trigger / watch / cancel: the derivation rules, and
the Heat and Swift sides faked with requests-mock under the real
python-heatclient and python-swiftclient."""

import hashlib
import hmac
import io
import logging
import unittest
from urllib import parse

from heatclient import client as heat_client
from keystoneauth1 import noauth
from keystoneauth1 import session as ksa_session
import requests_mock
from swiftclient import client as swift_client

from tripleoplanclient import errors
from tripleoplanclient import software_follow
from tripleoplanclient import software_signal
from tripleoplanclient import software_trigger

HEAT = 'http://heat.test/v1/admin'
SWIFT = 'http://swift.test/v1/AUTH_test'
SIGNALS = SWIFT + '/' + software_signal.CONTAINER
# heatclient reads a body only when it is labelled JSON
JSON = {'Content-Type': 'application/json'}

COMPONENT = {
    'id': 'c1', 'name': 'stack-component-x', 'group': 'component',
    'config': {'configs': [
        {'actions': ['CREATE'], 'tool': 'script', 'config': 'create'},
        {'actions': ['BACKUP', 'Restore'], 'tool': 'script',
         'config': 'backup'}]},
    'options': {},
    'inputs': [{'name': 'target', 'type': 'String', 'default': '/var'},
               {'name': 'level', 'type': 'Number', 'default': 1},
               {'name': 'extra', 'type': 'Json', 'default': {}}],
    'outputs': [{'name': 'archive'},
                {'name': 'error', 'error_output': True}],
}


def stack_derived(source, values, resource='deployment', **changes):
    """A derived config as Heat's deployment resource writes it."""
    derived = dict(source, id='d1', **changes)
    inputs = [dict(i, value=values.get(i['name'], i.get('default')))
              for i in source['inputs']]
    inputs += [{'name': n, 'value': v} for n, v in values.items()
               if n not in {i['name'] for i in source['inputs']}]
    inputs += [{'name': 'deploy_server_id', 'value': 's1'},
               {'name': 'deploy_action', 'value': 'CREATE'},
               {'name': 'deploy_stack_id', 'value': 'stack/1234'},
               {'name': 'deploy_resource_name', 'value': resource},
               {'name': 'deploy_signal_transport', 'value': 'NO_SIGNAL'}]
    derived['inputs'] = inputs
    return derived


def inputs_of(body):
    return {i['name']: i['value'] for i in body['inputs']}


class DeriveConfigTest(unittest.TestCase):

    def test_override_then_stack_value_then_default(self):
        source = software_trigger.Source(COMPONENT, stack_derived(
            COMPONENT, {'target': '/srv/stack', 'undeclared': 'kept'}))
        body = software_trigger.derive_config(
            source, 'BACKUP', 's1', {'level': 3},
            software_trigger.TEMP_URL_SIGNAL, 'http://signal?sig')
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
        source = software_trigger.Source(COMPONENT)
        body = software_trigger.derive_config(
            source, 'BACKUP', 's1', {}, software_trigger.NO_SIGNAL)
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
        body = software_trigger.derive_config(
            software_trigger.Source(structured, derived), 'BACKUP', 's1',
            {'target': '/srv/new'}, software_trigger.NO_SIGNAL)
        self.assertEqual({'path': '/srv/new', 'keep': {'get_input': 'nope'}},
                         body['config'])

    def test_named_deployment_names_the_trigger(self):
        derived = stack_derived(COMPONENT, {}, name='ControllerDeployment')
        source = software_trigger.Source(COMPONENT, derived)
        self.assertEqual('ControllerDeployment', source.deployment_name())

    def test_fallback_source_is_the_derived_config_without_deploy_inputs(
            self):
        derived = stack_derived(COMPONENT, {'target': '/srv/stack'})
        original = software_trigger.strip_deploy_inputs(derived)
        self.assertEqual(['target', 'level', 'extra'],
                         [i['name'] for i in original['inputs']])
        self.assertTrue(all('value' not in i for i in original['inputs']))
        body = software_trigger.derive_config(
            software_trigger.Source(original, derived), 'BACKUP', 's1', {},
            software_trigger.NO_SIGNAL)
        self.assertEqual('/srv/stack', inputs_of(body)['target'])


class ActionAndInputsTest(unittest.TestCase):

    def test_component_actions(self):
        source = software_trigger.Source(COMPONENT)
        self.assertEqual('BACKUP',
                         software_trigger.check_action(source, 'BACKUP'))
        self.assertEqual('BACKUP',
                         software_trigger.check_action(source, 'backup'))
        self.assertEqual('Restore',
                         software_trigger.check_action(source, 'RESTORE'))
        with self.assertRaisesRegex(
                errors.CommandError,
                r'--action FOO: .* \(it defines: CREATE, BACKUP, Restore\)'):
            software_trigger.check_action(source, 'FOO')
        with self.assertRaisesRegex(errors.CommandError, 'action name'):
            software_trigger.check_action(source, 'BACK UP')

    def test_other_configs_take_any_action(self):
        plain = dict(COMPONENT, group='script', config='echo')
        self.assertEqual('FOO', software_trigger.check_action(
            software_trigger.Source(plain), 'foo'))

    def test_input_values_take_the_declared_type(self):
        values = software_trigger.parse_input_values(
            ['level=2', 'target=/a=b', 'extra={"k": [1]}'], COMPONENT)
        self.assertEqual({'level': 2, 'target': '/a=b',
                          'extra': {'k': [1]}}, values)
        self.assertEqual({'level': 2.5}, software_trigger.parse_input_values(
            ['level=2.5'], COMPONENT))

    def test_bad_input_values(self):
        for pairs, pattern in (
                (['colour=blue'], r'declares no input colour \(declared: '
                                  r'extra, level, target\)'),
                (['level=high'], r'level=high: input level is a Number'),
                (['extra={'], r'input extra is a Json'),
                (['deploy_action=X'], r'deploy_\* inputs are set'),
                (['novalue'], r'KEY=VALUE')):
            with self.assertRaisesRegex(errors.CommandError, pattern):
                software_trigger.parse_input_values(pairs, COMPONENT)


class OutcomeTest(unittest.TestCase):

    def test_zero_status_code_completes(self):
        status, reason, values = software_follow.outcome(COMPONENT, {
            'deploy_status_code': 0, 'deploy_stdout': 'ok',
            'archive': '/a.tgz', 'undeclared': 'dropped'})
        self.assertEqual(('COMPLETE', 'Outputs received'), (status, reason))
        self.assertEqual({'archive': '/a.tgz', 'deploy_status_code': 0,
                          'deploy_stdout': 'ok', 'deploy_stderr': None},
                         values)

    def test_non_zero_status_code_or_error_output_fails(self):
        status, reason, _ = software_follow.outcome(
            COMPONENT, {'deploy_status_code': '2'})
        self.assertEqual('FAILED', status)
        self.assertIn('non-zero status code: 2', reason)
        status, reason, values = software_follow.outcome(
            COMPONENT, {'deploy_status_code': 0, 'error': 'disk full'})
        self.assertEqual(('FAILED', 'error : disk full'), (status, reason))
        self.assertEqual('disk full', values['error'])


class RedactTest(unittest.TestCase):

    def test_signatures_and_keys_are_redacted(self):
        text = ('PUT http://s/v1/AUTH_a/c/o?temp_url_sig=abc123&'
                'temp_url_expires=99 -H "X-Account-Meta-Temp-URL-Key: '
                's3cret" {\'x-account-meta-temp-url-key\': \'s3cret\'}')
        clean = software_signal.redact(text)
        self.assertNotIn('abc123', clean)
        self.assertNotIn('s3cret', clean)
        self.assertIn('temp_url_expires=99', clean)

    def test_the_filter_rewrites_records_on_root_handlers(self):
        stream = io.StringIO()
        handler = logging.StreamHandler(stream)
        root = logging.Logger('test-root')
        root.addHandler(handler)
        software_signal.redact_logs(root)
        software_signal.redact_logs(root)
        self.assertEqual(1, len(handler.filters))
        root.warning('REQ: %s', 'http://s/o?temp_url_sig=deadbeef&x=1')
        self.assertNotIn('deadbeef', stream.getvalue())
        self.assertIn('temp_url_sig=<redacted>&x=1', stream.getvalue())

    def test_public_url(self):
        self.assertEqual('http://s/v1/AUTH_a/c/o', software_signal.public_url(
            'http://s/v1/AUTH_a/c/o?temp_url_sig=x&temp_url_expires=1'))


class HttpTest(unittest.TestCase):

    def setUp(self):
        self.m = requests_mock.Mocker()
        self.m.start()
        self.addCleanup(self.m.stop)
        session = ksa_session.Session(auth=noauth.NoAuth())
        self.heat = heat_client.Client('1', session=session,
                                       endpoint_override=HEAT)
        self.swift = swift_client.Connection(
            session=session, os_options={'object_storage_url': SWIFT},
            retries=0)
        self.now = 1000.0
        self.signals = software_signal.SignalStore(
            lambda: self.swift, SWIFT, clock=lambda: self.now)
        self.lines = []

    def on_heat(self, method, path, *bodies, status=200):
        """Heat answers ``bodies`` in turn, the last one from then on."""
        return self.m.register_uri(method, HEAT + path, [
            {'json': body, 'headers': JSON, 'status_code': status}
            for body in bodies])


class SignalStoreTest(HttpTest):

    def test_create_sets_a_missing_key_and_signs_a_put(self):
        heads = self.m.head(SWIFT, [
            {'status_code': 204, 'headers': {}},
            {'status_code': 204, 'headers': {
                'X-Account-Meta-Temp-Url-Key': 'k3y'}}])
        post = self.m.post(SWIFT, status_code=204)
        self.m.put(SIGNALS, status_code=201)
        obj = self.m.put(requests_mock.ANY, status_code=201)
        url = self.signals.create(60)
        self.assertEqual(2, heads.call_count)
        self.assertEqual(64, len(post.last_request.headers[
            software_signal.KEY_HEADER]))
        self.assertEqual(b'', obj.last_request.body or b'')
        parts = parse.urlsplit(url)
        query = dict(parse.parse_qsl(parts.query))
        self.assertEqual('1060', query['temp_url_expires'])
        # Swift's tempurl middleware checks exactly this signature
        expected = hmac.new(b'k3y', ('PUT\n1060\n%s' % parts.path).encode(),
                            hashlib.sha256).hexdigest()
        self.assertEqual(expected, query['temp_url_sig'])
        self.assertTrue(url.startswith(SIGNALS + '/'))

    def test_create_keeps_an_existing_key(self):
        self.m.head(SWIFT, status_code=204,
                    headers={'X-Account-Meta-Temp-Url-Key': 'old'})
        post = self.m.post(SWIFT, status_code=204)
        self.m.put(requests_mock.ANY, status_code=201)
        self.signals.create(60)
        self.assertFalse(post.called)

    def test_a_key_swift_hides_is_a_clear_error(self):
        self.m.head(SWIFT, status_code=204, headers={})
        self.m.post(SWIFT, status_code=204)
        with self.assertRaisesRegex(errors.CommandError, 'NO_SIGNAL'):
            self.signals.create(60)

    def test_read_and_drop(self):
        url = SIGNALS + '/obj?temp_url_sig=x&temp_url_expires=1'
        self.m.get(SIGNALS + '/obj', [{'content': b''},
                                      {'json': {'deploy_status_code': 0}},
                                      {'status_code': 404}])
        self.assertIsNone(self.signals.read(url))
        self.assertEqual({'deploy_status_code': 0}, self.signals.read(url))
        self.assertIsNone(self.signals.read(url))
        self.m.delete(SIGNALS + '/obj', [{'status_code': 204},
                                         {'status_code': 404}])
        self.assertTrue(self.signals.drop(url))
        self.assertFalse(self.signals.drop(url))
        # another account's object is none of our business: no request
        count = self.m.call_count
        self.assertIsNone(self.signals.read(
            'http://swift.test/v1/AUTH_other/c/o?temp_url_sig=x'))
        self.assertEqual(count, self.m.call_count)


class DeploymentsTest(HttpTest):

    SIGNAL = SIGNALS + '/obj?temp_url_sig=x&temp_url_expires=1'
    SD = '/software_deployments/sd1'

    def setUp(self):
        super().setUp()
        self.sleeps = []
        self.deployments = software_follow.Deployments(
            self.heat, self.signals, self.lines.append,
            sleep=self.sleep, clock=lambda: self.now)
        config = dict(COMPONENT, id='t1', name='deployment-BACKUP', inputs=[
            {'name': 'deploy_signal_transport', 'value': 'TEMP_URL_SIGNAL'},
            {'name': 'deploy_signal_id', 'value': self.SIGNAL}])
        self.on_heat('GET', '/software_configs/t1',
                     {'software_config': config})

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds

    def deployment(self, status='IN_PROGRESS'):
        return {'software_deployment': {
            'id': 'sd1', 'server_id': 's1', 'config_id': 't1',
            'action': 'BACKUP', 'status': status,
            'status_reason': 'Deploy data available',
            'output_values': None}}

    def test_watch_applies_the_answer_heat_did_not(self):
        self.on_heat('GET', self.SD, self.deployment())
        self.m.get(SIGNALS + '/obj', [
            {'content': b''},
            {'json': {'deploy_status_code': 0, 'deploy_stdout': 'ok',
                      'archive': '/a.tgz'}}])
        put = self.on_heat('PUT', self.SD, self.deployment('COMPLETE'))
        state, deployment, config = self.deployments.watch('sd1', 60, 2)
        self.assertEqual('COMPLETE', state)
        self.assertEqual([2], self.sleeps)
        body = put.last_request.json()
        self.assertEqual('COMPLETE', body['status'])
        self.assertEqual('/a.tgz', body['output_values']['archive'])
        self.assertEqual('ok', body['output_values']['deploy_stdout'])

    def test_watch_stops_when_heat_applied_it(self):
        self.on_heat('GET', self.SD, self.deployment(),
                     self.deployment('FAILED'))
        self.m.get(SIGNALS + '/obj', content=b'')
        put = self.on_heat('PUT', self.SD, {})
        state, _, _ = self.deployments.watch('sd1', 60, 2)
        self.assertEqual('FAILED', state)
        self.assertFalse(put.called)

    def test_watch_times_out_and_leaves_it_in_progress(self):
        self.on_heat('GET', self.SD, self.deployment())
        self.m.get(SIGNALS + '/obj', content=b'')
        put = self.on_heat('PUT', self.SD, {})
        state, deployment, _ = self.deployments.watch('sd1', 10, 3)
        self.assertEqual('TIMEOUT', state)
        self.assertEqual('IN_PROGRESS', deployment['status'])
        self.assertEqual([3, 3, 3, 1], self.sleeps)
        self.assertFalse(put.called)
        self.assertIn('left IN_PROGRESS', self.lines[-1])

    def test_an_answer_that_is_not_json_fails_the_deployment(self):
        self.on_heat('GET', self.SD, self.deployment())
        self.m.get(SIGNALS + '/obj', content=b'<html>')
        put = self.on_heat('PUT', self.SD, self.deployment('FAILED'))
        state, _, _ = self.deployments.watch('sd1', 10, 3)
        self.assertEqual('FAILED', state)
        self.assertEqual('FAILED', put.last_request.json()['status'])

    def test_cancel_marks_failed_and_drops_the_signal(self):
        self.on_heat('GET', self.SD, self.deployment())
        self.m.get(SIGNALS + '/obj', content=b'')
        put = self.on_heat('PUT', self.SD, self.deployment('FAILED'))
        delete = self.m.delete(SIGNALS + '/obj', status_code=204)
        self.deployments.cancel('sd1', 'window closed')
        self.assertEqual({'status': 'FAILED', 'status_reason':
                          'Deployment cancelled: window closed'},
                         put.last_request.json())
        self.assertTrue(delete.called)

    def test_cancel_applies_a_waiting_answer_instead(self):
        self.on_heat('GET', self.SD, self.deployment())
        self.m.get(SIGNALS + '/obj', json={'deploy_status_code': 0})
        put = self.on_heat('PUT', self.SD, self.deployment('COMPLETE'))
        delete = self.m.delete(SIGNALS + '/obj', status_code=204)
        with self.assertRaisesRegex(errors.CommandError, 'already COMPLETE'):
            self.deployments.cancel('sd1', None)
        self.assertEqual('COMPLETE', put.last_request.json()['status'])
        self.assertFalse(delete.called)

    def test_cancel_of_a_finished_deployment_is_an_error(self):
        self.on_heat('GET', self.SD, self.deployment('COMPLETE'))
        put = self.on_heat('PUT', self.SD, {})
        with self.assertRaisesRegex(errors.CommandError,
                                    'already COMPLETE .*Nothing was changed'):
            self.deployments.cancel('sd1', None)
        self.assertFalse(put.called)

    def test_unknown_deployment(self):
        self.on_heat('GET', '/software_deployments/nope',
                     {'error': {'message': 'not found'}}, status=404)
        with self.assertRaisesRegex(errors.CommandError,
                                    'Software deployment nope not found'):
            self.deployments.watch('nope', 10, 1)


class CreateTest(HttpTest):

    def test_a_failed_deployment_create_leaves_nothing_behind(self):
        self.m.head(SWIFT, status_code=204,
                    headers={'X-Account-Meta-Temp-Url-Key': 'k'})
        self.m.put(requests_mock.ANY, status_code=201)
        object_delete = self.m.delete(requests_mock.ANY, status_code=204)
        self.on_heat('POST', '/software_configs',
                     {'software_config': dict(COMPONENT, id='t9')})
        self.on_heat('POST', '/software_deployments',
                     {'error': {'message': 'boom'}}, status=500)
        config_delete = self.m.delete(HEAT + '/software_configs/t9',
                                      status_code=204)
        with self.assertRaises(Exception):
            software_trigger.create(
                self.heat, self.signals, software_trigger.Source(COMPONENT),
                'BACKUP', 's1', {}, software_trigger.TEMP_URL_SIGNAL, 60,
                self.lines.append)
        self.assertTrue(config_delete.called)
        self.assertTrue(object_delete.called)
        self.assertTrue(object_delete.last_request.url.startswith(SIGNALS))

    def test_no_signal_creates_a_complete_deployment_without_swift(self):
        configs = self.on_heat('POST', '/software_configs',
                               {'software_config': dict(COMPONENT, id='t9')})
        deployments = self.on_heat(
            'POST', '/software_deployments',
            {'software_deployment': {'id': 'sd9', 'config_id': 't9'}})
        deployment, body = software_trigger.create(
            self.heat, self.signals, software_trigger.Source(COMPONENT),
            'BACKUP', 's1', {'level': 2}, software_trigger.NO_SIGNAL, 60,
            self.lines.append)
        self.assertEqual('sd9', deployment['id'])
        self.assertEqual({'config_id': 't9', 'server_id': 's1',
                          'action': 'BACKUP', 'input_values': {'level': 2},
                          'status': 'COMPLETE',
                          'status_reason': 'Not waiting for outputs signal'},
                         deployments.last_request.json())
        self.assertEqual(body, configs.last_request.json())
        self.assertEqual(2, inputs_of(body)['level'])
        self.assertFalse(any(r.url.startswith(SWIFT)
                             for r in self.m.request_history))
