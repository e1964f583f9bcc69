"""Issue 13: ``software deployment watch / cancel`` follow only the signal
URLs ``trigger`` makes, and bad ``--timeout`` / ``--interval`` values
create nothing (loopback Heat and Swift).

A foreign signal URL is planted the way anyone with access to Heat's API
could: a software config whose ``deploy_signal_id`` names a decoy object
(a plan's record), reached directly, through ``..`` or through
percent-encoded separators, and an IN_PROGRESS deployment of it.
"""

import json
import re
import time
import urllib.request
import uuid

from tests.functional import base
from tests.functional.base import http
from tripleoplanclient.software import signals

SECRET = 'f00dfeed' * 8
RECORD = 'user-environments/environments.yaml'


class TestHardeningSignals(base.FunctionalTest):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.heat_url = cls.env['LOOPBACK_HEAT_URL'].rstrip('/')
        cls.swift_url = cls.env['LOOPBACK_SWIFT_URL'].rstrip('/')
        # No stack: Heat keeps deployments of any server id
        cls.server_id = str(uuid.uuid4())
        cls.configs, cls.deployments = [], []
        cls.decoy = 'hard-%s' % uuid.uuid4().hex[:8]
        # The answer old code would have applied from the decoy
        cls.decoy_body = json.dumps({'deploy_status_code': 0,
                                     'deploy_stdout': 'decoy'}).encode()
        status, _, _ = cls.swift.request('PUT', cls.decoy)
        assert status in (201, 202), status
        status, _, _ = cls.swift.request('PUT', '%s/%s' % (cls.decoy, RECORD),
                                         data=cls.decoy_body)
        assert status == 201, status
        # A plain config the trigger can run on this server
        cls.script = cls.create_config('hard-script', [])
        cls.create_deployment(cls.script, 'COMPLETE')

    @classmethod
    def tearDownClass(cls):
        try:
            for deployment_id in cls.deployments:
                http('DELETE', '%s/software_deployments/%s' % (
                    cls.heat_url, deployment_id))
            for config_id in cls.configs:
                http('DELETE', '%s/software_configs/%s' % (
                    cls.heat_url, config_id))
            cls.swift.request('DELETE', '%s/%s' % (cls.decoy, RECORD))
            cls.swift.request('DELETE', cls.decoy)
        finally:
            super().tearDownClass()

    # -- helpers ---------------------------------------------------------

    @classmethod
    def create_config(cls, name, inputs):
        status, body = http('POST', cls.heat_url + '/software_configs', {
            'name': name, 'group': 'script', 'config': 'echo hi',
            'inputs': inputs, 'outputs': [], 'options': {}})
        assert status == 200, body
        config_id = json.loads(body)['software_config']['id']
        cls.configs.append(config_id)
        return config_id

    @classmethod
    def create_deployment(cls, config_id, status='IN_PROGRESS'):
        code, body = http('POST', cls.heat_url + '/software_deployments', {
            'config_id': config_id, 'server_id': cls.server_id,
            'action': 'BACKUP', 'status': status,
            'status_reason': 'planted', 'input_values': {}})
        assert code == 200, body
        deployment_id = json.loads(body)['software_deployment']['id']
        cls.deployments.append(deployment_id)
        return deployment_id

    def planted(self, url):
        """An IN_PROGRESS deployment whose config signals to ``url``."""
        config_id = self.create_config('hard-foreign', [
            {'name': 'deploy_signal_transport', 'value': 'TEMP_URL_SIGNAL'},
            {'name': 'deploy_signal_id', 'value': url}])
        return self.create_deployment(config_id)

    def deployment(self, deployment_id):
        status, body = http('GET', '%s/software_deployments/%s' % (
            self.heat_url, deployment_id))
        self.assertEqual(200, status, body)
        return json.loads(body)['software_deployment']

    def signal_objects(self):
        return self.swift.listing(signals.CONTAINER) or {}

    def unclaimed(self, names):
        """Those of the signal objects ``names`` that no deployment's
        config names: left behind."""
        _, body = http('GET', self.heat_url + '/software_deployments')
        claimed = set()
        for deployment in json.loads(body)['software_deployments']:
            status, body = http('GET', '%s/software_configs/%s' % (
                self.heat_url, deployment['config_id']))
            if status == 404:
                continue        # another test's, deleted meanwhile
            for item in json.loads(body)['software_config']['inputs']:
                if item['name'] == 'deploy_signal_id' and \
                        isinstance(item.get('value'), str):
                    claimed.add(item['value'].split('?')[0].rsplit('/')[-1])
        return set(names) - claimed

    def server_deployments(self):
        _, body = http('GET', '%s/software_deployments?server_id=%s' % (
            self.heat_url, self.server_id))
        return sorted(d['id'] for d in json.loads(body)[
            'software_deployments'])

    def foreign_urls(self):
        signed = '?temp_url_sig=%s&temp_url_expires=9999999999' % SECRET
        decoy = '%s/%s' % (self.decoy, RECORD)
        encoded = urllib.request.quote(decoy, safe='')
        host = re.sub(r'//[^/]+', '//127.0.0.9:1', self.swift_url, 1)
        return [
            '%s/%s%s' % (self.swift_url, decoy, signed),
            '%s/%s/../%s%s' % (self.swift_url, signals.CONTAINER, decoy,
                               signed),
            '%s/%s/%%2e%%2e%%2f%s%s' % (self.swift_url, signals.CONTAINER,
                                        encoded, signed),
            '%s/%s/..%%2f%s' % (self.swift_url, signals.CONTAINER, encoded),
            '%s/../AUTH_other/c/%s%s' % (self.swift_url, 'a' * 32, signed),
            '%s/%s/%s%s' % (host, signals.CONTAINER, 'a' * 32, signed),
        ]

    def assert_untouched(self, deployment_id):
        stored = self.deployment(deployment_id)
        self.assertEqual('IN_PROGRESS', stored['status'])
        self.assertEqual('planted', stored['status_reason'])
        self.assertEqual(self.decoy_body, self.swift.get(self.decoy, RECORD))

    def refused(self, deployment_id, url, *command):
        err = self.fail_with(
            r'Deployment %s: its signal URL %s is not one .*nothing was '
            r'read or deleted' % (deployment_id, re.escape(
                signals.public_url(url))), *command)
        self.assertNotIn(SECRET, err)
        self.assertNotIn('Traceback', err)
        self.assert_untouched(deployment_id)

    # -- cases -----------------------------------------------------------

    def test_cancel_refuses_a_foreign_signal_url(self):
        for url in self.foreign_urls():
            deployment_id = self.planted(url)
            self.refused(deployment_id, url, 'software', 'deployment',
                         'cancel', deployment_id, '--reason', 'x')

    def test_watch_refuses_a_foreign_signal_url(self):
        for url in self.foreign_urls():
            deployment_id = self.planted(url)
            self.refused(deployment_id, url, 'software', 'deployment',
                         'watch', deployment_id, '--timeout', '0.05',
                         '--interval', '0.5')

    def test_a_signal_the_trigger_made_is_still_followed(self):
        out, _ = self.openstack(
            'software', 'deployment', 'trigger', '--server', self.server_id,
            '--config', self.script, '--action', 'BACKUP', '-f', 'json')
        result = json.loads(out)
        self.deployments.append(result['id'])
        self.configs.append(result['config_id'])
        name = result['signal'].rsplit('/', 1)[1]
        self.assertIn(name, self.signal_objects())
        out, _ = self.openstack('software', 'deployment', 'cancel',
                                result['id'], '-f', 'json')
        self.assertEqual('FAILED', json.loads(out)['status'])
        self.assertNotIn(name, self.signal_objects())

    def test_bad_timeout_or_interval_creates_nothing(self):
        before = (self.server_deployments(), self.signal_objects())
        trigger = ('software', 'deployment', 'trigger', '--server',
                   self.server_id, '--config', self.script, '--action',
                   'BACKUP', '--wait')
        for option, value in (('--timeout', 'nan'), ('--timeout', 'inf'),
                              ('--timeout', '0'), ('--timeout', '1e308'),
                              ('--interval', 'nan'), ('--interval', '-1'),
                              ('--interval', '0')):
            self.fail_with(r'argument %s: %r: give a number of'
                           % (option, value), *trigger,
                           '%s=%s' % (option, value))
            self.fail_with(r'argument %s: %r: give a number of'
                           % (option, value), 'software', 'deployment',
                           'watch', self.server_deployments()[0],
                           '%s=%s' % (option, value))
        self.assertEqual(before[0], self.server_deployments())
        # Other tests may trigger meanwhile: their objects are claimed by a
        # deployment within seconds (or gone with it); one this test left
        # stays, unclaimed, however long we look
        new = set(self.signal_objects()) - set(before[1])
        deadline = time.monotonic() + 60
        while new:
            new = self.unclaimed(new & set(self.signal_objects()))
            if not new or time.monotonic() > deadline:
                break
            time.sleep(2)
        self.assertEqual(set(), new)
