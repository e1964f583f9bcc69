"""A run's id against a validation's: the one rule ``validation show``
tells them apart by."""

import testtools

from tripleoplanclient.validations import results


class TestRunId(testtools.TestCase):

    def test_a_run_id_is_a_uuid_a_validation_id_is_not(self):
        for run in ('0b6c3f0e-5d2a-4c1b-9e8f-7a6d5c4b3a21',
                    '0B6C3F0E-5D2A-4C1B-9E8F-7A6D5C4B3A21'):
            self.assertTrue(results.is_run_id(run), run)
        for other in ('check-ram', 'r1', '', None,
                      '0b6c3f0e5d2a4c1b9e8f7a6d5c4b3a21',
                      '0b6c3f0e-5d2a-4c1b-9e8f-7a6d5c4b3a21x',
                      ' 0b6c3f0e-5d2a-4c1b-9e8f-7a6d5c4b3a21',
                      '0b6c3f0e-5d2a-4c1b-9e8f-7a6d5c4b3a21\n'):
            self.assertFalse(results.is_run_id(other), other)
