"""StackFollower against Heat's REST API (requests-mock), with a fake clock.

The client is a real python-heatclient v1 client on a keystoneauth
session; only the HTTP below it is faked. Time never passes for real: the
follower takes ``clock`` and ``sleep`` and gets a clock that ``sleep``
moves forward.
"""

from urllib import parse

import requests

from tests.unit import fakes
from tripleoplanclient.common import exceptions
from tripleoplanclient.stack import events as stack_events

HEAT = fakes.HEAT
NAME = 'oc'
STACK_ID = '5d2b4c1e-0000-4000-8000-00000000a001'
NESTED_ID = '5d2b4c1e-0000-4000-8000-00000000b002'
STACK_URL = '%s/stacks/%s/%s' % (HEAT, NAME, STACK_ID)
EVENTS_URL = STACK_URL + '/events'
JSON = fakes.JSON


def event(event_id, status, reason='', resource=NAME, physical=STACK_ID):
    """One event as Heat's API lists it."""
    return {
        'id': event_id,
        'event_time': '2024-05-01T10:00:00Z',
        'resource_name': resource,
        'logical_resource_id': resource,
        'physical_resource_id': physical,
        'resource_status': status,
        'resource_status_reason': reason,
        'links': [
            {'rel': 'self', 'href': '%s/resources/%s/events/%s' % (
                STACK_URL, resource, event_id)},
            {'rel': 'stack', 'href': STACK_URL}],
    }


def query(request):
    """The query of a request, case kept (requests-mock lower-cases qs)."""
    return {k: v[0] for k, v in parse.parse_qs(
        parse.urlsplit(request.url).query).items()}


class HeatEvents:
    """The event list of one stack; each poll reveals the next batch.

    Answers as Heat does: events after ``marker`` (all without one), in
    the order asked for, at most ``limit``.
    """

    def __init__(self, batches):
        self.batches = list(batches)
        self.polls = 0

    def __call__(self, request, context):
        context.headers.update(JSON)
        q = query(request)
        if q.get('sort_dir') == 'asc':
            self.polls += 1
            visible = [e for b in self.batches[:self.polls] for e in b]
        else:
            visible = [e for b in self.batches for e in b]
        ids = [e['id'] for e in visible]
        if 'marker' in q:
            visible = visible[ids.index(q['marker']) + 1:]
        if q.get('sort_dir') == 'desc':
            visible = visible[::-1]
        if 'limit' in q:
            visible = visible[:int(q['limit'])]
        return {'events': visible}


