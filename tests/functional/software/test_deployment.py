"""``openstack software deployment trigger / watch / cancel`` against the
loopback Heat and Swift.

The test plays the server's agent as os-collect-config and heat-config
would: it reads the server's deployment metadata from Heat, finds the
triggered config, runs nothing, and answers as heat-config-notify does:
PUTs the signal JSON to the temp URL the config carries, or, for
HEAT_SIGNAL, signs in to Keystone with the stack user the config names
and signals the resource it names.
"""

import json
import os
import subprocess
import time
import urllib.error
import urllib.request
import uuid

from tests.functional import base
from tests.functional.base import http

TEMPLATE = {
    'heat_template_version': 'wallaby',
    'resources': {
        'server': {
            'type': 'OS::Heat::DeployedServer',
            'properties': {'software_config_transport': 'POLL_SERVER_HEAT'}},
        'component': {
            'type': 'OS::Heat::SoftwareComponent',
            'properties': {
                'inputs': [{'name': 'target', 'default': '/var/backup'},
                           {'name': 'level', 'type': 'Number',
                            'default': 1}],
                'outputs': [{'name': 'archive'}],
                'configs': [
                    {'actions': ['CREATE'], 'tool': 'script',
                     'config': 'echo create'},
                    {'actions': ['BACKUP'], 'tool': 'script',
                     'config': 'tar czf $target/backup.tgz /etc'}]}},
        'deployment': {
            'type': 'OS::Heat::SoftwareDeployment',
            'properties': {
                'server': {'get_resource': 'server'},
                'config': {'get_resource': 'component'},
                # HEAT_SIGNAL with Keystone (setUpClass answers it)
                'signal_transport': 'NO_SIGNAL',
                'input_values': {'target': '/srv/stack'}}},
    },
}


def stack_user(inputs):
    """``(token, orchestration URL)`` of the stack user a HEAT_SIGNAL
    config names, signed in as heat-config-notify does."""
    req = urllib.request.Request(
        inputs['deploy_auth_url'].rstrip('/') + '/auth/tokens',
        method='POST', headers={'Content-Type': 'application/json'},
        data=json.dumps({'auth': {
            'identity': {'methods': ['password'], 'password': {'user': {
                'id': inputs['deploy_user_id'],
                'password': inputs['deploy_password']}}},
            'scope': {'project': {'id': inputs['deploy_project_id']}}}
        }).encode())
    with urllib.request.urlopen(req, timeout=30) as resp:
        token = resp.headers['X-Subject-Token']
        catalog = json.load(resp)['token']['catalog']
    url = next(e['url'] for s in catalog if s['type'] == 'orchestration'
               for e in s['endpoints'] if e['interface'] == 'public')
    return token, url.rstrip('/')


def heat_signal(inputs, answer, password=None):
    """Signal the resource a HEAT_SIGNAL config names; the HTTP status."""
    if password is not None:
        inputs = dict(inputs, deploy_password=password)
    try:
        token, url = stack_user(inputs)
    except urllib.error.HTTPError as exc:
        return exc.code
    status, _ = http('POST', '%s/stacks/%s/resources/%s/signal' % (
        url, inputs['deploy_stack_id'], inputs['deploy_resource_name']),
        answer, token=token)
    return status


