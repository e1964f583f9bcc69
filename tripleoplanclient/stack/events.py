"""Follow a Heat stack operation to its end, events on stderr.

One request per poll: the stack's own events after the last one seen
(the stack itself emits an event when its operation ends). Each poll gets
every event since the marker, so none is lost however long the pause:
the interval doubles after every poll up to ``max_interval``, events or
not, and a deploy of minutes costs a few dozen requests (a busy stack
has new events at nearly every look, so going back to the shortest
interval then would poll it every second).
"""

import time

from tripleoplanclient.common import exceptions
from tripleoplanclient.common import poll

TERMINAL = ('COMPLETE', 'FAILED')


def _transient(exc):
    """Heat down or restarting (refused, or 5xx from a proxy before it)."""
    code = getattr(exc, 'code', None)
    return exceptions.unreachable(exc) or (isinstance(code, int)
                                           and code >= 500)


class Heartbeat:
    """What Heat is at work on while it is silent: Heat's events come
    when a resource starts or ends, and an update of a large stack walks
    nested stacks for minutes between two of them (it looks like a hang).
    Every ``EVERY`` seconds without an event: the resources in progress
    (from the events seen) and for how long."""

    EVERY = 60

    def __init__(self, clock, stack):
        self._clock, self._stack = clock, stack
        self._began = self._last = clock()
        self._working = {}

    def saw(self, event):
        now = self._last = self._clock()
        status = event.resource_status or ''
        if event.resource_name == self._stack:
            return
        if status.endswith('_IN_PROGRESS'):
            self._working.setdefault(event.resource_name, now)
        else:
            self._working.pop(event.resource_name, None)

    def tell(self, progress):
        now = self._clock()
        if now - self._last < self.EVERY:
            return
        self._last = now
        working = sorted(self._working.items(), key=lambda kv: kv[1])
        progress('Heat is still at work on stack %s (%s so far; no event '
                 'for a while): %s.' % (
                     self._stack, _duration(now - self._began),
                     ', '.join('%s in progress for %s' % (
                         name, _duration(now - since))
                         for name, since in working[:5]) +
                     (' and %d more' % (len(working) - 5)
                      if len(working) > 5 else '')
                     if working else 'the stack itself'))


def _line(event):
    """An event as the operator reads it: when (the time of day), which
    resource, its status, and Heat's reason when it says more than
    "state changed"."""
    when = event.event_time or ''
    if len(when) >= 19 and when[10:11] == 'T':
        when = when[11:19]      # 2026-11-29T10:00:00Z: the day is today's
    reason = event.resource_status_reason or ''
    return '%s %s: %s%s' % (when, event.resource_name, event.resource_status,
                            '' if reason in ('', 'state changed')
                            else ' (%s)' % reason)


def _duration(seconds):
    minutes, seconds = divmod(int(seconds), 60)
    return '%d min %02d s' % (minutes, seconds) if minutes else \
        '%d s' % seconds


class StackFollower:
    """:param heat: heatclient v1 client; :param progress: line -> stderr"""

    def __init__(self, heat, progress, sleep=time.sleep,
                 clock=time.monotonic, interval=1.0, max_interval=8.0):
        self._heat = heat
        self._progress = progress
        self._sleep = sleep
        self._clock = clock
        self._interval = interval
        self._max_interval = max_interval

    def _call(self, fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            error = _command_error(exc)
            if error is None:
                raise
            raise error from None

    def last_event(self, name, stack_id):
        """Id of the newest event of the stack (the marker to follow from)."""
        events = self._call(self._heat.events.list,
                            '%s/%s' % (name, stack_id), sort_dir='desc',
                            limit=1)
        return events[0].id if events else None

    def stack(self, name, stack_id):
        return self._call(self._heat.stacks.get, '%s/%s' % (name, stack_id))

    def follow(self, name, stack_id, action, timeout, marker=None):
        """Wait for ``action`` (CREATE/UPDATE) to end; ``(status, reason)``.

        status is e.g. UPDATE_COMPLETE, CREATE_FAILED, or TIMEOUT when
        ``timeout`` seconds passed first (the operation goes on in Heat).
        """
        ident = '%s/%s' % (name, stack_id)
        rounds = poll.Poll(timeout, self._interval, self._max_interval,
                           sleep=self._sleep, clock=self._clock,
                           min_sleep=0.1)
        silent = None
        beat = Heartbeat(self._clock, name)
        for _ in rounds:
            try:
                events = self._heat.events.list(ident, marker=marker,
                                                sort_dir='asc')
            except Exception as exc:
                if not _transient(exc):
                    error = _command_error(exc)
                    if error is None:
                        raise
                    raise error from None
                # A restart of Heat or of the proxy before it must not lose
                # a deploy of hours: keep asking until the deadline.
                silent = _describe(exc)
                self._progress('Heat did not answer (%s); asking again.'
                               % silent)
                events = []
            else:
                silent = None
            for event in events:
                marker = event.id
                beat.saw(event)
                self._progress(_line(event))
                if (event.physical_resource_id == stack_id
                        and event.resource_name == name
                        and event.resource_status in [
                            '%s_%s' % (action, s) for s in TERMINAL]):
                    return event.resource_status, \
                        event.resource_status_reason
            if not events and silent is None:
                beat.tell(self._progress)
            rounds.quiet()
        if silent:
            return 'TIMEOUT', ('Heat did not answer (%s) until the '
                               'deadline of %d s' % (silent, timeout))
        return 'TIMEOUT', 'still in progress after %d s' % timeout

    def failures(self, name, stack_id, limit=10):
        """``[(resource, reason)]`` of the failed resources, deepest first.

        One request: the resources of every nested stack, filtered on FAILED.
        """
        try:
            resources = self._heat.resources.list(
                '%s/%s' % (name, stack_id), nested_depth=10,
                filters={'status': 'FAILED'})
        except Exception as exc:
            # The stack's failure is what matters: record it regardless.
            return [('(could not list failed resources)', _describe(exc) +
                     ': ' + str(exc))]
        failed = []
        for res in resources:
            where = getattr(res, 'parent_resource', None)
            label = res.resource_name if not where else '%s/%s' % (
                where, res.resource_name)
            failed.append((getattr(res, 'stack_name', '') + ':' + label,
                           res.resource_status_reason))
        # The causes first: resources Heat merely stopped say "aborted",
        # and a nested stack's failure repeats its child's (deepest first).
        failed.sort(key=lambda f: ('aborted' in (f[1] or ''),
                                   -f[0].count('-')))
        return failed[:limit]


def _command_error(exc):
    """A CommandError for a failed Heat request; None for anything else."""
    if not (_transient(exc) or hasattr(exc, 'code')):
        return None
    return exceptions.CommandError(
        'Heat failed to answer while following the stack (%s); the '
        'operation may go on: see "openstack stack show".' % _describe(exc))


def _describe(exc):
    code = getattr(exc, 'code', None)
    return '%s %s' % (code, type(exc).__name__) if code else \
        type(exc).__name__
