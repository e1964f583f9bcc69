"""The plan's one door to Swift: every request goes through ``_swift``,
every object name through ``_checked`` (or ``_safe`` for a listing's).

The base of ``record.store.PlanStore``; its mixins say what goes through
the door: ``reads`` (listings, objects), ``writes`` (one batch of writes,
deletes), ``export`` (a tar.gz), ``kept`` (copies inside Swift),
``heads`` (objects by HEAD), and the record's own (``record.journal``,
``record.commit``).
"""

import concurrent.futures
import logging
import time

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import bulk
from tripleoplanclient.plan import layout

LOG = logging.getLogger(__name__)


def client_exception():
    """swiftclient's ClientException (swiftclient imported only when a
    request is made)."""
    from swiftclient import exceptions as swift_exceptions
    return swift_exceptions.ClientException


class SwiftDoor(object):
    """Requests to Swift on plan containers.

    :param connect: returns a swiftclient Connection for the calling thread
    :param progress: callable taking one line of progress (for stderr)
    """

    def __init__(self, connect, progress=None, workers=10, sleep=time.sleep,
                 read_only=False, actor=None):
        self._connect = connect
        # () -> {'user', 'project'} from the caller's Keystone token, for
        # the steps it writes; None (or answering None): the login name
        self._actor = actor
        # A dry run: readers mend nothing (the cache, an open outcome).
        self.read_only = read_only
        self._progress = progress or (lambda line: None)
        self._workers = workers
        self._info = None
        self._sleep = sleep
        # plan -> {name: why}: objects a listing showed whose names no
        # request may carry (see layout.name_problem), left alone.
        self._unsafe = {}

    def _swift(self, method, *args, **kwargs):
        """Call a Connection method; unreachable Swift, or Swift refusing
        the caller's role, is a CommandError."""
        conn = self._connect()
        try:
            try:
                return getattr(conn, method)(*args, **kwargs)
            except client_exception() as exc:
                # A 401 (the token expired during a long command) makes
                # swiftclient renew the token, but not send a body of
                # bytes again: it gives up, the token renewed; once more.
                if 'no ability to reset contents' not in str(exc):
                    raise
                return getattr(conn, method)(*args, **kwargs)
        except client_exception() as exc:
            if self._status(exc) == 403:
                raise bulk.not_allowed(method, args[0] if args else '')
            raise
        except bulk.transport_errors() as exc:
            raise exceptions.CommandError(
                'Swift is unreachable at %s (%s). Check that the object-store '
                'endpoint is right and the service runs.' % (
                    conn.url or conn.os_options.get('object_storage_url'),
                    type(exc).__name__))

    def _checked(self, plan, names, record=True):
        """``names``, once each is a name a request may carry: the one
        check before any request (``layout.name_problem``; ``record``
        False: none under the record's directory, None: any name a listing
        keeps, to empty a container). A name from a listing, a record or
        a request that would leave the plan, or reach its record, is a
        CommandError naming it, before anything is sent."""
        names = list(names)
        bad = []
        for name in names:
            problem = layout.unsafe_name(name) if record is None or \
                not isinstance(name, str) else layout.name_problem(
                    name, record)
            if problem:
                bad.append('%r (%s)' % (name, problem))
        if bad:
            raise exceptions.CommandError(
                'Plan %s: no request was sent for object name %s: a name a '
                'request may not carry (it would leave the plan or reach its '
                'record). Nothing was done with it; rename or delete such '
                'objects in Swift.' % (plan, '; '.join(bad[:5])))
        return names

    def unsafe(self, plan):
        """``{name: why}`` of the objects of ``plan`` its listings left
        out: names no request may carry."""
        return dict(self._unsafe.get(plan, {}))

    def _safe(self, plan, entries):
        """``{name: entry}`` of listing ``entries`` whose names a request
        may carry; the others are reported once and left alone."""
        out = {}
        for entry in entries:
            name = entry['name']
            problem = layout.unsafe_name(name)
            if not problem:
                out[name] = entry
                continue
            known = self._unsafe.setdefault(plan, {})
            if name not in known:
                known[name] = problem
                LOG.warning('plan %s: object %r left alone: %s', plan, name,
                            problem)
                self._progress('Plan %s: object %r left alone (its name %s; '
                               'no request names it).' % (
                                   plan, name, problem[3:]))
        return out

    def map(self, fn, items, workers=None):
        """``[fn(item)]``, up to ``workers`` (default: the store's) side by
        side; in the calling thread when the store has one worker."""
        workers = min(workers or self._workers, self._workers)
        if workers <= 1:
            return [fn(item) for item in items]
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            return list(pool.map(fn, items))

    @staticmethod
    def _status(exc):
        return getattr(exc, 'http_status', None)

    def capabilities(self):
        """Swift's ``/info``, fetched once per store."""
        if self._info is None:
            try:
                self._info = self._swift('get_capabilities')
            except client_exception() as exc:
                LOG.debug('no /info (%s): no bulk operations', exc)
                self._info = {}
        return self._info

    def _connection(self):
        """An authenticated Connection, for requests swiftclient lacks."""
        conn = self._connect()
        if not conn.token:
            self._swift('get_auth')
        return conn

    def pause(self, seconds):
        """Wait, as this store was told to (tests give no real sleep)."""
        self._sleep(seconds)
