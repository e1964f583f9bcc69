"""The plan container in Swift: one listing, one batch of writes, record last.

The plan's only door to Swift. It knows how to write many objects cheaply
(Swift's bulk ``extract-archive`` when the cluster offers it, else
concurrent PUTs) and how to append a step to the record; what to write is
decided by ``steps`` and ``files``.
"""

import concurrent.futures
import io
import logging
import tarfile

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import bulk
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import record as record_mod

LOG = logging.getLogger(__name__)

# Swift's default (and usual) container_listing_limit.
LISTING_LIMIT = 10000
COMMIT_ATTEMPTS = 5


def _client_exception():
    from swiftclient import exceptions as swift_exceptions
    return swift_exceptions.ClientException


class PlanStore(object):
    """Swift operations on plan containers.

    :param connect: returns a swiftclient Connection for the calling thread
    :param progress: callable taking one line of progress (for stderr)
    """

    def __init__(self, connect, progress=None, workers=10):
        self._connect = connect
        self._progress = progress or (lambda line: None)
        self._workers = workers
        self._info = None

    # -- plumbing --------------------------------------------------------

    def _swift(self, method, *args, **kwargs):
        """Call a Connection method; unreachable Swift is a CommandError."""
        conn = self._connect()
        try:
            return getattr(conn, method)(*args, **kwargs)
        except bulk.transport_errors() as exc:
            raise exceptions.CommandError(
                'Swift is unreachable at %s (%s). Check that the object-store '
                'endpoint is right and the service runs.' % (
                    conn.url or conn.os_options.get('object_storage_url'),
                    type(exc).__name__))

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
                return headers, {o['name']: o for o in objects}
            marker = page[-1]['name']

    def get(self, plan, name):
        """An object's bytes, or None when it does not exist."""
        try:
            return self._swift('get_object', plan, name)[1]
        except _client_exception() as exc:
            if self._status(exc) == 404:
                return None
            raise exceptions.CommandError(
                'Cannot read %s from plan %s: %s' % (name, plan, exc))

    def read_record(self, plan):
        """The plan's record; a clear error when the plan does not exist."""
        data = self.get(plan, record_mod.PATH)
        if data is None:
            raise exceptions.CommandError(
                'Plan %s does not exist (no %s). See "openstack overcloud '
                'plan list"; create it with "openstack overcloud plan '
                'create".' % (plan, record_mod.PATH))
        return record_mod.load(data, plan)

    def steps_after(self, plan, step_id):
        """Steps committed after ``step_id`` that the record may lack."""
        _, names = self.listing(plan, prefix=record_mod.STEPS_PREFIX,
                                marker=record_mod.step_path(step_id))
        steps = []
        for name in sorted(names or ()):
            step = record_mod.load_step(self.get(plan, name), plan, name)
            if step is not None:
                steps.append(step)
        return steps

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

        with concurrent.futures.ThreadPoolExecutor(self._workers) as pool:
            return [(n, h) for n, h in pool.map(
                head, (c['name'] for c in containers)) if layout.is_plan(h)]

    # -- writing ---------------------------------------------------------

    def create_container(self, plan):
        try:
            self._swift('put_container', plan,
                        headers={layout.PLAN_META: layout.PLAN_META_VALUE})
        except _client_exception() as exc:
            raise exceptions.CommandError(
                'Cannot create container %s: %s' % (plan, exc))

    def write(self, plan, objects):
        """Write ``{name: bytes}`` in as few requests as the cluster allows.

        Raises CommandError naming every object that did not land.
        """
        if not objects:
            return
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
            with concurrent.futures.ThreadPoolExecutor(
                    bulk.CONCURRENCY) as pool:
                results = pool.map(
                    lambda b: bulk.extract_archive(self._connection(), plan,
                                                   b), batches)
                failed = [f for result in results for f in result]
        else:
            self._progress('Writing %d objects (%.1f MB) to plan %s with %d '
                           'concurrent PUTs' % (len(objects), total / 1e6,
                                                plan, self._workers))
            failed = self._put_each(plan, objects)
        if failed:
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

        with concurrent.futures.ThreadPoolExecutor(self._workers) as pool:
            return [r for r in pool.map(put, sorted(objects)) if r]

    def commit(self, plan, record, step, rebase):
        """Append ``step`` to the record: step object first, create-only.

        ``If-None-Match: *`` makes the step id a lock: when another writer
        took it, its steps are merged in, ``rebase(record, step)`` redoes
        this step on top of them (or raises), and the next id is tried.
        A record that lags behind its step objects is mended the same way.
        """
        for _ in range(COMMIT_ATTEMPTS):
            step['id'] = record_mod.last_id(record) + 1
            try:
                self._swift('put_object', plan,
                            record_mod.step_path(step['id']),
                            record_mod.dump(step),
                            headers={'If-None-Match': '*'})
            except _client_exception() as exc:
                if self._status(exc) != 412:
                    raise exceptions.CommandError(
                        'Cannot record step in plan %s: %s' % (plan, exc))
                for other in self.steps_after(plan, step['id'] - 1):
                    record_mod.apply(record, other)
                step = rebase(record, step)
                continue
            record_mod.apply(record, step)
            try:
                self._swift('put_object', plan, record_mod.PATH,
                            record_mod.dump(record))
            except _client_exception() as exc:
                raise exceptions.CommandError(
                    'Step %d of plan %s is stored as %s, but %s could not be '
                    'written (%s); the next command mends it.' % (
                        step['id'], plan, record_mod.step_path(step['id']),
                        record_mod.PATH, exc))
            return record
        raise exceptions.CommandError(
            'Plan %s kept changing under this command (%d attempts); run it '
            'again.' % (plan, COMMIT_ATTEMPTS))

    # -- deleting and exporting -----------------------------------------

    def delete_objects(self, plan, names):
        """Delete objects: bulk-delete requests when offered, else DELETEs."""
        names = sorted(names)
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
        with concurrent.futures.ThreadPoolExecutor(self._workers) as pool:
            list(pool.map(remove, names))

    def delete(self, plan, names):
        """Delete the objects ``names`` and then the container."""
        self.delete_objects(plan, names)
        try:
            self._swift('delete_container', plan)
        except _client_exception() as exc:
            raise exceptions.CommandError(
                'Cannot delete container %s: %s' % (plan, exc))

    def export(self, plan, names, fileobj):
        """Stream the objects ``names`` into ``fileobj`` as a tar.gz."""
        names = sorted(names)

        def fetch(name):
            try:
                headers, body = self._swift('get_object', plan, name)
            except _client_exception() as exc:
                raise exceptions.CommandError(
                    'Cannot read %s from plan %s: %s' % (name, plan, exc))
            return name, headers, body

        with tarfile.open(fileobj=fileobj, mode='w|gz') as tar, \
                concurrent.futures.ThreadPoolExecutor(self._workers) as pool:
            # A bounded window keeps memory flat on large plans.
            window = self._workers * 4
            for start in range(0, len(names), window):
                for name, headers, body in pool.map(
                        fetch, names[start:start + window]):
                    info = tarfile.TarInfo(name)
                    info.size = len(body)
                    info.mode = 0o644
                    info.mtime = float(headers.get('x-timestamp', 0) or 0)
                    tar.addfile(info, io.BytesIO(body))
