"""A validation run's secret extra vars, sealed for their caller: no
reader of the seal learns them, only the caller's run opens them."""

import types
import unittest

from tests.unit import fakes
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import auth


class TestSealedSecrets(unittest.TestCase):

    def setUp(self):
        super().setUp()
        self.sealer = fakes.sealer()

    def test_the_values_are_not_readable_and_open_for_their_caller(self):
        sealed = self.sealer.seal({'db_password': 'hunter2-sekrit'})
        self.assertNotIn('hunter2', sealed)
        self.assertEqual({'db_password': 'hunter2-sekrit'},
                         self.sealer.unseal(sealed))

    def test_another_caller_or_another_key_is_refused(self):
        sealed = self.sealer.seal({'a_token': 't'})
        bob = auth.Sealer(types.SimpleNamespace(user_id='u2',
                                                project_id='p1'),
                          self.sealer.conf)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'sealed for another caller'):
            bob.unseal(sealed)
        other = fakes.sealer(password='another-secret')
        for seal in (sealed, 'not a seal', None):
            with self.assertRaisesRegex(exceptions.CommandError,
                                        'not sealed by this Mistral'):
                other.unseal(seal)
