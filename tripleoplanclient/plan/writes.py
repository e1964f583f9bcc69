"""Writing a plan container: many objects in as few requests as the
cluster allows (Swift's bulk ``extract-archive`` when ``/info`` offers
it, else concurrent PUTs), deleting objects and the container.

What to write is decided by ``record.steps`` and ``files``. A mixin of
``store.PlanStore``: it goes through the store's one door to Swift
(``swift_door``).
"""

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import bulk
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import swift_door

# Seconds between attempts to delete a container that a replica still
# lists as holding objects.
DELETE_RETRIES = (1, 2, 4, 8)


class Writes(object):
    """Writes and deletes on plan containers."""

    def create_container(self, plan, headers=None):
        # headers: another container of the caller's, not a plan
        try:
            self._swift('put_container', plan, headers=headers or {
                layout.PLAN_META: layout.PLAN_META_VALUE})
        except swift_door.client_exception() as exc:
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

    def _put_each(self, plan, objects):
        def put(name):
            data = objects[name]
            try:
                self._swift('put_object', plan, name, data,
                            etag=content.md5(data))
                return None
            except swift_door.client_exception() as exc:
                return name, '%s %s' % (exc.http_status, exc.http_reason)

        return [r for r in self.map(put, sorted(objects)) if r]

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
            except swift_door.client_exception() as exc:
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
            except swift_door.client_exception() as exc:
                if self._status(exc) == 404:
                    return
                if self._status(exc) != 409 or wait is None:
                    raise exceptions.CommandError(
                        'Cannot delete container %s: %s. Its objects are '
                        'deleted; run the command again.' % (plan, exc))
            self._sleep(wait)
