"""The configuration's requests from the client (``workflows.config``):
only the options a command sets, the rest the protocol's defaults."""

import unittest

from tripleoplanclient import protocol
from tripleoplanclient.workflows import config


class TestRequests(unittest.TestCase):

    def test_only_the_options_set(self):
        self.assertEqual({'config': 'auto'}, config.deploy_fields())
        self.assertEqual({'config': 'none', 'tags': ['a', 'b'], 'forks': 3,
                          'config_timeout': 30},
                         config.deploy_fields('none', ('a', 'b'), forks=3,
                                              config_timeout=30))

    def test_a_download_request_the_action_reads(self):
        req = config.download_request('p', 'http://s', 'http://h', 2,
                                      ('deploy_steps_tasks',))
        self.assertEqual(req, dict(protocol.read('config_download', req),
                                   protocol=protocol.PROTOCOL))
        self.assertEqual(['deploy_steps_tasks'], req['config_type'])
        self.assertIsNone(config.download_request('p', None, None)[
            'config_type'])
