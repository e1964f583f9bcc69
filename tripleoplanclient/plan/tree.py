"""What the plan held after each step, and where that content lives now.

Every object of the plan outside the record is part of its *tree*: plan
path -> MD5. A step's state names its tree as a content-addressed
snapshot (``user-environments/trees/<md5>.json``) plus the changes made
since; a step's change holds only its own changes, so that a replay stays
right when writers race. Before a step replaces or deletes an object, the
old content is copied inside Swift to ``user-environments/kept/<md5>``
(no byte travels from the client, and only what changes costs storage):
any past tree can be read back, each path from its object while that
still holds the MD5, else from the kept copy.
"""

import json

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import schema

SNAPSHOT_PREFIX = layout.RECORD_DIR + 'trees/'
KEPT_PREFIX = layout.RECORD_DIR + 'kept/'
# Changes a state carries before its writer folds them into a snapshot:
# small enough to keep each step object small, large enough that most
# steps write no snapshot.
COMPACT = 200


def in_tree(path):
    # Staged values are the parameters_set action's to read and remove.
    return not path.startswith((layout.RECORD_DIR,
                                layout.STAGED_PARAMETERS))


def kept_name(md5):
    return KEPT_PREFIX + md5


def snapshot_name(md5):
    return '%s%s.json' % (SNAPSHOT_PREFIX, md5)


def merged(tree, delta):
    """``tree`` with ``delta`` (path -> MD5, None: deleted) on top."""
    if tree is None:
        return None         # a plan whose tree was never recorded
    return {'base': tree['base'],
            'changes': dict(tree['changes'], **(delta or {}))}


def after(tree, change):
    """The tree once a step's ``change`` is applied: ``tree_base`` (create,
    restore, adopting a plan made before trees were recorded) sets the
    whole tree, ``tree`` changes paths."""
    if change.get('tree_base') is not None:
        tree = {'base': change['tree_base'], 'changes': {}}
    return merged(tree, change.get('tree'))


def snapshot(full):
    """``(name, bytes, md5)`` of the snapshot object of a whole tree."""
    data = json.dumps(full, sort_keys=True, separators=(',', ':')).encode()
    md5 = content.md5(data)
    return snapshot_name(md5), data, md5


def of_listing(listing):
    """The tree a container listing shows (to adopt a plan whose tree was
    never recorded)."""
    return {p: e['hash'] for p, e in listing.items() if in_tree(p)}


class View:
    """One recorded tree, its snapshot read (once) only when asked.

    :param load: ``md5 -> bytes or None``, reads a snapshot object
    """

    def __init__(self, tree, load, plan):
        self.tree = tree
        self._load = load
        self._plan = plan
        self._full = None

    @classmethod
    def of_container(cls, container, plan, tree):
        return cls(tree, lambda md5: container.get(
            plan, snapshot_name(md5)), plan)

    @classmethod
    def of_full(cls, full):
        """A view of a tree already at hand (``{path: md5}``)."""
        view = cls({'base': None, 'changes': dict(full)}, None, None)
        view._full = dict(full)
        return view

    @property
    def known(self):
        return self.tree is not None

    def full(self):
        """``{path: md5}`` of every object of the tree."""
        if self._full is None:
            if self.tree is None:
                raise exceptions.CommandError(
                    'Plan %s: the content of this step was never recorded '
                    '(the plan was made by an older tripleoplanclient); '
                    'only steps recorded since can be shown, exported or '
                    'restored.' % self._plan)
            full = {}
            if self.tree['base']:
                data = self._load(self.tree['base'])
                try:
                    # Named by its MD5: other bytes there are no snapshot
                    # (a tree another PUT made up).
                    if content.md5(data) != self.tree['base']:
                        raise schema.Damaged('not the content named')
                    full = schema.check(json.loads(data), schema.SNAPSHOT)
                except (TypeError, ValueError, RecursionError,
                        schema.Damaged):
                    full = None
                if not isinstance(full, dict):
                    raise exceptions.CommandError(
                        'Plan %s: snapshot %s is missing or damaged; restore '
                        'it from an export.' % (
                            self._plan, snapshot_name(self.tree['base'])))
            for path, md5 in self.tree['changes'].items():
                if md5 is None:
                    full.pop(path, None)
                else:
                    full[path] = md5
            self._full = full
        return self._full

    def md5(self, path):
        return self.full().get(path) if self.known else None

    def delta(self, hashes, removed=()):
        """The changes that make this tree hold ``hashes`` and lose
        ``removed``."""
        full = self.full() if self.known else {}
        out = {p: h for p, h in hashes.items() if full.get(p) != h}
        out.update((p, None) for p in removed if p in full)
        return out


def kept(listing):
    """MD5s whose content the plan keeps already, from its listing."""
    return {n[len(KEPT_PREFIX):] for n in listing
            if n.startswith(KEPT_PREFIX)}


def sources(full, listing):
    """Where each path of ``full`` can be read now: ``{path: object
    name}``, and the paths whose content is nowhere (changed outside a
    step, or lost to a concurrent write, or its kept copy damaged)."""
    found, missing = {}, []
    for path, md5 in sorted(full.items()):
        if listing.get(path, {}).get('hash') == md5:
            found[path] = path
        elif listing.get(kept_name(md5), {}).get('hash') == md5:
            # (a kept copy is named by its MD5: other bytes there are none)
            found[path] = kept_name(md5)
        else:
            missing.append(path)
    return found, missing
