"""One way to build and commit a step, in Mistral, for every kind of step.

A request that records a step names what its client wrote already
(``tree``: path -> MD5, None: deleted), the user files among them
(``files``: path -> {source, md5, marks, name}), the environment files to
add
and remove, the inputs, a templates change, and the directory the
relative names are relative to. Here those fields are
checked (untrusted input: nothing is recorded when one is bad), Swift is
asked that it holds what the request says was written, the step is
decided against the plan's newest record (``steps.Change``) and
written as the caller (``store.writer.write_step``). The client decides
only what to upload; what to record is decided here, whoever the client
is.
"""

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import schema
from tripleoplanclient.plan import tree as tree_mod
from tripleoplanclient.record import log
from tripleoplanclient.record import steps

# Above this many claimed objects, one listing costs less than asking
# Swift about each (``landed``).
_LISTING_FROM = 20


def claimed(plan, req, field='tree', deletions=False):
    """The request's ``{path: MD5}`` (with ``deletions``, an MD5 may be
    None: the path was deleted), checked: untrusted input."""
    found = req[field] or {}
    if not isinstance(found, dict) or not all(
            isinstance(p, str) and (isinstance(m, str) or (
                deletions and m is None))
            for p, m in found.items()):
        raise exceptions.CommandError(
            'Bad request for plan %s: %s must map plan paths to MD5s%s. '
            'Nothing was recorded.' % (plan, field, ' (None: deleted)'
                                       if deletions else ''))
    for path in found:
        source = 'user' if path.startswith(layout.USER_FILES) else \
            'templates'
        layout.check_plan_path(path, 'Plan %s' % plan, source)
    return dict(found)


def paths(plan, req, field):
    """The request's list of plan paths ``field`` (None: empty)."""
    found = req[field] or []
    if not isinstance(found, list) or not all(
            isinstance(p, str) for p in found):
        raise exceptions.CommandError(
            'Bad request for plan %s: %s must list plan paths. Nothing was '
            'recorded.' % (plan, field))
    return list(found)


def inputs(plan, req):
    found = req['inputs'] or {}
    if not isinstance(found, dict) or not all(
            isinstance(v, str) for v in found.values()):
        raise exceptions.CommandError(
            'Bad request for plan %s: inputs must map roles_data, '
            'network_data or plan_environment to plan paths. Nothing was '
            'recorded.' % plan)
    return dict(found)


def manifest(plan, req, tree):
    """The request's user files (``{path: {source, md5, name}}``), each
    one of the written objects of ``tree`` with the same MD5 (``name``,
    as the user gave it, is optional)."""
    found = req['files'] or {}
    bad = sorted(str(p) for p, e in (found.items() if isinstance(
        found, dict) else [(found, None)])
        if not isinstance(e, dict) or not isinstance(e.get('source'), str)
        or tree.get(p) is None or tree.get(p) != e.get('md5')
        or ('name' in e and schema.name_problem(e['name'])))
    if bad:
        raise exceptions.CommandError(
            'Bad request for plan %s: files %s must each be {source, md5} '
            'of an object in tree, with any name a text of at most %d '
            'bytes without control characters. Nothing was recorded.'
            % (plan, ', '.join(bad[:10]), schema.MAX_NAME_BYTES))
    # A source's mark (record.origin) and its name go on record as the
    # client made them: only that client can tell whether it is its own.
    return {p: dict({k: e[k] for k in ('machine', 'tag', 'name')
                     if isinstance(e.get(k), str)},
                    source=e['source'], md5=e['md5'])
            for p, e in found.items()}


def directory(plan, req):
    """The request's ``directory`` (where its client ran), checked."""
    found = req['directory']
    if found is not None and (schema.name_problem(found)
                              or not found.startswith('/')):
        raise exceptions.CommandError(
            'Bad request for plan %s: directory must be an absolute path '
            'of at most %d bytes without control characters. Nothing was '
            'recorded.' % (plan, schema.MAX_NAME_BYTES))
    return found


def where(directory, files):
    """The step's ``directory`` detail: recorded once per step, when one
    of its ``files`` (record entries) is named relative to it."""
    if directory and any(not e.get('name', '/').startswith('/')
                         for e in files.values()):
        return {'directory': directory}
    return {}


def landed(store, plan, tree, listing=None):
    """Refuse unless Swift holds every object the request says was
    written: the listing first, then each path it does not confirm asked
    of every replica (a listing may lag behind a write just made)."""
    written = {p: m for p, m in tree.items() if m is not None}
    if listing is None and len(written) > _LISTING_FROM:
        _, listing = store.container.listing(plan)
    doubtful = [p for p, md5 in written.items()
                if (listing or {}).get(p, {}).get('hash') != md5]
    if not doubtful:
        return
    newest = store.container.newest_md5s(plan, doubtful)
    wrong = sorted(p for p in doubtful if newest[p] != written[p])
    if wrong:
        raise exceptions.CommandError(
            'Plan %s: Swift does not hold what the request says was written '
            'to %s%s (missing, or other content). Write those files first '
            'and ask again; nothing was recorded.' % (
                plan, ', '.join(wrong[:10]),
                ' and %d more' % (len(wrong) - 10) if len(wrong) > 10
                else ''))


