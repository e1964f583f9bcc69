"""Follow a Heat stack operation to its end, events on stderr.

One request per poll: the stack's own events after the last one seen
(the stack itself emits an event when its operation ends). The interval
grows while nothing happens, so a long deploy costs few requests.
"""

import time

from tripleoplanclient import errors

TERMINAL = ('COMPLETE', 'FAILED')


def _unreachable(exc):
    names = {c.__name__ for c in type(exc).__mro__}
    return bool(names & {'ConnectFailure', 'ConnectionError',
                         'ConnectTimeout', 'CommunicationError'})


class StackFollower(object):
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
            if _unreachable(exc):
                raise errors.CommandError(
                    'Heat became unreachable while following the stack (%s); '
                    'the operation may go on: see "openstack stack show".'
                    % type(exc).__name__)
            raise

    def last_event(self, name, stack_id):
        """Id of the newest event of the stack (the marker to follow from)."""
        events = self._call(self._heat.events.list,
                            '%s/%s' % (name, stack_id), sort_dir='desc',
                            limit=1)
        return events[0].id if events else None

    def follow(self, name, stack_id, action, timeout, marker=None):
        """Wait for ``action`` (CREATE/UPDATE) to end; ``(status, reason)``.

        status is e.g. UPDATE_COMPLETE, CREATE_FAILED, or TIMEOUT when
        ``timeout`` seconds passed first (the operation goes on in Heat).
        """
        ident = '%s/%s' % (name, stack_id)
        deadline = self._clock() + timeout
        interval = self._interval
        while True:
            events = self._call(self._heat.events.list, ident, marker=marker,
                                sort_dir='asc')
            for event in events:
                marker = event.id
                self._progress('%s %s %s %s' % (
                    event.event_time, event.resource_name,
                    event.resource_status, event.resource_status_reason
                    or ''))
                if (event.physical_resource_id == stack_id
                        and event.resource_name == name
                        and event.resource_status in [
                            '%s_%s' % (action, s) for s in TERMINAL]):
                    return event.resource_status, \
                        event.resource_status_reason
            if self._clock() >= deadline:
                return 'TIMEOUT', 'still in progress after %d s' % timeout
            interval = self._interval if events else min(
                interval * 2, self._max_interval)
            self._sleep(min(interval, max(deadline - self._clock(), 0.1)))

    def failures(self, name, stack_id, limit=10):
        """``[(resource, reason)]`` of the failed resources, deepest first.

        One request: the resources of every nested stack, filtered on FAILED.
        """
        try:
            resources = self._call(
                self._heat.resources.list, '%s/%s' % (name, stack_id),
                nested_depth=10, filters={'status': 'FAILED'})
        except errors.CommandError:
            raise
        except Exception as exc:
            return [('(could not list failed resources)', str(exc))]
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
