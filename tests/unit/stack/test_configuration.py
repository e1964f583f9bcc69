"""The client following a step's configuration (``stack.configuration``):
each progress object read once, in order, the step's end from its final
outcome, a timeout when the workflow records none in time."""

from tests.unit import fakes
from tripleoplanclient.record import configs
from tripleoplanclient.stack import configuration

STEP = '0123456789ab'


class TestFollow(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.swift = fakes.FakeSwift(self.m)
        self.store = fakes.plan_store()
        self.lines = []
        self.clock = fakes.FakeClock()

    def batch(self, seq, *tasks):
        self.swift.store(configs.progress_path(STEP, seq), configs.dump_events(
            [{'host': 'c-0', 'task': t, 'status': 'ok'} for t in tasks]))

    def follower(self):
        return configuration.ConfigFollower(
            self.store, self.lines.append, sleep=self.sleep,
            clock=self.clock)

    def sleep(self, seconds):
        self.clock.sleep(seconds)
        for action in self.script.pop(0) if self.script else ():
            action()

    def test_each_task_result_is_told_once_then_the_end(self):
        self.batch(1, 'a', 'b')
        self.script = [
            [lambda: self.batch(2, 'c')],
            [],
            [lambda: self.batch(3, 'd'), lambda: self.store.writer.
             write_outcome('p', STEP, {'status': 'SUCCESS'}, {}, config={
                 'status': 'SUCCESS'})]]
        found = self.follower().follow('p', STEP, 600)
        self.assertEqual(['Ansible: c-0 | %s | OK' % t for t in 'abcd'],
                         self.lines)
        self.assertEqual(('SUCCESS', 'SUCCESS'), (
            found['outcome']['status'], found['config']['status']))
        # each progress object read once
        reads = [n for m, n in self.swift.requests if m == 'GET' and
                 configs.progress_seq(n, STEP)]
        self.assertEqual(sorted(set(reads)), reads)

    def test_no_end_within_the_time_is_none(self):
        self.script = []
        self.assertIsNone(self.follower().follow('p', STEP, 30))
        self.assertGreaterEqual(self.clock(), 30)

    def test_an_ignored_failure_says_so(self):
        self.assertEqual(
            'Ansible: c-0 | Include Service VIP vars | FAILED (ignored)',
            configuration.line({'host': 'c-0', 'task': 'Include Service '
                                'VIP vars', 'status': 'failed',
                                'message': 'no such file', 'ignored': True}))

    def test_a_failure_says_what_and_where(self):
        self.assertEqual(
            'Ansible: c-0 | Write | FAILED: denied',
            configuration.line({'host': 'c-0', 'task': 'Write',
                                'status': 'failed', 'message': 'denied'}))
        self.assertEqual(
            ['  failed on c-0: Write: denied', '  unreachable: c-1'],
            configuration.problem_lines({'config': {
                'failures': [{'host': 'c-0', 'task': 'Write',
                              'message': 'denied'}],
                'hosts': {'c-0': {'failed': 1}, 'c-1': {'unreachable': 1}}}}))
