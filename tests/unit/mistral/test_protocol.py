"""Requests between the client and our actions: built once, read once."""

import unittest

from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import protocol


class TestRequests(unittest.TestCase):

    def test_a_request_carries_every_field_and_the_protocol(self):
        req = protocol.request('deploy', container='p', environments=['e'])
        self.assertEqual(protocol.PROTOCOL, req['protocol'])
        self.assertEqual(
            set(protocol.WORKFLOWS['deploy'][2]) | {'protocol'}, set(req))
        self.assertEqual(240, req['timeout'])

    def test_the_client_cannot_send_an_unknown_field(self):
        with self.assertRaisesRegex(TypeError, 'unknown field.*colour'):
            protocol.request('render', container='p', colour='red')

    def test_read_fills_defaults_and_drops_the_protocol(self):
        req = protocol.read('render', {'container': 'p',
                                       'protocol': protocol.PROTOCOL})
        self.assertEqual({'container': 'p', 'swift_url': None,
                          'roles_data': None, 'network_data': None,
                          'tree': None}, req)

    def test_read_refuses_another_protocol(self):
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'protocol %d, the client protocol 2'
                                    % protocol.PROTOCOL):
            protocol.read('render', {'container': 'p', 'protocol': 2})

    def test_read_names_unknown_and_missing_fields(self):
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'unknown colour; missing container'):
            protocol.read('render', {'colour': 'red',
                                     'protocol': protocol.PROTOCOL})

    def test_an_empty_environment_list_is_given(self):
        req = protocol.read('deploy', protocol.request(
            'deploy', container='p', environments=[]))
        self.assertEqual([], req['environments'])
