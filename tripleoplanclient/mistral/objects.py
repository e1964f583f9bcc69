"""Plan objects as the actions read them: each content fetched once.

Mistral's executor lives long and runs every render and deploy, so object
bytes are kept by MD5 (the ``hash`` of a container listing) for its life:
an action lists the container, then reads only content it has not seen.
A redeploy with nothing changed reads no template from Swift, and a deploy
right after a render finds the rendered templates here already.

The executor serves every plan of every project: what it keeps is scoped
to one plan container (its Swift account URL and name), which the action
listed with the caller's token before reading anything, so no request
can name its way into another plan's content (a password file's MD5 in a
crafted tree, say).
"""

import collections
import threading

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import schema
from tripleoplanclient.plan import tree as plan_tree

MAX_BYTES = 256 * 1024 * 1024   # THT 18 is 5 MB: room for many plans


class ContentCache:
    """Bytes by MD5, least recently used dropped first."""

    def __init__(self, max_bytes=MAX_BYTES):
        self._data = collections.OrderedDict()
        self._size = 0
        self._max = max_bytes
        self._lock = threading.Lock()

    def get(self, md5, scope=None):
        key = (scope, md5)
        with self._lock:
            data = self._data.get(key)
            if data is not None:
                self._data.move_to_end(key)
            return data

    def put(self, data, scope=None):
        md5 = content.md5(data)
        key = (scope, md5)
        with self._lock:
            if key not in self._data:
                self._data[key] = data
                self._size += len(data)
            while self._size > self._max:
                _, old = self._data.popitem(last=False)
                self._size -= len(old)
        return md5

    def scoped(self, account_url, plan):
        """This cache as seen by the actions working on one plan."""
        return _Scoped(self, (account_url.rstrip('/'), plan))


class _Scoped:

    def __init__(self, cache, scope):
        self._cache = cache
        self._scope = scope

    def get(self, md5):
        return self._cache.get(md5, self._scope)

    def put(self, data):
        return self._cache.put(data, self._scope)


# The executor's; reached only through scoped().
CACHE = ContentCache()


def recorded(store, plan, listing, tree, cache):
    """The listing an action works from: the plan's recorded tree (path ->
    MD5, from the step the client recorded or is recording) in place of
    the container's own entries for those paths, which a replica that
    missed a write just made may still lack; the record's objects from
    the container. ``tree`` None (a plan made before trees were recorded):
    the container's listing."""
    if tree is None:
        return listing
    try:
        schema.check(tree, schema.RECORDED_TREE)
    except schema.Damaged as exc:
        # Its paths and MD5s name objects to read: none may leave the plan.
        raise exceptions.CommandError(
            'Bad request for plan %s: its tree is not a recorded tree (%s). '
            'Nothing was read.' % (plan, str(exc).replace(
                'the object', 'the tree', 1)))

    def load(md5):
        data = cache.get(md5)
        if data is None:
            data = store.container.get(plan, plan_tree.snapshot_name(md5))
            if data is not None:
                cache.put(data)
        return data

    full = plan_tree.View(tree, load, plan).full()
    out = {p: e for p, e in listing.items()
           if p.startswith(layout.RECORD_DIR)}
    out.update((p, {'name': p, 'hash': md5}) for p, md5 in full.items())
    return out


class PlanObjects:
    """Read objects of one plan listing, through the cache.

    ``gets`` counts the objects that came from Swift, ``hits`` those that
    did not need to.
    """

    def __init__(self, store, plan, listing, cache):
        self.store = store
        self.plan = plan
        self.listing = listing
        self.cache = cache
        self.gets = 0
        self.hits = 0
        self._lock = threading.Lock()

    def __contains__(self, path):
        return path in self.listing

    def read(self, path):
        """The bytes of ``path``; KeyError when the plan has no such object."""
        entry = self.listing[path]
        data = self.cache.get(entry['hash'])
        if data is not None:
            with self._lock:
                self.hits += 1
            return data
        data = self.store.container.get(self.plan, path)
        if path == layout.PLAN_PARAMETERS and layout.is_md5(
                entry['hash']) and (data is None or content.md5(data) !=
                                    entry['hash']):
            # Replaced since (a step written side by side, a mended file):
            # every parameters file is kept under its MD5 too.
            kept = self.store.container.get(self.plan, plan_tree.kept_name(
                entry['hash']))
            if kept is not None and content.md5(kept) == entry['hash']:
                data = kept
        if data is None:
            raise exceptions.CommandError(
                '%s vanished from plan %s while it was read; run the command '
                'again.' % (path, self.plan))
        if content.md5(data) != entry['hash']:
            # Replaced since the step was recorded (another command, or a
            # hand edit): never use content the record does not name.
            raise exceptions.CommandError(
                '%s of plan %s does not hold the content its record names '
                '(changed meanwhile by another command or by hand). Run the '
                'command again; if this persists, put back what the record '
                'names: "openstack overcloud plan restore %s --step <its '
                'newest step>".' % (path, self.plan, self.plan))
        with self._lock:
            self.gets += 1
        self.cache.put(data)
        return data


class Overlaid:
    """Plan objects as a step would leave them, without writing them:
    ``added`` (``{path: bytes}``, content not in Swift) on top of
    ``objects`` (a PlanObjects), ``deleted`` paths gone.

    Read like a PlanObjects. Added content is neither cached nor checked
    against Swift: its MD5 is computed here; it lives only as long as this
    object.
    """

    def __init__(self, objects, added=None, deleted=()):
        self.base = objects
        self.plan = objects.plan
        self.added = dict(added or {})
        self.deleted = frozenset(deleted) - set(self.added)
        listing = {p: e for p, e in objects.listing.items()
                   if p not in self.deleted}
        listing.update((p, {'name': p, 'hash': content.md5(d)})
                       for p, d in self.added.items())
        self.listing = listing

    @property
    def gets(self):
        return self.base.gets

    @property
    def hits(self):
        return self.base.hits

    def __contains__(self, path):
        return path in self.listing

    def read(self, path):
        if path in self.added:
            return self.added[path]
        if path in self.deleted:
            raise KeyError(path)
        return self.base.read(path)

    def changed(self, added=None, deleted=()):
        """These objects with more changes on top."""
        merged = {p: d for p, d in self.added.items() if p not in deleted}
        merged.update(added or {})
        return Overlaid(self.base, merged, self.deleted | set(deleted))
