"""Swift refusing a write for the caller's role (a reader) says so, for
single requests and for bulk ones, whose refusals come per object."""

import unittest

import requests_mock
from swiftclient import client as swift_client

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import bulk
from tripleoplanclient.record import log
from tripleoplanclient.record import plan_store

SWIFT = 'http://swift.test/v1/AUTH_p1'
NOT_ALLOWED = r'Swift refused %s on plan p \(HTTP 403\): not allowed'


class TestNotAllowed(unittest.TestCase):

    def setUp(self):
        super().setUp()
        self.m = requests_mock.Mocker()
        self.m.start()
        self.addCleanup(self.m.stop)
        self.conn = swift_client.Connection(preauthurl=SWIFT,
                                            preauthtoken='reader-token',
                                            retries=0)

    def test_a_single_write(self):
        self.m.put(SWIFT + '/p/' + log.outcome_path('o'), status_code=403)
        store = plan_store.PlanStore(lambda: self.conn)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    NOT_ALLOWED % 'put object'):
            store.writer.write_outcome('p', 'o', {'status': 'SUCCESS'})

    def test_a_bulk_upload(self):
        self.m.put(SWIFT + '/p?extract-archive=tar', json={
            'Response Status': '403 Forbidden', 'Errors': [],
            'Number Files Created': 0})
        with self.assertRaisesRegex(exceptions.CommandError,
                                    NOT_ALLOWED % 'the upload'):
            bulk.extract_archive(self.conn, 'p', {'a.yaml': b'1'})

    def test_a_bulk_delete_refused_object_by_object(self):
        self.m.post(SWIFT + '?bulk-delete', json={
            'Response Status': '400 Bad Request', 'Number Deleted': 0,
            'Errors': [['/p/a.yaml', '403 Forbidden'],
                       ['/p/b.yaml', '403 Forbidden']]})
        with self.assertRaisesRegex(exceptions.CommandError,
                                    NOT_ALLOWED % 'the deletion'):
            bulk.delete(self.conn, 'p', ['a.yaml', 'b.yaml'])

    def test_other_refusals_keep_their_own_message(self):
        self.m.post(SWIFT + '?bulk-delete', json={
            'Response Status': '400 Bad Request', 'Number Deleted': 1,
            'Errors': [['/p/a.yaml', '409 Conflict']]})
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'could not delete 1 objects'):
            bulk.delete(self.conn, 'p', ['a.yaml', 'b.yaml'])
