"""Nodes on a fake Ironic of the test's own, our client over a session that
counts the requests in flight, a clock the test moves, and the rounds of
a follow (``states.follow``, ``inspection.follow``) until the nodes are
done.
"""

import threading
import time

from keystoneauth1 import noauth
from keystoneauth1 import session as ksa_session

from tests.unit.nodes import fake_ironic
from tripleoplanclient.nodes import ironic
from tripleoplanclient.nodes import states


class CountingSession(ksa_session.Session):
    """A session that notes the most requests in flight at once (each
    takes a little while, as over a network)."""

    def __init__(self):
        super().__init__(auth=noauth.NoAuth())
        self.lock = threading.Lock()
        self.now = self.most = 0

    def request(self, *args, **kwargs):
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        try:
            time.sleep(0.01)
            return super().request(*args, **kwargs)
        finally:
            with self.lock:
                self.now -= 1


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


class StatesTestCase(fake_ironic.TestCase):

    def setUp(self):
        super().setUp()
        self.session = CountingSession()
        self.ironic = ironic.Ironic(self.session, fake_ironic.URL)
        self.clock = Clock()

    def nodes(self, count, **fields):
        return [self.fake.add_node(name='n%d' % i, **fields)
                for i in range(count)]

    def run_to_end(self, started, rounds=20, follow=states.follow):
        def listings():
            return sum(1 for r in self.fake.log
                       if (r.method, r.path) == ('GET', '/v1/nodes'))

        for _ in range(rounds):
            before = listings()
            found = follow(self.ironic, started, self.clock)
            # one listing a round, whatever the number of nodes
            self.assertEqual(1, listings() - before)
            if found['done']:
                return found
            self.clock.now += 2
        self.fail('not done in %d rounds' % rounds)

    def by_name(self, found):
        return {r['name']: r for r in found['nodes']}
