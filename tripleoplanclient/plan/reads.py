"""Reading a plan container: its listing (paged), objects one by one or
side by side, the plan containers of the account.

A mixin of ``store.PlanStore``: it goes through the store's one door to
Swift (``swift_door``).
"""

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import swift_door
from tripleoplanclient.plan import tree as tree_mod

# Swift's default (and usual) container_listing_limit.
LISTING_LIMIT = 10000


class Reads(object):
    """Listings and objects of plan containers."""

    LISTING_LIMIT = LISTING_LIMIT

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
            except swift_door.client_exception() as exc:
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
        except swift_door.client_exception() as exc:
            if self._status(exc) == 404:
                return None
            raise exceptions.CommandError(
                'Cannot read %s from plan %s: %s' % (name, plan, exc))

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

    def plans(self):
        """``[(name, container headers)]`` of every plan container."""
        try:
            _, containers = self._swift('get_account', full_listing=True)
        except swift_door.client_exception() as exc:
            raise exceptions.CommandError('Cannot list containers: %s' % exc)

        def head(name):
            try:
                return name, self._swift('head_container', name)
            except swift_door.client_exception():
                return name, {}         # deleted meanwhile

        return [(n, h) for n, h in self.map(
            head, [c['name'] for c in containers]) if layout.is_plan(h)]

    def view(self, plan, tree):
        """A ``tree.View`` of a recorded tree of ``plan``."""
        return tree_mod.View.of_store(self, plan, tree)
