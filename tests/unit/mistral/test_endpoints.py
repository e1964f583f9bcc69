"""Which endpoints the actions call: never one a request makes up."""

import types
import unittest

from oslo_config import cfg

from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import endpoints

SWIFT = 'http://127.0.0.1:8080/v1/AUTH_tripleo'


def context(catalog=None):
    return types.SimpleNamespace(security=types.SimpleNamespace(
        service_catalog=catalog, auth_token='t'))


CATALOG = [{'type': 'object-store', 'endpoints': [
    {'interface': 'public', 'url': 'https://swift.example/v1/AUTH_p1'},
    {'interface': 'internal', 'url': 'http://10.0.0.1:8080/v1/AUTH_p1'}]},
    {'type': 'orchestration', 'endpoints': [
        {'interface': 'public', 'url': 'https://heat.example/v1/p1'}]}]


class TestChoose(unittest.TestCase):

    def test_the_request_chooses_among_the_configured_ones(self):
        allowed = [SWIFT, 'http://127.0.0.1:28080/v1/AUTH_tripleo']
        self.assertEqual(SWIFT, endpoints.choose(
            context(), None, 'object-store', allowed))
        self.assertEqual(allowed[1], endpoints.choose(
            context(), allowed[1] + '/', 'object-store', allowed))

    def test_the_catalog_from_the_token_is_allowed(self):
        self.assertEqual(
            'http://10.0.0.1:8080/v1/AUTH_p1',
            endpoints.choose(context(CATALOG),
                             'http://10.0.0.1:8080/v1/AUTH_p1',
                             'object-store', []))
        self.assertEqual('https://heat.example/v1/p1', endpoints.choose(
            context(CATALOG), None, 'orchestration', []))

    def test_any_other_url_is_refused(self):
        # The finding of issue 13: the input named a host of its choice,
        # and the action called it with the caller's token.
        for url in ('http://attacker.example/v1/AUTH_tripleo',
                    SWIFT.replace('AUTH_tripleo', 'AUTH_other'),
                    SWIFT + '/../AUTH_other', 'https://swift.example/v1'):
            with self.assertRaisesRegex(exceptions.CommandError,
                                        'not one the tripleoplan actions'):
                endpoints.choose(context(CATALOG), url, 'object-store',
                                 [SWIFT])

    def test_without_catalog_or_configuration_it_says_what_to_set(self):
        with self.assertRaisesRegex(exceptions.CommandError,
                                    r'\[tripleoplan\] heat_urls'):
            endpoints.choose(context(), None, 'orchestration', [])

    def test_the_configuration_is_mistral_conf(self):
        endpoints.choose(context(CATALOG), None, 'object-store')  # registers
        cfg.CONF.set_override('swift_urls', [SWIFT], group='tripleoplan')
        self.addCleanup(cfg.CONF.clear_override, 'swift_urls',
                        group='tripleoplan')
        self.assertEqual(SWIFT, endpoints.choose(
            context(), SWIFT, 'object-store'))
