"""Plan life-cycle steps: what create and amend change, decided once.

Each step computes the objects to write against what Swift (or the record)
already holds, writes only those in one batch, then commits the step.
``Change`` is shared with the stack steps (deploy, update, upgrade).
"""

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import record as record_mod
from tripleoplanclient.plan import tree as tree_mod


def _manifest(files, paths):
    """Record entries (local source, MD5) of the user files among ``paths``."""
    return {p: {'source': files.sources[p],
                'md5': content.md5(files.objects[p])}
            for p in paths if p in files.sources}


def _diff(stored_md5, objects):
    """``(added, changed)``: objects that are new or differ from Swift's."""
    added, changed = [], []
    for path, data in objects.items():
        old = stored_md5(path)
        if old is None:
            added.append(path)
        elif old != content.md5(data):
            changed.append(path)
    return sorted(added), sorted(changed)


def sync(store, plan, files, listing, extra=None):
    """Write what ``files`` holds that ``listing`` lacks or has otherwise.

    One listing in, one batch out: returns ``(added, changed)``. Objects
    the plan holds and ``files`` does not (rendered templates, the record,
    earlier user files) are left alone; the content of the changed ones is
    kept first. ``extra``: record objects to write in the same batch.
    """
    added, changed = _diff(
        lambda p: listing[p]['hash'] if p in listing else None,
        files.objects)
    store.keep(plan, {p: listing[p]['hash'] for p in changed},
               tree_mod.kept(listing))
    objects = {p: files.objects[p] for p in added + changed}
    objects.update(extra or {})
    store.write(plan, objects)
    return added, changed


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


def _raise_if_failed(plan, step):
    if step['outcome']['status'] != 'SUCCESS':
        raise exceptions.CommandError(
            'Plan %s: step %s recorded as FAILED (its files are stored). %s. '
            'Fix the cause and run the command again.' % (
                plan, step['id'], step['outcome']['reason']))


def _add_passwords(store, plan, files, listing):
    """plan-environment.yaml with a value for every password the templates
    need, written with the rest; values an earlier attempt stored stay."""
    from tripleoplanclient.plan import passwords

    path = layout.PLAN_ENVIRONMENT
    stored = store.get(plan, path) if listing and path in listing else None
    values = passwords.generate(passwords.needed(files.objects),
                                passwords.stored(stored) if stored else None)
    files.objects[path] = passwords.plan_environment(
        files.objects.get(path) if stored is None else stored, values,
        plan=plan)


def create(store, plan, files, render=None):
    """Create the plan: container, templates, user files, render, record.

    Returns ``(step, head)``: the step and what a next step builds on.
    """
    headers, listing = store.listing(plan)
    if listing is not None and not layout.is_plan(headers):
        raise exceptions.CommandError(
            'Container %s exists and is not a plan; choose another plan '
            'name.' % plan)
    head = store.head(plan, required=False) if listing is not None else None
    if head is not None and head.state['created']:
        raise exceptions.CommandError(
            'Plan %s already exists. Change it with "openstack overcloud '
            'plan amend" or "openstack overcloud deploy", or delete it '
            'first.' % plan)
    if head is None:
        head = record_mod.Head(record_mod.new_state(), 0, None, [])
    if render is not None:
        render.check()
    if files.templates:
        _add_passwords(store, plan, files, listing)
    if listing is None:
        store.create_container(plan)
        listing = {}
    # A container without a successful create is a create that stopped
    # half-way: carry on from what already landed.
    full = {p: content.md5(d) for p, d in files.objects.items()}
    name, snapshot, base = tree_mod.snapshot(full)
    added, changed = sync(store, plan, files, listing, {name: snapshot})
    step = record_mod.make_step(
        'create', {'environments': {'set': list(files.environments)},
                   'files': _manifest(files, files.sources),
                   'inputs': dict(files.inputs),
                   'templates': files.templates,
                   'release': files.release,
                   'tree_base': base}, added, changed)
    render_step(render, plan, step, files.inputs,
                tree_mod.View.of_full(full))
    store.commit(plan, step, head)
    _raise_if_failed(plan, step)
    return step, after(head, step)


def after(head, step):
    """What the next step builds on once ``step`` is committed."""
    return record_mod.Head(step['state'], head.count + 1, step['id'], [])


def resolve_removals(files, current, names):
    """Plan paths of ``--remove-environment`` values (local or plan paths)."""
    paths = []
    for name in names:
        match = name if name in current else files.plan_path(
            name, '--remove-environment %s' % name)
        if match not in current:
            raise exceptions.CommandError(
                '--remove-environment %s: not in the environment list of the '
                'plan (%s). See "openstack overcloud plan show-history".' % (
                    name, ', '.join(current) or 'empty'))
        paths.append(match)
    return paths