class TestSoftwareDeployment(base.FunctionalTest):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.heat_url = cls.env['LOOPBACK_HEAT_URL'].rstrip('/')
        cls.stack = 'sdtrig-%s' % uuid.uuid4().hex[:8]
        cls.triggered = []
        cls.keystone = bool(cls.env.get('LOOPBACK_KEYSTONE_URL'))
        template = json.loads(json.dumps(TEMPLATE))
        if cls.keystone:
            template['resources']['deployment']['properties'][
                'signal_transport'] = 'HEAT_SIGNAL'
        status, body = http('POST', cls.heat_url + '/stacks', {
            'stack_name': cls.stack, 'template': template})
        assert status == 201, body
        cls.stack_id = json.loads(body)['stack']['id']
        cls.stack_path = '%s/%s' % (cls.stack, cls.stack_id)
        deadline = time.monotonic() + 120
        answered = not cls.keystone
        while True:
            _, body = http('GET', '%s/stacks/%s' % (cls.heat_url,
                                                    cls.stack_path))
            state = json.loads(body)['stack']['stack_status']
            if state != 'CREATE_IN_PROGRESS':
                break
            if not answered:
                answered = cls.answer_stack_deployment()
            assert time.monotonic() < deadline, 'stack still creating'
            time.sleep(0.5)
        if state != 'CREATE_COMPLETE':
            cls.tearDownClass()
            raise AssertionError('test stack: %s' % state)
        resources = {}
        for name in ('server', 'component', 'deployment'):
            _, body = http('GET', '%s/stacks/%s/resources/%s' % (
                cls.heat_url, cls.stack_path, name))
            resources[name] = json.loads(body)['resource'][
                'physical_resource_id']
        cls.server_id = resources['server']
        cls.component_id = resources['component']
        cls.deployment_id = resources['deployment']

    @classmethod
    def answer_stack_deployment(cls):
        """The agent's answer to the stack's own HEAT_SIGNAL deployment,
        once Heat made it: Heat's stack user domain at work."""
        status, body = http('GET', '%s/stacks/%s/resources/deployment' % (
            cls.heat_url, cls.stack_path))
        deployment = status == 200 and json.loads(body)['resource'][
            'physical_resource_id']
        if not deployment:
            return False
        _, body = http('GET', '%s/software_deployments/%s' % (
            cls.heat_url, deployment))
        _, body = http('GET', '%s/software_configs/%s' % (
            cls.heat_url, json.loads(body)['software_deployment'][
                'config_id']))
        inputs = {i['name']: i.get('value') for i in json.loads(body)[
            'software_config']['inputs']}
        assert inputs['deploy_signal_transport'] == 'HEAT_SIGNAL', inputs
        status = heat_signal(inputs, {'deploy_status_code': 0,
                                      'deploy_stdout': 'created'})
        assert status == 200, status
        return True

    @classmethod
    def tearDownClass(cls):
        try:
            for deployment in cls.triggered:
                if deployment['signal_transport'] == 'HEAT_SIGNAL':
                    # the stack takes its deployment and config along
                    http('DELETE', deployment['signal'].split(
                        '/resources/')[0])
                    continue
                http('DELETE', '%s/software_deployments/%s' % (
                    cls.heat_url, deployment['id']))
                http('DELETE', '%s/software_configs/%s' % (
                    cls.heat_url, deployment['config_id']))
                if deployment.get('signal'):
                    http('DELETE', deployment['signal'])
            http('DELETE', '%s/stacks/%s' % (cls.heat_url, cls.stack_path))
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                status, body = http('GET', '%s/stacks/%s' % (
                    cls.heat_url, cls.stack_path))
                if status == 404 or json.loads(body)['stack'][
                        'stack_status'] == 'DELETE_COMPLETE':
                    break
                time.sleep(0.5)
        finally:
            super().tearDownClass()

    # -- helpers ---------------------------------------------------------

    def run_cli(self, *args):
        """``(returncode, stdout, stderr)`` of ``openstack args``."""
        proc = subprocess.run(['openstack'] + [str(a) for a in args],
                              capture_output=True, text=True, env=self.env,
                              stdin=subprocess.DEVNULL, timeout=600)
        self.assertNotIn('Traceback', proc.stderr)
        return proc.returncode, proc.stdout, proc.stderr

    def trigger(self, *args):
        out, err = self.openstack('software', 'deployment', 'trigger',
                                  '--server', self.server_id, *args,
                                  '-f', 'json')
        result = json.loads(out)
        self.triggered.append(result)
        return result, err

    def deployment(self, deployment_id):
        status, body = http('GET', '%s/software_deployments/%s' % (
            self.heat_url, deployment_id))
        self.assertEqual(200, status, body)
        return json.loads(body)['software_deployment']

    def settled(self, deployment_id):
        """The deployment once Heat applied an answer (Heat handles a
        resource signal after it answered the request)."""
        deadline = time.monotonic() + 30
        while True:
            deployment = self.deployment(deployment_id)
            if deployment['status'] != 'IN_PROGRESS' or \
                    time.monotonic() > deadline:
                return deployment
            time.sleep(0.2)

    def metadata(self):
        status, body = http('GET', '%s/software_deployments/metadata/%s' % (
            self.heat_url, self.server_id))
        self.assertEqual(200, status, body)
        return json.loads(body)['metadata']

    def server_deployments(self):
        status, body = http('GET', '%s/software_deployments?server_id=%s' % (
            self.heat_url, self.server_id))
        return sorted(d['id'] for d in json.loads(body)[
            'software_deployments'])

    def agent_inputs(self, config_id):
        """The triggered config as the server's agent sees it."""
        for entry in self.metadata():
            if entry['id'] == config_id:
                return entry, {i['name']: i.get('value')
                               for i in entry['inputs']}
        self.fail('config %s not in the server metadata' % config_id)

    def agent_signal(self, config_id, answer):
        """Answer as the config says; returns the HTTP status."""
        _, inputs = self.agent_inputs(config_id)
        if inputs['deploy_signal_transport'] == 'HEAT_SIGNAL':
            return heat_signal(inputs, answer)
        self.assertEqual('PUT', inputs['deploy_signal_verb'])
        status, _ = http(inputs['deploy_signal_verb'],
                         inputs['deploy_signal_id'],
                         data=json.dumps(answer).encode())
        return status

    # -- cases -----------------------------------------------------------

    def test_trigger_backup_then_watch_complete(self):
        stack_config = self.deployment(self.deployment_id)['config_id']
        stack_metadata = [e for e in self.metadata()
                          if e['id'] == stack_config]
        result, err = self.trigger('--stack', self.stack, '--resource',
                                   'component', '--action', 'BACKUP',
                                   '--input-value', 'target=/srv/override')
        self.assertEqual('IN_PROGRESS', result['status'])
        self.assertEqual('BACKUP', result['action'])
        self.assertEqual(self.server_id, result['server_id'])
        self.assertEqual('deployment-BACKUP', result['name'])
        self.assertEqual('TEMP_URL_SIGNAL', result['signal_transport'])
        self.assertNotIn('?', result['signal'])
        self.assertNotIn('temp_url_sig', err)

        entry, inputs = self.agent_inputs(result['config_id'])
        self.assertEqual('component', entry['group'])
        self.assertEqual('/srv/override', inputs['target'])
        self.assertEqual(1, inputs['level'])
        self.assertEqual('BACKUP', inputs['deploy_action'])
        self.assertEqual(self.server_id, inputs['deploy_server_id'])
        self.assertEqual('TEMP_URL_SIGNAL',
                         inputs['deploy_signal_transport'])
        self.assertIn('temp_url_sig=', inputs['deploy_signal_id'])
        # the stack-managed derived config is untouched
        self.assertEqual(stack_config,
                         self.deployment(self.deployment_id)['config_id'])
        self.assertEqual(stack_metadata, [e for e in self.metadata()
                                          if e['id'] == stack_config])

        self.assertEqual(201, self.agent_signal(result['config_id'], {
            'deploy_status_code': 0, 'deploy_stdout': 'backed up',
            'deploy_stderr': '', 'archive': '/srv/override/backup.tgz'}))
        out, err = self.openstack('software', 'deployment', 'watch',
                                  result['id'], '--interval', '0.5',
                                  '-f', 'json')
        watched = json.loads(out)
        self.assertEqual('COMPLETE', watched['status'])
        self.assertEqual(0, watched['deploy_status_code'])
        self.assertEqual('backed up', watched['deploy_stdout'])
        self.assertEqual({'archive': '/srv/override/backup.tgz'},
                         watched['outputs'])
        stored = self.deployment(result['id'])
        self.assertEqual('COMPLETE', stored['status'])
        self.assertEqual('/srv/override/backup.tgz',
                         stored['output_values']['archive'])

    def test_trigger_wait_round_trip(self):
        """trigger --wait while the agent answers: the round trip."""
        known = {e['id'] for e in self.metadata()}
        start = time.monotonic()
        proc = subprocess.Popen(
            # --server by its resource name in --stack
            ['openstack', 'software', 'deployment', 'trigger', '--server',
             'server', '--stack', self.stack, '--resource',
             'deployment', '--action', 'BACKUP', '--wait', '--interval',
             '0.5', '-f', 'json'], env=self.env, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
        try:
            entry = None
            while entry is None and time.monotonic() - start < 60:
                entry = next((e for e in self.metadata()
                              if e['id'] not in known and
                              {i['name']: i.get('value') for i in
                               e['inputs']}['deploy_action'] == 'BACKUP'),
                             None)
                time.sleep(0.2)
            self.assertIsNotNone(entry, 'the agent saw no trigger')
            self.assertEqual(201, self.agent_signal(entry['id'], {
                'deploy_status_code': 0, 'deploy_stdout': 'ok',
                'deploy_stderr': '', 'archive': '/srv/stack/backup.tgz'}))
            out, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
        elapsed = time.monotonic() - start
        result = json.loads(out)
        self.triggered.append(result)
        self.assertEqual(0, proc.returncode, err)
        self.assertEqual('COMPLETE', result['status'])
        self.assertEqual(self.server_id, result['server_id'])
        self.assertEqual({'archive': '/srv/stack/backup.tgz'},
                         result['outputs'])
        # the stack's input value for this server is the base
        _, inputs = self.agent_inputs(result['config_id'])
        self.assertEqual('/srv/stack', inputs['target'])
        self.assertLess(elapsed, 60)
        report = os.environ.get('SOFTWARE_TRIGGER_TIMING')
        if report:
            with open(report, 'a') as f:
                f.write('trigger --wait round trip: %.2f s\n' % elapsed)

    def test_nonzero_status_code_is_failed(self):
        result, _ = self.trigger('--config', self.component_id,
                                 '--action', 'BACKUP')
        self.assertEqual(201, self.agent_signal(result['config_id'], {
            'deploy_status_code': 3, 'deploy_stdout': '',
            'deploy_stderr': 'tar: /srv: No space left on device'}))
        code, out, err = self.run_cli('software', 'deployment', 'watch',
                                      result['id'], '--interval', '0.5',
                                      '-f', 'json')
        self.assertNotEqual(0, code)
        watched = json.loads(out)
        self.assertEqual('FAILED', watched['status'])
        self.assertEqual(3, watched['deploy_status_code'])
        self.assertIn('No space left', watched['deploy_stderr'])
        self.assertIn('non-zero status code: 3', watched['status_reason'])
        self.assertEqual('FAILED', self.deployment(result['id'])['status'])

    def test_no_signal_within_timeout_leaves_in_progress(self):
        code, out, err = self.run_cli(
            'software', 'deployment', 'trigger', '--server', self.server_id,
            '--config', self.component_id, '--action', 'BACKUP', '--wait',
            '--timeout', '0.05', '--interval', '0.5', '-f', 'json')
        result = json.loads(out)
        self.triggered.append(result)
        self.assertNotEqual(0, code)
        self.assertEqual('IN_PROGRESS', result['status'])
        self.assertIn('left IN_PROGRESS', err)
        self.assertEqual('IN_PROGRESS',
                         self.deployment(result['id'])['status'])

    def test_cancel_then_late_signal_changes_nothing(self):
        result, _ = self.trigger('--stack', self.stack, '--resource',
                                 'component', '--action', 'BACKUP')
        _, inputs = self.agent_inputs(result['config_id'])
        out, err = self.openstack('software', 'deployment', 'cancel',
                                  result['id'], '--reason',
                                  'maintenance window closed', '-f', 'json')
        cancelled = json.loads(out)
        self.assertEqual('FAILED', cancelled['status'])
        self.assertIn('maintenance window closed',
                      cancelled['status_reason'])
        status, _ = http('GET', result['signal'])
        self.assertEqual(404, status, 'the signal object was not removed')

        self.agent_signal(result['config_id'], {
            'deploy_status_code': 0, 'deploy_stdout': 'late',
            'deploy_stderr': '', 'archive': '/late'})
        code, out, _ = self.run_cli('software', 'deployment', 'watch',
                                    result['id'], '-f', 'json')
        self.assertNotEqual(0, code)
        self.assertEqual('FAILED', json.loads(out)['status'])
        stored = self.deployment(result['id'])
        self.assertEqual('FAILED', stored['status'])
        self.assertIn('maintenance window closed', stored['status_reason'])
        self.assertFalse(stored['output_values'])

        self.fail_with(r'already FAILED .*only an IN_PROGRESS deployment '
                       r'can be cancelled', 'software', 'deployment',
                       'cancel', result['id'])

    def test_cancel_after_the_answer_is_an_error(self):
        result, _ = self.trigger('--config', self.component_id,
                                 '--action', 'BACKUP')
        self.agent_signal(result['config_id'], {
            'deploy_status_code': 0, 'deploy_stdout': 'done',
            'deploy_stderr': ''})
        self.fail_with(r'already COMPLETE .*Nothing was changed',
                       'software', 'deployment', 'cancel', result['id'])
        self.assertEqual('COMPLETE', self.deployment(result['id'])['status'])

    def test_no_signal_transport(self):
        result, _ = self.trigger('--config', self.component_id,
                                 '--action', 'BACKUP', '--signal-transport',
                                 'NO_SIGNAL', '--wait')
        self.assertEqual('COMPLETE', result['status'])
        self.assertEqual('NO_SIGNAL', result['signal_transport'])
        self.assertIsNone(result['signal'])
        _, inputs = self.agent_inputs(result['config_id'])
        self.assertEqual('NO_SIGNAL', inputs['deploy_signal_transport'])
        self.assertNotIn('deploy_signal_id', inputs)

    def test_secrets_stay_out_of_debug_logs(self):
        code, out, err = self.run_cli(
            'software', 'deployment', 'trigger', '--debug', '--server',
            self.server_id, '--config', self.component_id, '--action',
            'BACKUP', '-f', 'json')
        self.assertEqual(0, code, err)
        result = json.loads(out)
        self.triggered.append(result)
        _, inputs = self.agent_inputs(result['config_id'])
        signature = inputs['deploy_signal_id'].split('temp_url_sig=')[1]
        signature = signature.split('&')[0]
        status, headers, _ = self.swift.request('HEAD', '')
        key = {k.lower(): v for k, v in headers.items()}[
            'x-account-meta-temp-url-key']
        self.assertIn('POST %s/software_configs' % self.heat_url, err)
        for secret in (signature, key):
            self.assertNotIn(secret, err)
            self.assertNotIn(secret, out)

    # -- HEAT_SIGNAL: a stack of its own holds the deployment -----------

    def needs_keystone(self):
        if not self.keystone:
            self.skipTest('HEAT_SIGNAL needs Heat with Keystone')

    def signal_stack(self, result, settled=True):
        """The stack a HEAT_SIGNAL trigger made, once no longer creating
        (``settled``)."""
        url = result['signal'].split('/resources/')[0]
        deadline = time.monotonic() + 60
        while True:
            status, body = http('GET', url)
            self.assertEqual(200, status, body)
            stack = json.loads(body)['stack']
            if not settled or stack['stack_status'] != 'CREATE_IN_PROGRESS':
                return stack
            self.assertLess(time.monotonic(), deadline, 'stack creating')
            time.sleep(0.5)

    def wait_for_signal_event(self, result):
        url = result['signal'].rsplit('/signal', 1)[0] + '/events'
        deadline = time.monotonic() + 30
        while True:
            status, body = http('GET', url)
            self.assertEqual(200, status, body)
            if any(e['resource_status'].startswith('SIGNAL')
                   for e in json.loads(body)['events']):
                return
            self.assertLess(time.monotonic(), deadline, 'no SIGNAL event')
            time.sleep(0.2)

    def test_heat_signal_round_trip(self):
        self.needs_keystone()
        known = {e['id'] for e in self.metadata()}
        proc = subprocess.Popen(
            ['openstack', 'software', 'deployment', 'trigger', '--server',
             self.server_id, '--stack', self.stack, '--resource',
             'component', '--action', 'BACKUP', '--signal-transport',
             'HEAT_SIGNAL', '--input-value', 'target=/srv/hs', '--wait',
             '--interval', '0.5', '-f', 'json'], env=self.env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            stdin=subprocess.DEVNULL)
        try:
            entry, deadline = None, time.monotonic() + 60
            while entry is None and time.monotonic() < deadline:
                # Heat's empty config shows first, then the action's
                entry = next((e for e in self.metadata()
                              if e['id'] not in known and
                              e['group'] == 'component'), None)
                time.sleep(0.2)
            self.assertIsNotNone(entry, 'the agent saw no trigger')
            inputs = {i['name']: i.get('value') for i in entry['inputs']}
            self.assertEqual('BACKUP', inputs['deploy_action'])
            self.assertEqual('HEAT_SIGNAL', inputs['deploy_signal_transport'])
            self.assertEqual('/srv/hs', inputs['target'])
            self.assertEqual('deployment', inputs['deploy_resource_name'])
            self.assertNotIn('deploy_signal_id', inputs)
            # the stack user may sign in and signal, nothing more
            token, url = stack_user(inputs)
            status, _ = http('GET', url + '/stacks', token=token)
            self.assertEqual(403, status)
            self.assertEqual(401, heat_signal(inputs, {}, password='wrong'))
            self.assertEqual(200, heat_signal(inputs, {
                'deploy_status_code': 0, 'deploy_stdout': 'backed up',
                'deploy_stderr': '', 'archive': '/srv/hs/backup.tgz'}))
            out, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
        result = json.loads(out)
        self.triggered.append(result)
        self.assertEqual(0, proc.returncode, err)
        self.assertEqual('COMPLETE', result['status'])
        self.assertEqual('HEAT_SIGNAL', result['signal_transport'])
        self.assertEqual({'archive': '/srv/hs/backup.tgz'},
                         result['outputs'])
        self.assertRegex(result['signal'], r'^%s/stacks/deployment-BACKUP-'
                         r'[0-9a-f]{8}/[0-9a-f-]{36}/resources/deployment/'
                         r'signal$' % self.heat_url)
        self.assertNotIn(inputs['deploy_password'], err + out)
        for var in base.SERVICE_LOGS:
            with open(self.env[var], errors='replace') as f:
                self.assertNotIn(inputs['deploy_password'], f.read(), var)
        # Heat applied the answer: its deployment and its stack ended
        stored = self.deployment(result['id'])
        self.assertEqual(('COMPLETE', 'Outputs received'),
                         (stored['status'], stored['status_reason']))
        self.assertEqual('CREATE_COMPLETE',
                         self.signal_stack(result)['stack_status'])

    def test_heat_signal_failure_and_cancel(self):
        self.needs_keystone()
        # a non-zero status code: Heat fails the deployment, unwatched
        failed, _ = self.trigger('--config', self.component_id, '--action',
                                 'BACKUP', '--signal-transport',
                                 'HEAT_SIGNAL')
        self.assertEqual('IN_PROGRESS', failed['status'])
        self.assertEqual(200, self.agent_signal(failed['config_id'], {
            'deploy_status_code': 4, 'deploy_stdout': '',
            'deploy_stderr': 'tar: cannot open'}))
        stored = self.settled(failed['id'])
        self.assertEqual('FAILED', stored['status'])
        self.assertIn('non-zero status code: 4', stored['status_reason'])
        self.assertEqual('CREATE_FAILED',
                         self.signal_stack(failed)['stack_status'])

        # cancelled (triggered with --debug: no password in the log)
        code, out, err = self.run_cli(
            'software', 'deployment', 'trigger', '--debug', '--server',
            self.server_id, '--config', self.component_id, '--action',
            'BACKUP', '--signal-transport', 'HEAT_SIGNAL', '-f', 'json')
        self.assertEqual(0, code, err)
        result = json.loads(out)
        self.triggered.append(result)
        _, inputs = self.agent_inputs(result['config_id'])
        self.assertIn('deploy_password', err)
        self.assertNotIn(inputs['deploy_password'], err)
        self.assertNotIn(inputs['deploy_password'], out)
        cancelled = json.loads(self.openstack(
            'software', 'deployment', 'cancel', result['id'], '--reason',
            'window closed', '-f', 'json')[0])
        self.assertEqual('FAILED', cancelled['status'])
        late = heat_signal(inputs, {'deploy_status_code': 0,
                                    'deploy_stdout': 'late',
                                    'archive': '/late'})
        if late == 200:     # taken: wait until Heat has handled it
            self.wait_for_signal_event(result)
        stored = self.deployment(result['id'])
        self.assertEqual('FAILED', stored['status'])
        self.assertIn('window closed', stored['status_reason'])
        self.assertFalse(stored['output_values'])
        self.assertEqual('CREATE_FAILED',
                         self.signal_stack(result)['stack_status'])

    def test_heat_signal_timeout_fails_the_deployment_in_heat(self):
        """No answer within --timeout: Heat itself fails the deployment
        (the stack's timeout), whether or not anyone watches."""
        self.needs_keystone()
        result, _ = self.trigger('--config', self.component_id, '--action',
                                 'BACKUP', '--signal-transport',
                                 'HEAT_SIGNAL', '--timeout', '1')
        code, out, err = self.run_cli('software', 'deployment', 'watch',
                                      result['id'], '--timeout', '3',
                                      '-f', 'json')
        self.assertEqual(1, code, err)
        watched = json.loads(out)
        self.assertEqual('FAILED', watched['status'])
        self.assertEqual('Deployment cancelled.', watched['status_reason'])
        stack = self.signal_stack(result)
        self.assertEqual('CREATE_FAILED', stack['stack_status'])
        self.assertIn('timed out', stack['stack_status_reason'])

    def test_bad_input_is_a_clear_error_and_changes_nothing(self):
        before = self.server_deployments()
        trig = ('software', 'deployment', 'trigger', '--action', 'BACKUP')
        on_server = trig + ('--server', self.server_id)
        self.fail_with(r'--stack no-such-stack: no such stack',
                       *on_server, '--stack', 'no-such-stack',
                       '--resource', 'component')
        self.fail_with(r'--resource nope: stack %s has no such resource '
                       r'\(it has: component, deployment, server\)'
                       % self.stack, *on_server, '--stack', self.stack,
                       '--resource', 'nope')
        self.fail_with(r'--config no-such-config: no such software config',
                       *on_server, '--config', 'no-such-config')
        self.fail_with(r'--server 0000-unknown: Heat has no software '
                       r'deployments for this server', *trig, '--server',
                       '0000-unknown', '--config', self.component_id)
        self.fail_with(r'--action RESTORE: .* defines no config for it '
                       r'\(it defines: CREATE, BACKUP\)',
                       'software', 'deployment', 'trigger', '--server',
                       self.server_id, '--config', self.component_id,
                       '--action', 'RESTORE')
        self.fail_with(r'--input-value colour: the config declares no '
                       r'input colour \(declared: level, target\)',
                       *on_server, '--config', self.component_id,
                       '--input-value', 'colour=blue')
        self.fail_with(r'--input-value level=high: input level is a Number',
                       *on_server, '--config', self.component_id,
                       '--input-value', 'level=high')
        self.fail_with(r'--stack <stack> --resource <resource>, or --config',
                       *on_server, '--stack', self.stack, '--resource',
                       'component', '--config', self.component_id)
        self.fail_with(r'--resource server: a OS::Heat::DeployedServer is '
                       r'neither a software config',
                       *on_server, '--stack', self.stack, '--resource',
                       'server')
        self.fail_with(r'Software deployment 0000-none not found',
                       'software', 'deployment', 'watch', '0000-none')
        self.fail_with(r'Software deployment 0000-none not found',
                       'software', 'deployment', 'cancel', '0000-none')
        self.assertEqual(before, self.server_deployments())
