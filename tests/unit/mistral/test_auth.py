"""Who the actions act as: the caller's token at once, a trust later.

Keystone is faked over HTTP (requests-mock); the configuration is a real
oslo.config object with Mistral's ``[keystone_authtoken]`` options.
"""

import json
import os
import tempfile
import types
import unittest

from keystoneauth1 import loading
from oslo_config import cfg
import requests_mock

from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import auth

KEYSTONE = 'http://keystone.test:5000/v3'
USER = {'id': 'u1', 'name': 'alice', 'domain': {'id': 'default'}}
PROJECT = {'id': 'p1', 'name': 'overcloud', 'domain': {'id': 'default'}}
CATALOG = [
    {'type': 'identity', 'endpoints': [
        {'interface': 'internal', 'url': 'http://10.0.0.1:5000/v3'},
        {'interface': 'public', 'url': KEYSTONE}]},
    {'type': 'object-store', 'endpoints': [
        {'interface': 'public', 'url': 'http://swift.test/v1/AUTH_p1'}]}]
TOKEN_BODY = {'token': {'user': USER, 'project': PROJECT,
                        'roles': [{'id': 'r1', 'name': 'member'},
                                  {'id': 'r2', 'name': 'reader'}],
                        'catalog': CATALOG}}


def context(catalog=TOKEN_BODY, token='user-token', is_target=False,
            execution=None):
    return types.SimpleNamespace(security=types.SimpleNamespace(
        auth_token=token, service_catalog=catalog, project_id='p1',
        project_name=None, user_name=None, is_target=is_target),
        execution=types.SimpleNamespace(workflow_execution_id=execution))


def conf(password='secret'):
    """Mistral's configuration: a real oslo.config object read from a
    file, the plugin's options registered when they are loaded."""
    with tempfile.NamedTemporaryFile('w', suffix='.conf',
                                     delete=False) as f:
        f.write('[keystone_authtoken]\nauth_type = password\n'
                'auth_url = %s\nusername = mistral\npassword = %s\n'
                'project_name = service\nuser_domain_id = default\n'
                'project_domain_id = default\n' % (KEYSTONE, password))
    c = cfg.ConfigOpts()
    loading.register_auth_conf_options(c, 'keystone_authtoken')
    c(['--config-file', f.name])
    os.unlink(f.name)
    return c


def token_response(user, project, trust_id=None):
    body = {'token': {'user': user, 'project': project, 'catalog': [],
                      'methods': ['password'], 'roles': [],
                      'expires_at': '2999-01-01T00:00:00.000000Z',
                      'issued_at': '2026-01-01T00:00:00.000000Z'}}
    if trust_id:
        body['token']['OS-TRUST:trust'] = {'id': trust_id,
                                           'impersonation': True}
    return {'status_code': 201, 'json': body,
            'headers': {'X-Subject-Token': 'tok-%s' % (trust_id or 'svc')}}


class TestCaller(unittest.TestCase):

    def test_the_identity_comes_from_the_token_keystone_described(self):
        caller = auth.Caller(context())
        self.assertTrue(caller.keystone)
        self.assertEqual(('u1', 'alice', 'p1', 'overcloud'), (
            caller.user_id, caller.user, caller.project_id, caller.project))
        self.assertEqual(['member', 'reader'], caller.roles)
        self.assertEqual({'user': 'alice', 'project': 'overcloud'},
                         caller.actor())

    def test_a_catalog_as_json_text_or_a_bare_list_is_read(self):
        self.assertEqual('alice', auth.Caller(
            context(json.dumps(TOKEN_BODY))).user)
        bare = auth.Caller(context(CATALOG))
        self.assertFalse(bare.keystone)
        self.assertEqual(['http://swift.test/v1/AUTH_p1'],
                         bare.endpoints('object-store'))

    def test_a_target_context_is_refused(self):
        # Mistral builds it from the caller's X-Target-* headers: user,
        # project and catalog are whatever the caller wrote
        forged = {'token': dict(TOKEN_BODY['token'], catalog=[
            {'type': 'object-store', 'endpoints': [
                {'interface': 'public', 'url': 'http://127.0.0.1:9/v1'}]}])}
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'X-Target-\\* headers'):
            auth.Caller(context(forged, is_target=True))

    def test_public_endpoints_come_first(self):
        self.assertEqual([KEYSTONE, 'http://10.0.0.1:5000/v3'],
                         auth.Caller(context()).endpoints('identity'))

    def test_without_keystone_nobody_is_known_and_no_trust_is_made(self):
        caller = auth.Caller(types.SimpleNamespace(security=None))
        self.assertFalse(caller.keystone)
        self.assertIsNone(caller.actor())
        self.assertIsNone(auth.open_trust(caller, 10, conf()))
        auth.close_trust(caller, 'anything', conf())   # no request at all


