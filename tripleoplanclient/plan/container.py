"""A plan's Swift container: every request a plan container gets, through
one wrapper (``request``), every object name through one check
(``checked``; ``_safe`` for a listing's).

Listings and objects, many objects written in as few requests as the
cluster allows (Swift's bulk ``extract-archive`` when ``/info`` offers it,
else concurrent PUTs), deletes, objects asked by HEAD (what every replica
answers for, whatever a lagging container listing says). Copies
inside Swift are ``copies``', a tar.gz of objects ``export``'s, both over
a container. What to write is decided by ``record``.
"""

import concurrent.futures
import datetime
import logging
import time

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import bulk
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import tree as tree_mod

LOG = logging.getLogger(__name__)

# Swift's default (and usual) container_listing_limit.
LISTING_LIMIT = 10000
# Seconds between attempts to delete a container that a replica still
# lists as holding objects.
DELETE_RETRIES = (1, 2, 4, 8)


def client_exception():
    """swiftclient's ClientException (swiftclient imported only when a
    request is made)."""
    from swiftclient import exceptions as swift_exceptions
    return swift_exceptions.ClientException


def status(exc):
    """The HTTP status of a swiftclient ClientException (None: none)."""
    return getattr(exc, 'http_status', None)


def _listed_time(stamp):
    """Swift's ``X-Timestamp`` (seconds since 1970, 5 decimals, maybe an
    offset after ``_``) as its listings write a time: UTC, microseconds."""
    try:
        whole, _, frac = stamp.split('_')[0].partition('.')
        when = datetime.datetime.fromtimestamp(int(whole),
                                               datetime.timezone.utc)
    except (AttributeError, ValueError, OverflowError, OSError):
        return ''
    return '%s.%s' % (when.strftime('%Y-%m-%dT%H:%M:%S'),
                      (frac + '000000')[:6])


