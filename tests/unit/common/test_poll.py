"""The one waiting loop: rounds, back-off, deadline, on a fake clock."""

import unittest

from tests.unit import fakes
from tripleoplanclient.common import poll


class TestPoll(unittest.TestCase):

    def setUp(self):
        self.clock = fakes.FakeClock()

    def make(self, timeout, interval=1.0, max_interval=None, **kwargs):
        return poll.Poll(timeout, interval, max_interval,
                         sleep=self.clock.sleep, clock=self.clock, **kwargs)

    def test_a_fixed_interval_until_the_deadline(self):
        rounds = self.make(3)
        seen = list(rounds)
        self.assertEqual([1, 2, 3, 4], seen)
        self.assertEqual([1.0, 1.0, 1.0], self.clock.sleeps)
        self.assertTrue(rounds.expired)

    def test_leaving_early_is_not_expired(self):
        rounds = self.make(10)
        for attempt in rounds:
            if attempt == 2:
                break
        self.assertFalse(rounds.expired)
        self.assertEqual([1.0], self.clock.sleeps)

    def test_quiet_rounds_double_up_to_the_maximum(self):
        rounds = self.make(30, interval=1.0, max_interval=4.0)
        for _ in rounds:
            rounds.quiet()
        self.assertEqual([1.0, 2.0, 4.0, 4.0, 4.0], self.clock.sleeps[:5])

    def test_a_busy_round_looks_again_at_once(self):
        rounds = self.make(30, interval=1.0, max_interval=8.0)
        for attempt in rounds:
            if attempt == 4:
                rounds.busy()
            elif attempt == 6:
                break
            else:
                rounds.quiet()
        self.assertEqual([1.0, 2.0, 4.0, 1.0, 1.0], self.clock.sleeps)

    def test_the_last_pause_ends_at_the_deadline(self):
        rounds = self.make(2.5, interval=1.0)
        list(rounds)
        self.assertEqual([1.0, 1.0, 0.5], self.clock.sleeps)
        self.assertEqual(2.5, self.clock.now)

    def test_min_sleep_when_the_deadline_is_near(self):
        rounds = self.make(0.01, interval=1.0, min_sleep=0.1)
        list(rounds)
        self.assertEqual([0.1], self.clock.sleeps)

    def test_a_zero_timeout_is_one_round(self):
        self.assertEqual([1], list(self.make(0)))
        self.assertEqual([], self.clock.sleeps)
