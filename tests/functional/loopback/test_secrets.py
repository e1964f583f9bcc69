"""The loopback services refuse the fixed credentials they once had.

Nothing on 127.0.0.1 may open to a password published in this
repository (whatever reaches the loopback: a validation's sandbox has
its egress proxy, a user of the machine has nothing in its way).  Each
check tries the old value (refused) and the state directory's own
(accepted: the check itself works).  Read-only: only logins.
"""

import json
import os
import subprocess
import sys
import unittest
import urllib.error
import urllib.request

from tests.functional import base

sys.path.insert(0, os.path.join(base.REPO, 'tools'))
from loopback import common  # noqa: E402
from loopback import credentials  # noqa: E402
from loopback import postgres  # noqa: E402
from loopback import rabbitmq  # noqa: E402

# what tools/loopback used before credentials.py, for every state directory
OLD_KEYSTONE = [('admin', 'Default', 'loopback-admin')] + [
    (name, 'Default', 'loopback-' + name)
    for name in ('swift', 'heat', 'mistral', 'ironic')] + [
    ('heat_domain_admin', 'heat', 'loopback-heat-domain-admin')]
OLD_DATABASES = {name: name + '-loopback'
                 for name in ('keystone', 'heat', 'mistral', 'ironic')}


class LoopbackSecretsTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.env = base.loopback_env()
        path = os.path.join(cls.env['LOOPBACK_DIR'], credentials.FILE)
        cls.secrets = {}
        if os.path.exists(path):
            with open(path) as f:
                cls.secrets = json.load(f)

    def test_secrets_file_is_private(self):
        if not self.secrets:
            self.fail('no %s in %s' % (credentials.FILE,
                                       self.env['LOOPBACK_DIR']))
        path = os.path.join(self.env['LOOPBACK_DIR'], credentials.FILE)
        self.assertEqual(0o600, os.stat(path).st_mode & 0o777)
        self.assertEqual(0o600, os.stat(
            self.env['OS_CLIENT_CONFIG_FILE']).st_mode & 0o777)

    def token_status(self, user, domain, password):
        body = {'auth': {'identity': {'methods': ['password'], 'password': {
            'user': {'name': user, 'domain': {'name': domain},
                     'password': password}}}}}
        req = urllib.request.Request(
            self.env['LOOPBACK_KEYSTONE_URL'].rstrip('/') + '/auth/tokens',
            data=json.dumps(body).encode(), method='POST',
            headers={'Content-Type': 'application/json'})
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status
        except urllib.error.HTTPError as e:
            return e.code

    def test_keystone_refuses_the_old_passwords(self):
        if not self.env.get('LOOPBACK_KEYSTONE_URL'):
            self.skipTest('the services run without Keystone')
        self.assertEqual(201, self.token_status(
            'admin', 'Default', base.admin_password(self.env)))
        for user, domain, password in OLD_KEYSTONE:
            self.assertEqual(401, self.token_status(user, domain, password),
                             user)

    def test_rabbitmq_refuses_guest(self):
        port = rabbitmq.ports()['amqp']
        if not common.tcp_accepts(port):
            self.skipTest('RabbitMQ does not run here')
        self.assertTrue(rabbitmq.amqp_login(
            port, rabbitmq.USER, self.secrets.get('rabbitmq-' +
                                                  rabbitmq.USER, '')))
        self.assertFalse(rabbitmq.amqp_login(port, 'guest', 'guest'))

    def login(self, user, password):
        """psql's exit code and message for a TCP login to Postgres."""
        env = {k: v for k, v in os.environ.items() if not k.startswith('PG')}
        env.update(PGPASSWORD=password, PGCONNECT_TIMEOUT='10')
        result = subprocess.run(
            [str(postgres.bindir() / 'psql'), '-X', '-w', '-h',
             postgres.HOST, '-p', str(postgres.port()), '-U', user,
             '-d', 'postgres', '-c', 'SELECT 1'],
            capture_output=True, text=True, env=env)
        return result.returncode, result.stderr

    def test_postgres_refuses_the_old_passwords(self):
        if not common.tcp_accepts(postgres.port()):
            self.skipTest('PostgreSQL does not run here')
        for name, old in OLD_DATABASES.items():
            # (a role that is not there fails the same way)
            code, err = self.login(name, old)
            self.assertNotEqual(0, code, name)
            self.assertIn('password authentication failed', err)
            if 'postgres-' + name in self.secrets:
                self.assertEqual(0, self.login(
                    name, self.secrets['postgres-' + name])[0], name)
        # the superuser has no password: no TCP login at all
        self.assertNotEqual(0, self.login(postgres.SUPERUSER, 'postgres')[0])
