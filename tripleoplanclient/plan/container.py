"""The plan container in Swift: one listing, one batch of writes.

The plan's only door to Swift. It knows how to write many objects cheaply
(Swift's bulk ``extract-archive`` when the cluster offers it, else
concurrent PUTs); what to write is decided by ``record.steps`` and
``files``, and the record's own writes are ``record.journal``'s (both
joined in ``record.store.PlanStore``).
"""

import concurrent.futures
import gzip
import io
import logging
import tarfile
import time

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import bulk
from tripleoplanclient.plan import heads as heads_mod
from tripleoplanclient.plan import kept as kept_mod
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import tree as tree_mod

LOG = logging.getLogger(__name__)

# Swift's default (and usual) container_listing_limit.
LISTING_LIMIT = 10000
# Seconds between attempts to delete a container that a replica still
# lists as holding objects.
DELETE_RETRIES = (1, 2, 4, 8)


def _client_exception():
    from swiftclient import exceptions as swift_exceptions
    return swift_exceptions.ClientException


class Container(kept_mod.Kept, heads_mod.Heads):
    """Swift operations on plan containers (copies inside Swift:
    ``kept``).

    :param connect: returns a swiftclient Connection for the calling thread
    :param progress: callable taking one line of progress (for stderr)
    """

    LISTING_LIMIT = LISTING_LIMIT

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

    # -- plumbing --------------------------------------------------------

    def _swift(self, method, *args, **kwargs):
        """Call a Connection method; unreachable Swift, or Swift refusing
        the caller's role, is a CommandError."""
        conn = self._connect()
        try:
            try:
                return getattr(conn, method)(*args, **kwargs)
            except _client_exception() as exc:
                # A 401 (the token expired during a long command) makes
                # swiftclient renew the token, but not send a body of
                # bytes again: it gives up, the token renewed; once more.
                if 'no ability to reset contents' not in str(exc):
                    raise
                return getattr(conn, method)(*args, **kwargs)
        except _client_exception() as exc:
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
            except _client_exception() as exc:
                LOG.debug('no /info (%s): no bulk operations', exc)
                self._info = {}
        return self._info

    # -- reading ---------------------------------------------------------

    def listing(self, plan, prefix=None, marker=''):
        """``(headers, {name: entry})`` for every object, or ``(None, None)``.

        Pages of LISTING_LIMIT are followed until a short one: a plan below
        that size (THT is 1,800 objects) is listed in one request.
        """
        objects = []
        headers = None
        while True:
            try:
                page_headers, page = self._swift(
                    'get_container', plan, prefix=prefix, marker=marker,
                    limit=LISTING_LIMIT)
            except _client_exception() as exc:
                if self._status(exc) == 404 and headers is None:
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
        self._checked(plan, [name])
        try:
            return self._swift('get_object', plan, name, headers={
                'X-Newest': 'true'} if newest else None)[1]
        except _client_exception() as exc:
            if self._status(exc) == 404:
                return None
            raise exceptions.CommandError(
                'Cannot read %s from plan %s: %s' % (name, plan, exc))

    def plans(self):
        """``[(name, container headers)]`` of every plan container."""
        try:
            _, containers = self._swift('get_account', full_listing=True)
        except _client_exception() as exc:
            raise exceptions.CommandError('Cannot list containers: %s' % exc)

        def head(name):
            try:
                return name, self._swift('head_container', name)
            except _client_exception():
                return name, {}         # deleted meanwhile

        return [(n, h) for n, h in self.map(
            head, [c['name'] for c in containers]) if layout.is_plan(h)]

    # -- writing ---------------------------------------------------------

    def create_container(self, plan, headers=None):
        # headers: another container of the caller's, not a plan
        try:
            self._swift('put_container', plan, headers=headers or {
                layout.PLAN_META: layout.PLAN_META_VALUE})
        except _client_exception() as exc:
            raise exceptions.CommandError(
                'Cannot create container %s: %s' % (plan, exc))

    def write(self, plan, objects):
        """Write ``{name: bytes}`` in as few requests as the cluster allows.

        Raises CommandError naming every object that did not land.
        """
        if not objects:
            return
        self._checked(plan, objects)
        total = sum(len(d) for d in objects.values())
        if len(objects) == 1:
            # One PUT is one request either way; no need to ask /info.
            failed = self._put_each(plan, objects)
        elif 'bulk_upload' in self.capabilities():
            batches = bulk.batches(objects)
            self._progress('Writing %d objects (%.1f MB) to plan %s in %d '
                           'bulk request(s)' % (len(objects), total / 1e6,
                                                plan, len(batches)))
            # Swift expands an archive one member at a time: a few archives
            # in flight keep its servers busy (measured ~2x on loopback).
            results = self.map(
                lambda b: bulk.extract_archive(self._connection(), plan, b),
                batches, bulk.CONCURRENCY)
            failed = [f for result in results for f in result]
        else:
            self._progress('Writing %d objects (%.1f MB) to plan %s with %d '
                           'concurrent PUTs' % (len(objects), total / 1e6,
                                                plan, self._workers))
            failed = self._put_each(plan, objects)
        if failed:
            self._rejected(plan, objects, failed)

    @staticmethod
    def _rejected(plan, objects, failed):
        shown = '; '.join('%s: %s' % f for f in sorted(failed)[:10])
        raise exceptions.CommandError(
            'Swift rejected %d of %d objects for plan %s (%s%s). The plan '
            'record was not changed; fix the cause and run the command '
            'again.' % (len(failed), len(objects), plan, shown,
                        '; ...' if len(failed) > 10 else ''))

    def _connection(self):
        """An authenticated Connection, for requests swiftclient lacks."""
        conn = self._connect()
        if not conn.token:
            self._swift('get_auth')
        return conn

    def _put_each(self, plan, objects):
        def put(name):
            data = objects[name]
            try:
                self._swift('put_object', plan, name, data,
                            etag=content.md5(data))
                return None
            except _client_exception() as exc:
                return name, '%s %s' % (exc.http_status, exc.http_reason)

        return [r for r in self.map(put, sorted(objects)) if r]

    def view(self, plan, tree):
        """A ``tree.View`` of a recorded tree of ``plan``."""
        return tree_mod.View.of_store(self, plan, tree)

    # -- deleting and exporting -----------------------------------------

    def delete_objects(self, plan, names, record=False):
        """Delete objects: bulk-delete requests when offered, else DELETEs.

        ``record``: True lets the record's writer delete its own objects,
        None empties the container (``delete``); else no name under the
        record's directory is deleted.
        """
        names = sorted(self._checked(plan, names, record))
        if not names:
            return
        info = len(names) > 1 and self.capabilities().get('bulk_delete')
        if info:
            step = int(info.get('max_deletes_per_request', 10000))
            for i in range(0, len(names), step):
                bulk.delete(self._connection(), plan, names[i:i + step])
            return

        def remove(name):
            try:
                self._swift('delete_object', plan, name)
            except _client_exception() as exc:
                if self._status(exc) != 404:
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
                self._swift('delete_container', plan)
                return
            except _client_exception() as exc:
                if self._status(exc) == 404:
                    return
                if self._status(exc) != 409 or wait is None:
                    raise exceptions.CommandError(
                        'Cannot delete container %s: %s. Its objects are '
                        'deleted; run the command again.' % (plan, exc))
            self._sleep(wait)

    def pause(self, seconds):
        """Wait, as this store was told to (tests give no real sleep)."""
        self._sleep(seconds)

    def export(self, plan, members, fileobj, mtime=None):
        """Stream objects into ``fileobj`` as a tar.gz.

        ``members``: object names, or ``{member name: object name}``.
        ``mtime``: one time for every member and the gzip header, so that
        the same content always makes the same bytes; else each object's
        Swift timestamp.
        """
        if not isinstance(members, dict):
            members = {n: n for n in members}
        names = sorted(members)
        # Swift takes any object name (one PUT by hand); a member must
        # still land inside the directory a naive extractor writes to.
        for member in names:
            layout.check_plan_path(
                member, 'Plan %s cannot be exported: object %r' % (
                    plan, members[member]), 'stored')
        self._checked(plan, members.values(), record=None)

        def fetch(member):
            name = members[member]
            try:
                headers, body = self._swift('get_object', plan, name)
            except _client_exception() as exc:
                raise exceptions.CommandError(
                    'Cannot read %s from plan %s: %s' % (name, plan, exc))
            return member, headers, body

        with gzip.GzipFile(filename='', mode='wb', fileobj=fileobj,
                           mtime=time.time() if mtime is None else mtime
                           ) as gz, \
                tarfile.open(fileobj=gz, mode='w|',
                             format=tarfile.PAX_FORMAT) as tar, \
                concurrent.futures.ThreadPoolExecutor(self._workers) as pool:
            # A bounded window keeps memory flat on large plans.
            window = self._workers * 4
            for start in range(0, len(names), window):
                for member, headers, body in pool.map(
                        fetch, names[start:start + window]):
                    info = tarfile.TarInfo(member)
                    info.size = len(body)
                    info.mode = 0o644
                    info.mtime = mtime if mtime is not None else float(
                        headers.get('x-timestamp', 0) or 0)
                    tar.addfile(info, io.BytesIO(body))

    def get_many(self, plan, names):
        """``{name: bytes}`` of objects read side by side; an object that
        is gone is a clear error."""
        def fetch(name):
            return name, self.get(plan, name)

        found = dict(self.map(fetch, self._checked(plan, sorted(set(names)))))
        gone = sorted(n for n, data in found.items() if data is None)
        if gone:
            raise exceptions.CommandError(
                'Plan %s: %s vanished while it was read (another command '
                'changed the plan meanwhile); run the command again.'
                % (plan, ', '.join(gone[:10])))
        return found
