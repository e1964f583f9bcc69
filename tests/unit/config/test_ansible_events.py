"""The callback's lines as the runner reads them: shaped, bounded and
masked, whatever the playbook wrote; the tally of a run."""

import json

import testtools

from tripleoplanclient.config import ansible_events


def line(**fields):
    data = {'host': 'c-0', 'task': 'T', 'status': 'ok', 'play': 'P',
            'message': '', 'ignored': False, 'task_number': 1}
    data.update(fields)
    return json.dumps(data).encode()


class TestEvent(testtools.TestCase):

    def test_an_event_has_the_contracts_shape(self):
        found, about = ansible_events.event(line(status='changed',
                                                 address='192.0.2.5'))
        self.assertEqual(({'host': 'c-0', 'task': 'T', 'status': 'changed',
                           'play': 'P', 'message': ''},
                          {'task_number': 1, 'address': '192.0.2.5'}),
                         (found, about))

    def test_what_is_not_an_event_is_dropped(self):
        for data in (b'not json', b'[1]', b'"x"', line(status='weird'),
                     line(status=None)):
            self.assertEqual((None, None), ansible_events.event(data))

    def test_an_ignored_failure_says_so(self):
        found, _ = ansible_events.event(line(status='failed', ignored=True))
        self.assertTrue(found['ignored'])
        found, _ = ansible_events.event(line(status='ok', ignored=True))
        self.assertNotIn('ignored', found)

    def test_messages_and_names_are_bounded(self):
        found, _ = ansible_events.event(line(
            message='x' * 100000, task='t' * 5000, host=['a', 'list']))
        self.assertEqual(ansible_events.MESSAGE_LIMIT, len(found['message']))
        self.assertTrue(found['message'].endswith('...'))
        self.assertEqual(ansible_events.NAME_LIMIT, len(found['task']))
        self.assertIsInstance(found['host'], str)

    def test_secrets_are_masked(self):
        found, _ = ansible_events.event(line(
            message='failed:\n  admin_password: hunter2\n'
                    'url https://u:pw@h/x and s3kr3t-value here',
            task='uses s3kr3t-value'), secrets=['s3kr3t-value'])
        self.assertNotIn('hunter2', found['message'])
        self.assertNotIn(':pw@', found['message'])
        self.assertNotIn('s3kr3t-value', found['message'])
        self.assertNotIn('s3kr3t-value', found['task'])
        self.assertIn('admin_password: ***', found['message'])

    def test_a_task_number_that_is_not_one_is_none(self):
        self.assertEqual({'task_number': None, 'address': None},
                         ansible_events.event(line(task_number='7'))[1])


class TestStats(testtools.TestCase):

    def test_ansibles_counts_in_our_names(self):
        self.assertEqual(
            {'c-0': {'ok': 3, 'changed': 1, 'failed': 1, 'unreachable': 0,
                     'skipped': 2}},
            ansible_events.stats(json.dumps({'c-0': {
                'ok': 3, 'changed': 1, 'failures': 1, 'unreachable': 0,
                'skipped': 2, 'rescued': 0, 'ignored': 4}}).encode()))

    def test_what_is_not_a_count_is_zero(self):
        self.assertEqual(
            {'c-0': {'ok': 0, 'changed': 0, 'failed': 0, 'unreachable': 0,
                     'skipped': 0}},
            ansible_events.stats(b'{"c-0": {"ok": -1, "changed": "9"}, '
                                 b'"c-1": 5}'))
        self.assertIsNone(ansible_events.stats(b'[]'))
        self.assertIsNone(ansible_events.stats(b'{'))


class TestTally(testtools.TestCase):

    def add(self, tally, number, host, status, **more):
        shaped, about = ansible_events.event(line(
            host=host, status=status, task='task %d' % number,
            task_number=number, address='192.0.2.%d' % int(host[-1]),
            **more))
        tally.add(shaped, about)

    def test_counts_tasks_and_failures(self):
        tally = ansible_events.Tally()
        self.add(tally, 1, 'c-0', 'changed')
        self.add(tally, 1, 'c-1', 'skipped')
        self.add(tally, 2, 'c-0', 'skipped')
        self.add(tally, 2, 'c-1', 'skipped')
        self.add(tally, 3, 'c-0', 'failed', message='boom')
        self.add(tally, 3, 'c-1', 'unreachable', message='no route')
        self.add(tally, 4, 'c-0', 'failed', ignored=True)
        self.assertEqual({'ran': 3, 'skipped': 1}, tally.tasks())
        self.assertEqual(
            {'c-0': {'ok': 1, 'changed': 1, 'failed': 1, 'unreachable': 0,
                     'skipped': 1},
             'c-1': {'ok': 0, 'changed': 0, 'failed': 0, 'unreachable': 1,
                     'skipped': 2}}, tally.counts())
        self.assertEqual(
            [{'host': 'c-0', 'task': 'task 3', 'status': 'failed',
              'message': 'boom'},
             {'host': 'c-1', 'task': 'task 3', 'status': 'unreachable',
              'message': 'no route'}], tally.failures)
        self.assertTrue(tally.failed())

    def test_an_unreachable_host_is_told_why_the_proxy_could_not(self):
        tally = ansible_events.Tally()
        self.add(tally, 1, 'c-0', 'unreachable', message='closed')
        self.add(tally, 1, 'c-1', 'failed', message='boom')
        tally.explain({('192.0.2.0', 22): 'cannot reach it: refused',
                       ('192.0.2.1', 22): 'cannot reach it either',
                       ('192.0.2.9', 22): None})
        self.assertEqual(['closed (cannot reach it: refused)', 'boom'],
                         [f['message'] for f in tally.failures])

    def test_ansibles_stats_win_when_they_came(self):
        tally = ansible_events.Tally()
        self.add(tally, 1, 'c-0', 'ok')
        self.assertFalse(tally.failed())
        tally.stats = {'c-0': {'ok': 1, 'changed': 0, 'failed': 0,
                               'unreachable': 1, 'skipped': 0}}
        self.assertEqual(tally.stats, tally.counts())
        self.assertTrue(tally.failed())

    def test_failures_are_bounded(self):
        tally = ansible_events.Tally()
        for n in range(ansible_events.FAILURES_LIMIT + 5):
            self.add(tally, n, 'c-0', 'failed')
        self.assertEqual(ansible_events.FAILURES_LIMIT, len(tally.failures))
        self.assertEqual(5, tally.failures_dropped)
        self.assertEqual(ansible_events.FAILURES_LIMIT + 5,
                         tally.counts()['c-0']['failed'])