def change(store, plan, req, head, deletions=False, landed_check=True):
    """The request's change against ``head`` (``steps.Change``), every
    field checked and what it says was written found in Swift (unless
    ``landed_check`` is False: the content is then checked against its
    MD5 only where it is read, by a render or a deploy).

    Fields: ``add``, ``remove``, ``files``, ``tree`` and ``inputs``; with
    ``deletions``, ``tree`` may delete paths, and ``templates`` and
    ``release`` (the templates tree the step moves to) are read too.
    """
    tree = claimed(plan, req, deletions=deletions)
    files = manifest(plan, req, tree)
    add, remove = paths(plan, req, 'add'), paths(plan, req, 'remove')
    environments = head.state['environments']
    missing = [p for p in remove if p not in environments]
    if missing:
        raise exceptions.CommandError(
            'Plan %s: %s not in its environment list (%s); nothing was '
            'recorded.' % (plan, ', '.join(missing),
                           ', '.join(environments) or 'empty'))
    if landed_check:
        landed(store, plan, tree)
    view = store.container.view(plan, head.state.get('tree'))
    written = {p: m for p, m in tree.items() if m is not None}
    out = steps.Change(head.state, Described(
        written, {p: e['source'] for p, e in files.items()}, add,
        inputs(plan, req), marks={
            p: {k: v for k, v in e.items() if k in ('machine', 'tag')}
            for p, e in files.items()},
        names={p: e['name'] for p, e in files.items() if 'name' in e},
        directory=directory(plan, req)), remove, view=view,
        deleted=[p for p, m in tree.items() if m is None])
    if deletions:
        for field, spec, what in (
                ('templates', str, 'text'),
                ('release', schema.RELEASE, '{version, digest}')):
            value = req[field]
            try:
                schema.check(value, (None, spec))
            except schema.Damaged:
                raise exceptions.CommandError(
                    'Bad request for plan %s: %s must be %s. Nothing was '
                    'recorded.' % (plan, field, what))
            if value and value != head.state.get(field):
                setattr(out, field, value)
    return out


def build(action, change, command, added=(), changed=(), removed=(),
          **details):
    """A step (not yet committed) of a change given as the record's
    ``change`` mapping (see ``log.apply``)."""
    return log.make_step(action, change, added, changed, removed,
                         command=command, **details)


def write_step(store, plan, step, head, objects=None):
    """Write ``step`` on ``head`` as the caller, after ``objects``
    (written in the same pass); returns the step as written."""
    return store.writer.write_step(plan, step, head, objects)


class Described:
    """Files a request describes, already in Swift: MD5s, not bytes (what
    the plan_create and plan_amend actions build their step from)."""

    def __init__(self, md5s, sources=None, environments=(), inputs=None,
                 marks=None, names=None, directory=None):
        self._md5s = dict(md5s)
        self.sources = dict(sources or {})
        self.names = dict(names or {})
        self.directory = directory
        self.environments = list(environments)
        self.inputs = dict(inputs or {})
        self._marks = dict(marks or {})

    def md5s(self):
        return dict(self._md5s)

    def marks(self):
        return dict(self._marks)


def step(change, action, **details):
    """The step (not yet committed) that ``change`` (``steps.Change``)
    makes, as ``action``; ``details``: as for ``log.make_step``."""
    recorded = {'environments': {'add': list(change.files.environments),
                                 'remove': change.remove},
                'files': steps.manifest(change.files, change.md5s,
                                        change.noted),
                'inputs': change.inputs,
                'tree': dict({p: None for p in change.deleted}, **{
                    p: change.md5s[p] for p in change.noted})}
    if change.templates:
        recorded['templates'] = change.templates
    if change.release:
        recorded['release'] = change.release
    details.update(where(change.files.directory, recorded['files']))
    return log.make_step(action, recorded, change.added,
                         change.changed, change.deleted, **details)


def render_step(render, plan, step, inputs, view=None):
    """Render after the objects landed; the entry and outcome go in the step.

    ``inputs``: the roles / networks paths in force once the step lands.
    ``view``: the tree before the step (``tree.View``); what the render
    wrote and removed is the step's change of the tree too.

    ``render`` is None with --no-render: the step says SKIPPED and the next
    step that can render will.
    """
    if render is None:
        step['render'] = {'state': 'SKIPPED'}
        return step
    step['render'] = render(plan, inputs, tree_mod.after(
        view.tree if view is not None else None, step['change']))
    hashes = step['render'].pop('hashes', None)
    removed = step['render'].pop('removed_paths', None) or ()
    if hashes is not None:
        delta = view.delta(hashes, removed) if view is not None and \
            view.known else dict(hashes, **{p: None for p in removed})
        tree = step['change'].setdefault('tree', {})
        tree.update((p, h) for p, h in delta.items() if p not in tree)
    if step['render']['state'] != 'SUCCESS':
        step['outcome']['status'] = 'FAILED'
        step['outcome']['reason'] = 'render %s: %s' % (
            step['render']['state'], step['render'].get('info'))
    return step


def adopt(store, plan, step, state, listing=None):
    """Give a plan made before trees were recorded its tree, on its next
    step: the container as it is (one listing, when none is at hand),
    written at once as a snapshot (a render may read it)."""
    if state.get('tree') is not None or not state.get('created'):
        return
    if listing is None:
        _, listing = store.container.listing(plan)
    name, data, md5 = tree_mod.snapshot(tree_mod.of_listing(listing or {}))
    store.container.write(plan, {name: data})
    step['change']['tree_base'] = md5
