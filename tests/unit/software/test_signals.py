"""The signal object of a triggered deployment: temp URLs, their secrecy."""

import hashlib
import hmac
import io
import logging
import unittest
from urllib import parse

import requests_mock

from tests.unit import fakes
from tripleoplanclient.common import exceptions
from tripleoplanclient.software import signals


class RedactTest(unittest.TestCase):

    def test_signatures_and_keys_are_redacted(self):
        text = ('PUT http://s/v1/AUTH_a/c/o?temp_url_sig=abc123&'
                'temp_url_expires=99 -H "X-Account-Meta-Temp-URL-Key: '
                's3cret" {\'x-account-meta-temp-url-key\': \'s3cret\'}')
        clean = signals.redact(text)
        self.assertNotIn('abc123', clean)
        self.assertNotIn('s3cret', clean)
        self.assertIn('temp_url_expires=99', clean)

    def test_the_filter_rewrites_records_on_root_handlers(self):
        stream = io.StringIO()
        handler = logging.StreamHandler(stream)
        root = logging.Logger('test-root')
        root.addHandler(handler)
        signals.redact_logs(root)
        signals.redact_logs(root)
        self.assertEqual(1, len(handler.filters))
        root.warning('REQ: %s', 'http://s/o?temp_url_sig=deadbeef&x=1')
        self.assertNotIn('deadbeef', stream.getvalue())
        self.assertIn('temp_url_sig=<redacted>&x=1', stream.getvalue())

    def test_public_url(self):
        self.assertEqual('http://s/v1/AUTH_a/c/o', signals.public_url(
            'http://s/v1/AUTH_a/c/o?temp_url_sig=x&temp_url_expires=1'))


class SignalStoreTest(fakes.SoftwareTestCase):

    def test_create_sets_a_missing_key_and_signs_a_put(self):
        heads = self.m.head(fakes.SWIFT, [
            {'status_code': 204, 'headers': {}},
            {'status_code': 204, 'headers': {
                'X-Account-Meta-Temp-Url-Key': 'k3y'}}])
        post = self.m.post(fakes.SWIFT, status_code=204)
        self.m.put(fakes.SIGNALS, status_code=201)
        obj = self.m.put(requests_mock.ANY, status_code=201)
        url = self.signals.create(60)
        self.assertEqual(2, heads.call_count)
        self.assertEqual(64, len(post.last_request.headers[
            signals.KEY_HEADER]))
        self.assertEqual(b'', obj.last_request.body or b'')
        parts = parse.urlsplit(url)
        query = dict(parse.parse_qsl(parts.query))
        self.assertEqual('1060', query['temp_url_expires'])
        # Swift's tempurl middleware checks exactly this signature
        expected = hmac.new(b'k3y', ('PUT\n1060\n%s' % parts.path).encode(),
                            hashlib.sha256).hexdigest()
        self.assertEqual(expected, query['temp_url_sig'])
        self.assertTrue(url.startswith(fakes.SIGNALS + '/'))

    def test_create_keeps_an_existing_key(self):
        self.m.head(fakes.SWIFT, status_code=204,
                    headers={'X-Account-Meta-Temp-Url-Key': 'old'})
        post = self.m.post(fakes.SWIFT, status_code=204)
        self.m.put(requests_mock.ANY, status_code=201)
        self.signals.create(60)
        self.assertFalse(post.called)

    def test_a_key_swift_hides_is_a_clear_error(self):
        self.m.head(fakes.SWIFT, status_code=204, headers={})
        self.m.post(fakes.SWIFT, status_code=204)
        with self.assertRaisesRegex(exceptions.CommandError, 'NO_SIGNAL'):
            self.signals.create(60)

    def test_read_and_drop(self):
        url = fakes.SIGNALS + '/obj?temp_url_sig=x&temp_url_expires=1'
        self.m.get(fakes.SIGNALS + '/obj', [
            {'content': b''}, {'json': {'deploy_status_code': 0}},
            {'status_code': 404}])
        self.assertIsNone(self.signals.read(url))
        self.assertEqual({'deploy_status_code': 0}, self.signals.read(url))
        self.assertIsNone(self.signals.read(url))
        self.m.delete(fakes.SIGNALS + '/obj', [{'status_code': 204},
                                               {'status_code': 404}])
        self.assertTrue(self.signals.drop(url))
        self.assertFalse(self.signals.drop(url))
        # another account's object is none of our business: no request
        count = self.m.call_count
        self.assertIsNone(self.signals.read(
            'http://swift.test/v1/AUTH_other/c/o?temp_url_sig=x'))
        self.assertEqual(count, self.m.call_count)