class TestTrust(unittest.TestCase):

    def setUp(self):
        super().setUp()
        self.m = requests_mock.Mocker()
        self.m.start()
        self.addCleanup(self.m.stop)
        self.m.get(KEYSTONE, json={'version': {
            'id': 'v3.14', 'status': 'stable',
            'links': [{'rel': 'self', 'href': KEYSTONE + '/'}]}})
        self.conf = conf()

    def test_the_trust_is_the_callers_to_mistral_with_its_roles(self):
        self.m.post(KEYSTONE + '/auth/tokens', **token_response(
            {'id': 'mistral-id', 'name': 'mistral'},
            {'id': 'svc', 'name': 'service'}))
        made = self.m.post(KEYSTONE + '/OS-TRUST/trusts', status_code=201,
                           json={'trust': {'id': 'tr1'}})
        self.assertEqual('tr1', auth.open_trust(
            auth.Caller(context()), 240, self.conf))
        sent = made.last_request
        self.assertEqual('user-token', sent.headers['X-Auth-Token'])
        trust = sent.json()['trust']
        self.assertEqual({
            'trustor_user_id': 'u1', 'trustee_user_id': 'mistral-id',
            'project_id': 'p1', 'impersonation': True,
            'roles': [{'name': 'member'}, {'name': 'reader'}]},
            {k: v for k, v in trust.items() if k != 'expires_at'})
        self.assertIn('expires_at', trust)

    def test_the_service_user_signs_in_once_for_many_trusts(self):
        tokens = self.m.post(KEYSTONE + '/auth/tokens', **token_response(
            {'id': 'mistral-id', 'name': 'mistral'},
            {'id': 'svc', 'name': 'service'}))
        made = self.m.post(KEYSTONE + '/OS-TRUST/trusts', status_code=201,
                           json={'trust': {'id': 'tr1'}})
        for _ in range(3):
            auth.open_trust(auth.Caller(context()), 240, self.conf)
        self.assertEqual(3, made.call_count)
        self.assertEqual(1, tokens.call_count)
        # another configuration: its own service user
        auth.open_trust(auth.Caller(context()), 240, conf())
        self.assertEqual(2, tokens.call_count)

    def test_a_refused_trust_is_a_clear_error(self):
        self.m.post(KEYSTONE + '/auth/tokens', **token_response(
            {'id': 'mistral-id', 'name': 'mistral'},
            {'id': 'svc', 'name': 'service'}))
        self.m.post(KEYSTONE + '/OS-TRUST/trusts', status_code=401,
                    json={'error': {'message': 'expired'}})
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'user alice in project overcloud: '
                                    'HTTP 401: expired'):
            auth.open_trust(auth.Caller(context()), 240, self.conf)

    def test_two_trusts_of_the_same_moment_get_apart(self):
        # Keystone's 409 for a trust like another (same expiry too)
        self.m.post(KEYSTONE + '/auth/tokens', **token_response(
            {'id': 'mistral-id', 'name': 'mistral'},
            {'id': 'svc', 'name': 'service'}))
        made = self.m.post(KEYSTONE + '/OS-TRUST/trusts', [
            {'status_code': 409, 'json': {'error': {'message': 'dup'}}},
            {'status_code': 201, 'json': {'trust': {'id': 'tr2'}}}])
        self.assertEqual('tr2', auth.open_trust(
            auth.Caller(context()), 240, self.conf))
        first, second = [r.json()['trust']['expires_at']
                         for r in made.request_history]
        self.assertNotEqual(first, second)

    def test_a_trust_of_someone_else_is_refused(self):
        # Keystone makes the trust's token for its trustor: not the caller
        self.m.post(KEYSTONE + '/auth/tokens', **token_response(
            {'id': 'u2', 'name': 'bob'}, {'id': 'p2', 'name': 'other'},
            trust_id='tr-bob'))
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'not one of this caller'):
            auth.trust_session(auth.Caller(context()), 'tr-bob', self.conf)

    def test_the_callers_trust_gives_a_session_and_is_deleted_at_the_end(
            self):
        got = self.m.post(KEYSTONE + '/auth/tokens', **token_response(
            USER, PROJECT, trust_id='tr1'))
        gone = self.m.delete(KEYSTONE + '/OS-TRUST/trusts/tr1',
                             status_code=204)
        caller = auth.Caller(context())
        sess = auth.trust_session(caller, 'tr1', self.conf)
        self.assertEqual('tok-tr1', sess.get_token())
        scope = got.last_request.json()['auth']['scope']
        self.assertEqual({'OS-TRUST:trust': {'id': 'tr1'}}, scope)
        auth.close_trust(caller, 'tr1', self.conf)
        self.assertTrue(gone.called)
        self.assertEqual('tok-tr1', gone.last_request.headers['X-Auth-Token'])
        self.assertEqual(2, got.call_count)
        # with the follow task's session: no new sign-in
        auth.close_trust(caller, 'tr1', self.conf, session=sess)
        self.assertEqual(2, gone.call_count)
        self.assertEqual(2, got.call_count)

    def test_a_trust_that_cannot_be_deleted_is_left_to_expire(self):
        self.m.post(KEYSTONE + '/auth/tokens', status_code=404,
                    json={'error': {'message': 'gone'}})
        with self.assertLogs('tripleoplanclient.mistral.auth', 'INFO') as log:
            auth.close_trust(auth.Caller(context()), 'tr1', self.conf)
        self.assertIn('left to expire', log.output[0])


