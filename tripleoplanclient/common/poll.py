"""Waiting for something that takes a while: one loop, with a deadline.

``Poll`` is iterated by the caller, who looks at the service once per
round and leaves the loop when done. Between rounds it sleeps, doubling
the pause while nothing happens (``quiet()``), back to the start once
something did (``busy()``). Sleep and clock are injectable, so tests wait
no real time.
"""

import time


class Poll:
    """Rounds until ``timeout`` seconds passed.

    Each round is yielded first and the deadline looked at after it, so the
    last round happens at (or just after) the deadline; ``expired`` tells a
    loop that ended that way. The pause never overshoots the deadline by
    more than ``min_sleep``.
    """

    def __init__(self, timeout, interval=1.0, max_interval=None,
                 sleep=time.sleep, clock=time.monotonic, min_sleep=0.0):
        self._start_interval = interval
        self._interval = interval
        self._max = interval if max_interval is None else max_interval
        self._sleep = sleep
        self._clock = clock
        self._min_sleep = min_sleep
        self.deadline = clock() + timeout
        self.expired = False
        self.rounds = 0

    def remaining(self):
        return max(self.deadline - self._clock(), 0.0)

    def quiet(self):
        """Nothing happened in this round: wait longer before the next."""
        self._next = min(self._interval * 2, self._max)

    def busy(self):
        """Something happened: look again soon."""
        self._interval = self._next = self._start_interval

    def __iter__(self):
        while True:
            self._next = self._interval
            self.rounds += 1
            yield self.rounds
            if self._clock() >= self.deadline:
                self.expired = True
                return
            self._sleep(min(self._interval,
                            max(self.remaining(), self._min_sleep)))
            self._interval = self._next