class PlanContainer:
    """Requests to Swift on plan containers (and the caller's other
    containers, e.g. validation results).

    :param connect: returns a swiftclient Connection for the calling thread
    :param progress: callable taking one line of progress (for stderr)
    :param workers: requests side by side at most
    :param sleep: how to wait (tests give no real sleep)
    """

    def __init__(self, connect, progress=None, workers=10, sleep=time.sleep):
        self._connect = connect
        self.progress = progress or (lambda line: None)
        self.workers = workers
        self._info = None
        self._sleep = sleep
        # plan -> {name: why}: objects a listing showed whose names no
        # request may carry (see layout.name_problem), left alone.
        self._unsafe = {}

    # -- the one wrapper, the one name check ------------------------------

    def request(self, method, *args, **kwargs):
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
            if status(exc) == 403:
                raise bulk.not_allowed(method, args[0] if args else '')
            raise
        except bulk.transport_errors() as exc:
            raise exceptions.CommandError(
                'Swift is unreachable at %s (%s). Check that the object-store '
                'endpoint is right and the service runs.' % (
                    conn.url or conn.os_options.get('object_storage_url'),
                    type(exc).__name__))

    def checked(self, plan, names, record=True):
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
                self.progress('Plan %s: object %r left alone (its name %s; '
                              'no request names it).' % (
                                  plan, name, problem[3:]))
        return out

    def map(self, fn, items, workers=None):
        """``[fn(item)]``, up to ``workers`` (default: the container's) side
        by side; in the calling thread when it has one worker."""
        workers = min(workers or self.workers, self.workers)
        if workers <= 1:
            return [fn(item) for item in items]
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            return list(pool.map(fn, items))

    def capabilities(self):
        """Swift's ``/info``, fetched once per container object."""
        if self._info is None:
            try:
                self._info = self.request('get_capabilities')
            except client_exception() as exc:
                LOG.debug('no /info (%s): no bulk operations', exc)
                self._info = {}
        return self._info

    def connection(self):
        """An authenticated Connection, for requests swiftclient lacks."""
        conn = self._connect()
        if not conn.token:
            self.request('get_auth')
        return conn

    def pause(self, seconds):
        """Wait, as this container was told to (tests give no real sleep)."""
        self._sleep(seconds)

    # -- reads ------------------------------------------------------------

    def listing(self, plan, prefix=None, marker=''):
        """``(headers, {name: entry})`` for every object, or ``(None, None)``.

        Pages of LISTING_LIMIT are followed until a short one: a plan below
        that size (THT is 1,800 objects) is listed in one request.
        """
        objects = []
        headers = None
        while True:
            try:
                page_headers, page = self.request(
                    'get_container', plan, prefix=prefix, marker=marker,
                    limit=LISTING_LIMIT)
            except client_exception() as exc:
                if status(exc) == 404 and headers is None:
                    return None, None
                raise exceptions.CommandError(
                    'Cannot list plan %s: %s' % (plan, exc))
            headers = headers or page_headers
            objects.extend(page)
            if len(page) < LISTING_LIMIT:
                return headers, self._safe(plan, objects)
            marker = page[-1]['name']

    def get(self, plan, name, newest=False):
        """An object's bytes, or None when it does not exist; ``newest``:
        as the newest replica has it (``X-Newest``: one that missed the
        last write answers otherwise, e.g. a busy node's)."""
        self.checked(plan, [name])
        try:
            return self.request('get_object', plan, name, headers={
                'X-Newest': 'true'} if newest else None)[1]
        except client_exception() as exc:
            if status(exc) == 404:
                return None
            raise exceptions.CommandError(
                'Cannot read %s from plan %s: %s' % (name, plan, exc))

    def get_many(self, plan, names):
        """``{name: bytes}`` of objects read side by side; an object that
        is gone is a clear error."""
        def fetch(name):
            return name, self.get(plan, name)

        found = dict(self.map(fetch, self.checked(plan, sorted(set(names)))))
        gone = sorted(n for n, data in found.items() if data is None)
        if gone:
            raise exceptions.CommandError(
                'Plan %s: %s vanished while it was read (another command '
                'changed the plan meanwhile); run the command again.'
                % (plan, ', '.join(gone[:10])))
        return found

    def plans(self):
        """``[(name, container headers)]`` of every plan container."""
        try:
            _, containers = self.request('get_account', full_listing=True)
        except client_exception() as exc:
            raise exceptions.CommandError('Cannot list containers: %s' % exc)

        def head(name):
            try:
                return name, self.request('head_container', name)
            except client_exception():
                return name, {}         # deleted meanwhile

        return [(n, h) for n, h in self.map(
            head, [c['name'] for c in containers]) if layout.is_plan(h)]

    def view(self, plan, tree):
        """A ``tree.View`` of a recorded tree of ``plan``."""
        return tree_mod.View.of_container(self, plan, tree)

    def entries(self, plan, names):
        """``{name: listing entry or None}``: objects as a listing shows
        them (name, hash, bytes, last_modified), each read by HEAD, so that
        a container replica behind cannot hide them; None: no object."""
        def entry(name):
            headers = self._head(plan, name)
            if headers is None:
                return name, None
            return name, {'name': name,
                          'hash': headers.get('etag', '').strip('"'),
                          'bytes': int(headers.get('content-length') or 0),
                          'last_modified': _listed_time(
                              headers.get('x-timestamp'))}

        return dict(self.map(entry, self.checked(plan, sorted(set(names)))))

    def newest_md5s(self, plan, names):
        """``{name: MD5 or None}`` of objects, each asked of every replica
        (``X-Newest``): what was just written, whatever a lagging
        container listing says."""
        def md5(name):
            headers = self._head(plan, name, {'X-Newest': 'true'})
            return name, None if headers is None else (
                headers.get('etag', '').strip('"') or None)

        return dict(self.map(md5, self.checked(plan, sorted(set(names)))))

    def _head(self, plan, name, headers=None):
        """An object's headers by HEAD; None: no object."""
        try:
            return self.request('head_object', plan, name, **(
                {'headers': headers} if headers else {}))
        except client_exception() as exc:
            if status(exc) == 404:
                return None
            raise exceptions.CommandError(
                'Cannot read %s of plan %s: %s' % (name, plan, exc))

    # -- writes -----------------------------------------------------------

    def create_container(self, plan, headers=None):
        # headers: another container of the caller's, not a plan
        try:
            self.request('put_container', plan, headers=headers or {
                layout.PLAN_META: layout.PLAN_META_VALUE})
        except client_exception() as exc:
            raise exceptions.CommandError(
                'Cannot create container %s: %s' % (plan, exc))

    def write(self, plan, objects):
        """Write ``{name: bytes}`` in as few requests as the cluster allows.

        Raises CommandError naming every object that did not land.
        """
        if not objects:
            return
        self.checked(plan, objects)
        total = sum(len(d) for d in objects.values())
        if len(objects) == 1:
            # One PUT is one request either way; no need to ask /info.
            failed = self._put_each(plan, objects)
        elif 'bulk_upload' in self.capabilities():
            batches = bulk.batches(objects)
            self.progress('Writing %d objects (%.1f MB) to plan %s in %d '
                          'bulk request(s)' % (len(objects), total / 1e6,
                                               plan, len(batches)))
            # Swift expands an archive one member at a time: a few archives
            # in flight keep its servers busy (measured ~2x on loopback).
            results = self.map(
                lambda b: bulk.extract_archive(self.connection(), plan, b),
                batches, bulk.CONCURRENCY)
            failed = [f for result in results for f in result]
        else:
            self.progress('Writing %d objects (%.1f MB) to plan %s with %d '
                          'concurrent PUTs' % (len(objects), total / 1e6,
                                               plan, self.workers))
            failed = self._put_each(plan, objects)
        if failed:
            self.rejected(plan, objects, failed)

    def one_archive(self, plan, members):
        """``[(name, why)]`` refused of ``members`` written as one bulk
        archive (one request); None, nothing sent, when they need more
        than one or the cluster is known to have no bulk upload. Asked
        without /info first: a cluster without bulk answers with no
        verdict (``bulk.no_verdict``; then ``without_bulk``)."""
        if (self._info is not None and 'bulk_upload' not in self._info) \
                or len(bulk.batches(members)) != 1:
            return None
        return bulk.extract_archive(self.connection(), plan, members)

    def without_bulk(self):
        """No more bulk uploads: an archive was answered without verdict."""
        self._info = {}

    @staticmethod
    def rejected(plan, objects, failed):
        shown = '; '.join('%s: %s' % f for f in sorted(failed)[:10])
        raise exceptions.CommandError(
            'Swift rejected %d of %d objects for plan %s (%s%s). The plan '
            'record was not changed; fix the cause and run the command '
            'again.' % (len(failed), len(objects), plan, shown,
                        '; ...' if len(failed) > 10 else ''))

    def _put_each(self, plan, objects):
        def put(name):
            data = objects[name]
            try:
                self.request('put_object', plan, name, data,
                             etag=content.md5(data))
                return None
            except client_exception() as exc:
                return name, '%s %s' % (exc.http_status, exc.http_reason)

        return [r for r in self.map(put, sorted(objects)) if r]

    def delete_objects(self, plan, names, record=False):
        """Delete objects: bulk-delete requests when offered, else DELETEs.

        ``record``: True lets the record's writer delete its own objects,
        None empties the container (``delete``); else no name under the
        record's directory is deleted.
        """
        names = sorted(self.checked(plan, names, record))
        if not names:
            return
        info = len(names) > 1 and self.capabilities().get('bulk_delete')
        if info:
            step = int(info.get('max_deletes_per_request', 10000))
            for i in range(0, len(names), step):
                bulk.delete(self.connection(), plan, names[i:i + step])
            return

        def remove(name):
            try:
                self.request('delete_object', plan, name)
            except client_exception() as exc:
                if status(exc) != 404:
                    raise exceptions.CommandError(
                        'Cannot delete %s from plan %s: %s' % (name, plan,
                                                               exc))
        self.map(remove, names)

    def delete(self, plan, names):
        """Delete the objects ``names`` and then the container.

        A container replica may still list deleted objects for a moment
        (409 Conflict): asked again a few times before giving up.
        """
        self.delete_objects(plan, names, record=None)
        for wait in DELETE_RETRIES + (None,):
            try:
                self.request('delete_container', plan)
                return
            except client_exception() as exc:
                if status(exc) == 404:
                    return
                if status(exc) != 409 or wait is None:
                    raise exceptions.CommandError(
                        'Cannot delete container %s: %s. Its objects are '
                        'deleted; run the command again.' % (plan, exc))
            self._sleep(wait)
