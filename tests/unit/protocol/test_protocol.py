"""Requests between the client and our actions: built once, read once."""

import unittest

from tripleoplanclient.common import exceptions
from tripleoplanclient import protocol


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


class TestActionRequests(unittest.TestCase):
    """Requests of the actions the client runs on their own."""

    def test_the_preview_request(self):
        req = protocol.read('preview', protocol.request(
            'preview', container='p', environments=['e.yaml']))
        self.assertEqual({
            'container': 'p', 'environments': ['e.yaml'], 'swift_url': None,
            'heat_url': None, 'plan_environment': None, 'tree': None,
            'unchanged': None, 'timeout': 240, 'overlay': None,
            'deleted': None, 'render': None, 'show_nested': True}, req)
        self.assertEqual('tripleoplan.preview', protocol.action('preview'))
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Bad preview request: missing '
                                    'environments'):
            protocol.read('preview', {'container': 'p',
                                      'protocol': protocol.PROTOCOL})

    def test_no_workflow_for_an_action_request(self):
        import yaml
        book = yaml.safe_load(protocol.workbook())
        self.assertNotIn('preview', book['workflows'])
        self.assertNotIn('tripleoplan.preview', protocol.workbook())
