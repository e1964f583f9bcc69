"""What a command says when Keystone refuses the credentials or does not
answer: the cloud, the user, the project and what to check."""

import types
import unittest

from keystoneauth1 import exceptions as ks_exceptions

from tripleoplanclient.osc import base

AUTH_URL = 'http://keystone.test:5000/v3'


def client_manager(auth_type='password', **auth):
    auth = dict({'auth_url': AUTH_URL, 'username': 'alice',
                 'project_name': 'overcloud'}, **auth)
    return types.SimpleNamespace(_cli_options=types.SimpleNamespace(
        name='prod', config={'auth_type': auth_type, 'auth': auth}))


class TestKeystoneProblem(unittest.TestCase):

    def test_refused_credentials_name_the_cloud_and_what_to_check(self):
        exc = ks_exceptions.Unauthorized(url=AUTH_URL + '/auth/tokens',
                                         http_status=401)
        message = base.keystone_problem(client_manager(), exc)
        self.assertIn('Keystone at %s refused the credentials of cloud '
                      '"prod" (user alice, project overcloud) (HTTP 401)'
                      % AUTH_URL, message)
        self.assertIn('Check the user name, password, project', message)
        self.assertTrue(message.endswith('Nothing was changed.'))

    def test_an_expired_or_revoked_token(self):
        exc = ks_exceptions.NotFound(url=AUTH_URL + '/auth/tokens',
                                     http_status=404)
        message = base.keystone_problem(
            client_manager('v3token', username=None, token='t'), exc)
        self.assertIn('does not accept the token of cloud "prod" (user of '
                      'the token, project overcloud): it expired or was '
                      'revoked', message)

    def test_an_unreachable_keystone(self):
        exc = ks_exceptions.ConnectFailure(
            'Unable to establish connection to %s/auth/tokens' % AUTH_URL)
        self.assertIn('Keystone is unreachable at %s for cloud "prod"'
                      % AUTH_URL, base.keystone_problem(client_manager(),
                                                        exc))

    def test_other_failures_are_left_alone(self):
        swift_401 = ks_exceptions.Unauthorized(
            url='http://swift.test/v1/AUTH_p', http_status=401)
        for exc in (swift_401, ValueError('x'),
                    ks_exceptions.ConnectFailure('to http://heat.test/v1')):
            self.assertIsNone(base.keystone_problem(client_manager(), exc))
        # without Keystone there is no auth_url to blame
        self.assertIsNone(base.keystone_problem(
            client_manager('none', auth_url=None), swift_401))