class StackEventsTestCase(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.heat = fakes.heat_client()
        self.clock = fakes.FakeClock(1000.0)
        self.lines = []
        self.follower = stack_events.StackFollower(
            self.heat, self.lines.append, sleep=self.clock.sleep,
            clock=self.clock.clock, interval=1.0, max_interval=8.0)

    def events(self, *batches):
        fake = HeatEvents(batches)
        self.m.get(EVENTS_URL, json=fake)
        return fake

    def polls(self):
        return [query(r) for r in self.m.request_history
                if r.path.endswith('/events')]


class TestFollow(StackEventsTestCase):

    def test_ends_on_the_stacks_own_event_not_a_resources(self):
        self.events(
            [event('e1', 'UPDATE_IN_PROGRESS', 'Stack UPDATE started'),
             # A nested stack resource ends with the same status...
             event('e2', 'UPDATE_COMPLETE', 'state changed',
                   resource='Networks', physical=NESTED_ID),
             # ...even one named like the stack: not the stack itself.
             event('e3', 'UPDATE_COMPLETE', 'state changed',
                   resource=NAME, physical=NESTED_ID)],
            [],
            [event('e4', 'UPDATE_COMPLETE',
                   'Stack UPDATE completed successfully')])
        result = self.follower.follow(NAME, STACK_ID, 'UPDATE', 600)
        self.assertEqual(
            ('UPDATE_COMPLETE', 'Stack UPDATE completed successfully'),
            result)
        self.assertEqual(3, len(self.polls()))

    def test_a_terminal_event_of_another_action_does_not_end_it(self):
        # Without a marker the list starts with the stack's creation.
        self.events(
            [event('e1', 'CREATE_COMPLETE', 'Stack CREATE completed'),
             event('e2', 'UPDATE_IN_PROGRESS', 'Stack UPDATE started')],
            [event('e3', 'UPDATE_FAILED', 'Resource UPDATE failed')])
        result = self.follower.follow(NAME, STACK_ID, 'UPDATE', 600)
        self.assertEqual(('UPDATE_FAILED', 'Resource UPDATE failed'), result)

    def test_every_event_is_a_progress_line(self):
        self.events(
            [event('e1', 'CREATE_IN_PROGRESS', 'Stack CREATE started'),
             event('e2', 'CREATE_IN_PROGRESS', None, resource='Networks',
                   physical=NESTED_ID),
             event('e4', 'CREATE_COMPLETE', 'state changed',
                   resource='Networks', physical=NESTED_ID)],
            [event('e3', 'CREATE_COMPLETE', 'Stack CREATE completed')])
        self.follower.follow(NAME, STACK_ID, 'CREATE', 600)
        self.assertEqual([
            '10:00:00 oc: CREATE_IN_PROGRESS (Stack CREATE started)',
            # No reason: nothing printed for it (not "None").
            '10:00:00 Networks: CREATE_IN_PROGRESS',
            # Heat's "state changed" says nothing more than the status
            '10:00:00 Networks: CREATE_COMPLETE',
            '10:00:00 oc: CREATE_COMPLETE (Stack CREATE completed)',
        ], self.lines)

    def test_the_marker_is_passed_along(self):
        self.events(
            [event('old', 'CREATE_COMPLETE', 'Stack CREATE completed')],
            [event('e1', 'UPDATE_IN_PROGRESS', 'Stack UPDATE started'),
             event('e2', 'UPDATE_IN_PROGRESS', '', resource='Networks',
                   physical=NESTED_ID)],
            [],
            [event('e3', 'UPDATE_COMPLETE', 'Stack UPDATE completed')])
        self.follower.follow(NAME, STACK_ID, 'UPDATE', 600, marker='old')
        polls = self.polls()
        self.assertEqual(['old', 'old', 'e2', 'e2'],
                         [p['marker'] for p in polls])
        self.assertEqual({'asc'}, {p['sort_dir'] for p in polls})
        # Only events after the marker were shown.
        self.assertNotIn('CREATE_COMPLETE', ' '.join(self.lines))

    def test_times_out_without_sleeping_past_the_deadline(self):
        self.events([event('e1', 'UPDATE_IN_PROGRESS', 'started')])
        status, reason = self.follower.follow(NAME, STACK_ID, 'UPDATE', 30)
        self.assertEqual('TIMEOUT', status)
        self.assertEqual('still in progress after 30 s', reason)
        # The interval doubles up to max_interval, and the last sleep ends
        # on the deadline.
        self.assertEqual([1.0, 2.0, 4.0, 8.0, 8.0, 7.0],
                         self.clock.sleeps)
        self.assertEqual(1030.0, self.clock.now)

    def test_new_events_do_not_bring_the_interval_back(self):
        # A busy stack has new events at nearly every look: the interval
        # grows all the same (a deploy of minutes, a few dozen requests),
        # and every event is still shown, from the marker on.
        self.events([event('e1', 'UPDATE_IN_PROGRESS', 'started')],
                    [event('e2', 'UPDATE_IN_PROGRESS', '', resource='A',
                           physical=NESTED_ID)],
                    [event('e3', 'UPDATE_IN_PROGRESS', '', resource='B',
                           physical=NESTED_ID)],
                    [event('e4', 'UPDATE_IN_PROGRESS', '', resource='C',
                           physical=NESTED_ID)],
                    [event('e5', 'UPDATE_COMPLETE', 'done')])
        self.follower.follow(NAME, STACK_ID, 'UPDATE', 600)
        self.assertEqual([1.0, 2.0, 4.0, 8.0], self.clock.sleeps)
        self.assertEqual(5, len(self.lines))

    def test_heat_unreachable_is_asked_again_until_the_deadline(self):
        self.m.get(EVENTS_URL, exc=requests.exceptions.ConnectionError)
        status, reason = self.follower.follow(NAME, STACK_ID, 'UPDATE', 30)
        self.assertEqual('TIMEOUT', status)
        self.assertEqual('Heat did not answer (ConnectFailure) until the '
                         'deadline of 30 s', reason)
        self.assertEqual(1030.0, self.clock.now)
        self.assertIn('Heat did not answer (ConnectFailure); asking '
                      'again.', self.lines)

    def test_heat_unavailable_behind_a_proxy_is_asked_again(self):
        # haproxy answers 503 while heat-api restarts: not the end.
        self.m.get(EVENTS_URL, [
            {'status_code': 503, 'headers': JSON,
             'json': {'error': {'message': 'No server is available'}}},
            {'headers': JSON, 'json': {'events': [
                event('e1', 'UPDATE_COMPLETE', 'done')]}}])
        status, _ = self.follower.follow(NAME, STACK_ID, 'UPDATE', 600)
        self.assertEqual('UPDATE_COMPLETE', status)
        self.assertEqual([1.0], self.clock.sleeps)

    def test_heat_refusing_the_request_is_a_command_error(self):
        self.m.get(EVENTS_URL, status_code=401, headers=JSON,
                   json={'error': {'message': 'token expired'}})
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Heat failed to answer .*401'):
            self.follower.follow(NAME, STACK_ID, 'UPDATE', 600)
        self.assertEqual([], self.clock.sleeps)


class TestLastEvent(StackEventsTestCase):

    def test_the_newest_event_is_the_marker(self):
        self.events([event('e1', 'CREATE_IN_PROGRESS'),
                     event('e2', 'CREATE_COMPLETE')])
        self.assertEqual('e2', self.follower.last_event(NAME, STACK_ID))
        self.assertEqual([{'sort_dir': 'desc', 'limit': '1'}], self.polls())

    def test_no_event_no_marker(self):
        self.events([])
        self.assertIsNone(self.follower.last_event(NAME, STACK_ID))


def resource(name, reason, stack_name=NAME, parent=None):
    """One FAILED resource as Heat lists them with nested_depth."""
    res = {
        'resource_name': name,
        'logical_resource_id': name,
        'physical_resource_id': '',
        'resource_status': 'CREATE_FAILED',
        'resource_status_reason': reason,
        'resource_type': 'OS::Heat::Thing',
        'links': [
            {'rel': 'self', 'href': '%s/stacks/%s/x/resources/%s' % (
                HEAT, stack_name, name)},
            {'rel': 'stack', 'href': '%s/stacks/%s/x' % (HEAT, stack_name)}],
    }
    if parent:
        res['parent_resource'] = parent
    return res


class TestFailures(StackEventsTestCase):

    def test_failed_resources_deepest_first(self):
        listed = self.m.get(STACK_URL + '/resources', headers=JSON, json={
            'resources': [
                resource('Controller', 'Error: resources.Controller: x'),
                resource('0', 'Error: resources[0]: y',
                         stack_name='oc-Controller-abcd', parent='Controller'),
                resource('Deployment', 'Deployment exited with 2',
                         stack_name='oc-Controller-abcd-0-efgh', parent='0'),
            ]})
        failed = self.follower.failures(NAME, STACK_ID)
        self.assertEqual([
            ('oc-Controller-abcd-0-efgh:0/Deployment',
             'Deployment exited with 2'),
            ('oc-Controller-abcd:Controller/0', 'Error: resources[0]: y'),
            ('oc:Controller', 'Error: resources.Controller: x'),
        ], failed)
        self.assertEqual({'nested_depth': '10', 'status': 'FAILED'},
                         query(listed.last_request))

    def test_aborted_resources_come_after_the_causes(self):
        self.m.get(STACK_URL + '/resources', headers=JSON, json={
            'resources': [
                resource('Deep', 'CREATE aborted (Task create from X '
                         'cancelled)', stack_name='oc-A-abcd-0-efgh',
                         parent='0'),
                resource('Net', 'BadRequest: quota exceeded')]})
        self.assertEqual(['oc:Net', 'oc-A-abcd-0-efgh:0/Deep'],
                         [f[0] for f in self.follower.failures(NAME,
                                                               STACK_ID)])

    def test_limit(self):
        self.m.get(STACK_URL + '/resources', headers=JSON, json={
            'resources': [resource('R%d' % i, 'bad') for i in range(5)]})
        self.assertEqual(2, len(self.follower.failures(NAME, STACK_ID,
                                                       limit=2)))

    def test_a_heat_error_is_reported_not_raised(self):
        self.m.get(STACK_URL + '/resources', status_code=500, headers=JSON,
                   json={'error': {'message': 'boom'}})
        failed = self.follower.failures(NAME, STACK_ID)
        self.assertEqual(1, len(failed))
        self.assertEqual('(could not list failed resources)', failed[0][0])
        self.assertIn('boom', failed[0][1])

    def test_heat_unreachable_is_reported_not_raised(self):
        self.m.get(STACK_URL + '/resources',
                   exc=requests.exceptions.ConnectTimeout)
        failed = self.follower.failures(NAME, STACK_ID)
        self.assertEqual('(could not list failed resources)', failed[0][0])
        self.assertIn('ConnectTimeout', failed[0][1])


class TestHeartbeat(StackEventsTestCase):
    """Heat silent for minutes (an update walking nested stacks): a line
    about every minute saying what is in progress and for how long."""

    def test_what_is_in_progress_while_heat_is_silent(self):
        self.events(
            [event('e1', 'UPDATE_IN_PROGRESS', 'Stack UPDATE started'),
             event('e2', 'UPDATE_IN_PROGRESS', '', resource='Controller',
                   physical=NESTED_ID),
             event('e3', 'UPDATE_IN_PROGRESS', '', resource='Networks',
                   physical=NESTED_ID),
             event('e4', 'UPDATE_COMPLETE', '', resource='Networks',
                   physical=NESTED_ID)],
            *([[]] * 30 + [[event('e5', 'UPDATE_COMPLETE', 'done')]]))
        self.follower.follow(NAME, STACK_ID, 'UPDATE', 3600)
        beats = [line for line in self.lines if 'still at work' in line]
        # 30 silent polls 8 s apart: ~240 s, a line every 60 s or so
        self.assertEqual(3, len(beats), self.lines)
        self.assertEqual(
            'Heat is still at work on stack oc (1 min 03 s so far; no '
            'event for a while): Controller in progress for 1 min 03 s.',
            beats[0])
        self.assertNotIn('Networks', ' '.join(beats))
        self.assertIn('(3 min 11 s so far', beats[-1])

    def test_no_line_while_events_come(self):
        self.events(*[[event('e%d' % i, 'UPDATE_IN_PROGRESS', '',
                             resource='R%d' % i, physical=NESTED_ID)]
                      for i in range(40)] +
                    [[event('end', 'UPDATE_COMPLETE', 'done')]])
        self.follower.follow(NAME, STACK_ID, 'UPDATE', 3600)
        self.assertFalse([line for line in self.lines
                          if 'still at work' in line])