class TestSealedTrust(unittest.TestCase):
    """The deploy task publishes its trust sealed for its own workflow
    execution: no reader learns the id, no other execution can use it."""

    def setUp(self):
        super().setUp()
        self.conf = conf()
        self.caller = auth.Caller(context(execution='wf1'))

    def test_the_id_is_not_readable_and_opens_for_its_execution(self):
        sealed = auth.seal_trust(self.caller, 'tr-secret-1', 'wf1',
                                 self.conf)
        self.assertNotIn('tr-secret-1', sealed)
        self.assertEqual('tr-secret-1', auth.unseal_trust(
            self.caller, sealed, 'wf1', self.conf))

    def test_another_execution_or_an_action_of_its_own_is_refused(self):
        sealed = auth.seal_trust(self.caller, 'tr1', 'wf1', self.conf)
        for execution in ('wf2', None, ''):
            with self.assertRaisesRegex(exceptions.CommandError,
                                        'another workflow execution'):
                auth.unseal_trust(self.caller, sealed, execution, self.conf)

    def test_another_caller_is_refused(self):
        sealed = auth.seal_trust(self.caller, 'tr1', 'wf1', self.conf)
        bob = auth.Caller(context({'token': dict(
            TOKEN_BODY['token'], user={'id': 'u2', 'name': 'bob'})}))
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'another workflow execution or caller'):
            auth.unseal_trust(bob, sealed, 'wf1', self.conf)

    def test_a_trust_id_or_a_seal_of_another_key_is_refused(self):
        other = conf(password='another-secret')
        for sealed in ('tr1', '', auth.seal_trust(self.caller, 'tr1', 'wf1',
                                                  other)):
            with self.assertRaisesRegex(exceptions.CommandError,
                                        'not sealed by this Mistral'):
                auth.unseal_trust(self.caller, sealed, 'wf1', self.conf)
