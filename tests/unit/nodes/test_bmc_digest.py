"""nodes/bmc_digest.py: a password's digest tells the same password from
another, never holds it, and differs from node to node (its salt)."""

import unittest

from tripleoplanclient.nodes import bmc_digest


class TestDigest(unittest.TestCase):

    def test_same_and_other(self):
        recorded = bmc_digest.digest({'ipmi_password': 'calvin'})
        self.assertNotIn('calvin', recorded)
        self.assertTrue(bmc_digest.same(recorded,
                                        {'ipmi_password': 'calvin'}))
        self.assertFalse(bmc_digest.same(recorded,
                                         {'ipmi_password': 'calvin2'}))
        # the key is part of it: another driver's password is another
        self.assertFalse(bmc_digest.same(recorded,
                                         {'ilo_password': 'calvin'}))

    def test_a_salt_of_its_own(self):
        one = bmc_digest.digest({'ipmi_password': 'calvin'})
        two = bmc_digest.digest({'ipmi_password': 'calvin'})
        self.assertNotEqual(one, two)
        self.assertTrue(bmc_digest.same(two, {'ipmi_password': 'calvin'}))

    def test_what_is_no_digest_of_ours_tells_nothing(self):
        for recorded in (None, 'x', 'md5$00$11', 'scrypt$zz$00',
                         'scrypt$0011$00', 42):
            self.assertIsNone(bmc_digest.same(recorded, {'p': 'x'}))
