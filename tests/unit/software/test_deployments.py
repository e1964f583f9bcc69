"""Watching and cancelling a deployment: Heat's rules for a signal, and the
answer applied from Swift when Heat has not."""

import re
import unittest

from tests.unit import fakes
from tripleoplanclient.common import exceptions
from tripleoplanclient.software import deployments
from tripleoplanclient.software import signals


class OutcomeTest(unittest.TestCase):

    def test_zero_status_code_completes(self):
        status, reason, values = deployments.outcome(fakes.COMPONENT, {
            'deploy_status_code': 0, 'deploy_stdout': 'ok',
            'archive': '/a.tgz', 'undeclared': 'dropped'})
        self.assertEqual(('COMPLETE', 'Outputs received'), (status, reason))
        self.assertEqual({'archive': '/a.tgz', 'deploy_status_code': 0,
                          'deploy_stdout': 'ok', 'deploy_stderr': None},
                         values)

    def test_non_zero_status_code_or_error_output_fails(self):
        status, reason, _ = deployments.outcome(
            fakes.COMPONENT, {'deploy_status_code': '2'})
        self.assertEqual('FAILED', status)
        self.assertIn('non-zero status code: 2', reason)
        status, reason, values = deployments.outcome(
            fakes.COMPONENT, {'deploy_status_code': 0, 'error': 'disk full'})
        self.assertEqual(('FAILED', 'error : disk full'), (status, reason))
        self.assertEqual('disk full', values['error'])


class DeploymentsTest(fakes.SoftwareTestCase):

    SIGNAL = fakes.SIGNAL
    SD = '/software_deployments/sd1'

    def setUp(self):
        super().setUp()
        self.sleeps = []
        self.deployments = deployments.Deployments(
            self.heat, self.signals, self.lines.append,
            sleep=self.sleep, clock=lambda: self.now)
        config = dict(
            fakes.COMPONENT, id='t1', name='deployment-BACKUP', inputs=[
                {'name': 'deploy_signal_transport',
                 'value': 'TEMP_URL_SIGNAL'},
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
        self.m.get(fakes.SIGNAL_OBJECT, [
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
        self.m.get(fakes.SIGNAL_OBJECT, content=b'')
        put = self.on_heat('PUT', self.SD, {})
        state, _, _ = self.deployments.watch('sd1', 60, 2)
        self.assertEqual('FAILED', state)
        self.assertFalse(put.called)

    def test_watch_times_out_and_leaves_it_in_progress(self):
        self.on_heat('GET', self.SD, self.deployment())
        self.m.get(fakes.SIGNAL_OBJECT, content=b'')
        put = self.on_heat('PUT', self.SD, {})
        state, deployment, _ = self.deployments.watch('sd1', 10, 3)
        self.assertEqual('TIMEOUT', state)
        self.assertEqual('IN_PROGRESS', deployment['status'])
        self.assertEqual([3, 3, 3, 1], self.sleeps)
        self.assertFalse(put.called)
        self.assertIn('left IN_PROGRESS', self.lines[-1])

    def test_an_answer_that_is_not_json_fails_the_deployment(self):
        self.on_heat('GET', self.SD, self.deployment())
        self.m.get(fakes.SIGNAL_OBJECT, content=b'<html>')
        put = self.on_heat('PUT', self.SD, self.deployment('FAILED'))
        state, _, _ = self.deployments.watch('sd1', 10, 3)
        self.assertEqual('FAILED', state)
        self.assertEqual('FAILED', put.last_request.json()['status'])

    def test_cancel_marks_failed_and_drops_the_signal(self):
        self.on_heat('GET', self.SD, self.deployment())
        self.m.get(fakes.SIGNAL_OBJECT, content=b'')
        put = self.on_heat('PUT', self.SD, self.deployment('FAILED'))
        delete = self.m.delete(fakes.SIGNAL_OBJECT, status_code=204)
        self.deployments.cancel('sd1', 'window closed')
        self.assertEqual({'status': 'FAILED', 'status_reason':
                          'Deployment cancelled: window closed'},
                         put.last_request.json())
        self.assertTrue(delete.called)

    def test_cancel_applies_a_waiting_answer_instead(self):
        self.on_heat('GET', self.SD, self.deployment())
        self.m.get(fakes.SIGNAL_OBJECT, json={'deploy_status_code': 0})
        put = self.on_heat('PUT', self.SD, self.deployment('COMPLETE'))
        delete = self.m.delete(fakes.SIGNAL_OBJECT, status_code=204)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'already COMPLETE'):
            self.deployments.cancel('sd1', None)
        self.assertEqual('COMPLETE', put.last_request.json()['status'])
        self.assertFalse(delete.called)

    def test_cancel_of_a_finished_deployment_is_an_error(self):
        self.on_heat('GET', self.SD, self.deployment('COMPLETE'))
        put = self.on_heat('PUT', self.SD, {})
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'already COMPLETE .*Nothing was changed'):
            self.deployments.cancel('sd1', None)
        self.assertFalse(put.called)

    def foreign_signal(self, url):
        """The deployment's config names ``url`` as its signal."""
        config = dict(fakes.COMPONENT, id='t1', inputs=[
            {'name': 'deploy_signal_transport', 'value': 'TEMP_URL_SIGNAL'},
            {'name': 'deploy_signal_id', 'value': url}])
        self.on_heat('GET', '/software_configs/t1',
                     {'software_config': config})
        self.on_heat('GET', self.SD, self.deployment())
        swift = re.compile(re.escape(fakes.SWIFT))
        return (self.m.get(swift, json={'deploy_status_code': 0}),
                self.m.delete(swift, status_code=204),
                self.on_heat('PUT', self.SD, self.deployment('FAILED')))

    # The URLs of issue 13: a plan's record, another account by dot
    # segments (plain and percent-encoded), another host
    FOREIGN = (
        fakes.SWIFT + '/overcloud/user-environments/environments.yaml'
        '?temp_url_sig=s&temp_url_expires=1',
        fakes.SWIFT + '/../AUTH_other/c/o?temp_url_sig=s&temp_url_expires=1',
        fakes.SIGNALS + '/%2e%2e%2f%2e%2e%2fAUTH_other%2fc%2fo',
        fakes.SIGNAL.replace('swift.test', 'evil.test'))

    def test_watch_refuses_a_foreign_signal_url(self):
        for url in self.FOREIGN:
            get, delete, put = self.foreign_signal(url)
            with self.assertRaisesRegex(
                    exceptions.CommandError,
                    'Deployment sd1: its signal URL %s is not one'
                    % re.escape(signals.public_url(url))):
                self.deployments.watch('sd1', 60, 2)
            self.assertFalse(get.called or delete.called or put.called)

    def test_cancel_refuses_a_foreign_signal_url_and_changes_nothing(self):
        for url in self.FOREIGN:
            for status in ('IN_PROGRESS', 'COMPLETE'):
                get, delete, put = self.foreign_signal(url)
                self.on_heat('GET', self.SD, self.deployment(status))
                with self.assertRaisesRegex(exceptions.CommandError,
                                            'nothing was read or deleted'):
                    self.deployments.cancel('sd1', None)
                self.assertFalse(get.called or delete.called or put.called)

    def test_unknown_deployment(self):
        self.on_heat('GET', '/software_deployments/nope',
                     {'error': {'message': 'not found'}}, status=404)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Software deployment nope not found'):
            self.deployments.watch('nope', 10, 1)
