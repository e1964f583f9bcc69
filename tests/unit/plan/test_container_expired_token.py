"""A token that expires during a long command: Swift answers 401, the
token is renewed and the write goes through. swiftclient renews it by
itself but does not send a body of bytes again, and our bulk requests
bypass its retries: both are covered here. Keystone and Swift are faked
over HTTP (requests-mock); the session and the connection are real.
"""

import unittest

from keystoneauth1.identity import v3
from keystoneauth1 import session as ks_session
import requests_mock
from swiftclient import client as swift_client

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import bulk
from tripleoplanclient.record import log
from tripleoplanclient.record import plan_store

KEYSTONE = 'http://keystone.test/v3'
SWIFT = 'http://swift.test/v1/AUTH_p1'


def token(name):
    return {'status_code': 201, 'headers': {'X-Subject-Token': name},
            'json': {'token': {
                'methods': ['password'],
                'catalog': [{'type': 'object-store', 'endpoints': [
                    {'interface': 'public', 'url': SWIFT,
                     'region_id': 'RegionOne'}]}],
                'user': {'id': 'u1', 'name': 'alice',
                         'domain': {'id': 'default'}},
                'project': {'id': 'p1', 'name': 'overcloud',
                            'domain': {'id': 'default'}},
                'expires_at': '2999-01-01T00:00:00.000000Z',
                'issued_at': '2026-01-01T00:00:00.000000Z'}}}


class TestExpiredToken(unittest.TestCase):

    def setUp(self):
        super().setUp()
        self.m = requests_mock.Mocker()
        self.m.start()
        self.addCleanup(self.m.stop)
        self.m.post(KEYSTONE + '/auth/tokens', [token('tok1'),
                                                token('tok2')])
        session = ks_session.Session(auth=v3.Password(
            auth_url=KEYSTONE, username='alice', password='pw',
            user_domain_id='default', project_id='p1'))
        self.conn = swift_client.Connection(
            session=session, retries=0,
            os_options={'object_storage_url': SWIFT})
        self.store = plan_store.PlanStore(lambda: self.conn)

    def tokens(self, mocked):
        return [r.headers['X-Auth-Token'].decode()
                if isinstance(r.headers['X-Auth-Token'], bytes)
                else r.headers['X-Auth-Token']
                for r in mocked.request_history]

    def test_a_write_of_bytes_goes_through_with_a_new_token(self):
        put = self.m.put(SWIFT + '/p/' + log.outcome_path('abc'), [
            {'status_code': 401}, {'status_code': 201}])
        self.m.get(SWIFT + '/p/' + log.PATH, status_code=404)
        self.store.writer.write_outcome('p', 'abc', {'status': 'SUCCESS'})
        self.assertEqual(['tok1', 'tok2'], self.tokens(put))
        first, second = [r.body for r in put.request_history]
        self.assertEqual(first, second)
        self.assertIn(b'SUCCESS', second)

    def test_a_bulk_upload_goes_through_with_a_new_token(self):
        self.conn.get_auth()
        upload = self.m.put(SWIFT + '/p?extract-archive=tar', [
            {'status_code': 401},
            {'status_code': 200, 'json': {
                'Response Status': '201 Created', 'Errors': [],
                'Number Files Created': 1}}])
        self.assertEqual([], bulk.extract_archive(self.conn, 'p',
                                                  {'a.yaml': b'1'}))
        self.assertEqual(['tok1', 'tok2'], self.tokens(upload))

    def test_a_token_refused_again_is_a_clear_error(self):
        self.conn.get_auth()
        upload = self.m.put(SWIFT + '/p?extract-archive=tar',
                            status_code=401)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Swift refused the token.*HTTP 401'):
            bulk.extract_archive(self.conn, 'p', {'a.yaml': b'1'})
        self.assertEqual(['tok1', 'tok2'], self.tokens(upload))