def _needs_render(state, paths, inputs):
    from tripleoplanclient.plan import rendering

    merged = dict(state['inputs'], **inputs)
    return (state['render'] != 'SUCCESS'
            or any(state['inputs'].get(k) != v for k, v in inputs.items())
            or any(rendering.is_input(p, merged) for p in paths))


class Change(object):
    """What a step would change in a plan, worked out before writing.

    What to write is decided against what Swift holds: its listing when
    given (templates too), else the MD5s the record says the plan's own
    writes left there. What the step records is decided against the
    record (``view``: the tree before the step, read only if a path is
    not a known user file), so that a file a stopped command left in
    Swift is still on record once a step lands.
    """

    def __init__(self, state, files, remove=(), listing=None, view=None,
                 deleted=()):
        known = state['files']

        def recorded(p):
            if p in known:
                return known[p]['md5']
            if p.startswith(layout.USER_FILES):
                return None     # every user file of the tree is known
            return view.md5(p) if view is not None else None

        if listing is not None:
            def stored(p):
                return listing[p]['hash'] if p in listing else None
        else:
            stored = recorded
        self.files = files
        self.view = view
        self.remove = list(remove)
        self.added, self.changed = _diff(stored, files.objects)
        # The content these replace, to keep before they are written.
        self.replaced = {p: stored(p) for p in self.changed}
        self.kept = tree_mod.kept(listing) if listing is not None else ()
        self.noted = sorted(set(self.added + self.changed).union(
            *_diff(recorded, files.objects)))
        # Objects of an old templates release the new one lacks.
        self.deleted = sorted(deleted)
        self.replaced.update((p, stored(p)) for p in self.deleted
                             if stored(p))
        self.environments = record_mod.amended(
            state['environments'], files.environments, remove)
        self.inputs = dict(files.inputs)
        self.empty = not self.noted and not self.deleted and \
            self.environments == state['environments'] and all(
                state['inputs'].get(k) == v for k, v in self.inputs.items())
        self.renders = _needs_render(state, self.noted + self.deleted,
                                     self.inputs)
        self.render_inputs = dict(state['inputs'], **self.inputs)
        self.templates = None       # set when the step moves the tree
        # The release it moves to (files.release), when it moves the tree.
        self.release = None

    def objects(self):
        return {p: self.files.objects[p] for p in self.added + self.changed}

    def keep(self, store, plan):
        """Keep the content the step is about to replace."""
        store.keep(plan, self.replaced, self.kept)

    def write(self, store, plan):
        self.keep(store, plan)
        store.write(plan, self.objects())
        store.delete_objects(plan, self.deleted)

    def step(self, action, **details):
        change = {'environments': {'add': list(self.files.environments),
                                   'remove': self.remove},
                  'files': _manifest(self.files, self.noted),
                  'inputs': self.inputs,
                  'tree': dict({p: None for p in self.deleted}, **{
                      p: content.md5(self.files.objects[p])
                      for p in self.noted})}
        if self.templates:
            change['templates'] = self.templates
        if self.release:
            change['release'] = self.release
        return record_mod.make_step(action, change, self.added, self.changed,
                                    self.deleted, **details)


def adopt(store, plan, step, state, listing=None):
    """Give a plan made before trees were recorded its tree, on its next
    step: the container as it is (one listing, when none is at hand),
    written at once as a snapshot (a render may read it)."""
    if state.get('tree') is not None or not state.get('created'):
        return
    if listing is None:
        _, listing = store.listing(plan)
    name, data, md5 = tree_mod.snapshot(tree_mod.of_listing(listing or {}))
    store.write(plan, {name: data})
    step['change']['tree_base'] = md5


def amend(store, plan, head, files, remove=(), render=None,
          no_render=False):
    """Change only what the user named; returns the step.

    None when nothing changed (nothing is written then). A render runs only
    when a rendering input changed (or the last render did not succeed);
    without one, the files and the step go to Swift in one request.
    """
    view = store.view(plan, head.state.get('tree'))
    change = Change(head.state, files, remove, view=view)
    if change.empty:
        return None
    renders = change.renders and not no_render
    if renders:
        render.check()
    step = change.step('amend')
    adopt(store, plan, step, head.state)
    if renders:
        change.write(store, plan)
        render_step(render, plan, step, change.render_inputs, view)
        store.commit(plan, step, head)
    else:
        if change.renders:
            render_step(None, plan, step, change.render_inputs)
        change.keep(store, plan)
        store.commit(plan, step, head, change.objects())
    _raise_if_failed(plan, step)
    return step
