"""Plan life-cycle steps: what create and amend change, decided once.

The client's half of create and amend writes, in one batch, only the
objects Swift (or the record) does not hold already; the plan_create and
plan_amend actions then decide the step from what was written and commit
it (``mistral.builder``). ``Change`` is what both halves, and the stack
steps (deploy, update, upgrade), decide with: here what to upload, there
what to record.
"""

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import copies
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import tree as tree_mod
from tripleoplanclient.record import log


def manifest(files, md5s, paths):
    """Record entries (local source, MD5, its mark: plan.origin, the name
    the user gave it) of the user files of ``files`` among ``paths``."""
    marks = files.marks()
    return {p: dict(marks.get(p) or {}, source=files.sources[p], md5=md5s[p],
                    **({'name': files.names[p]} if p in files.names else {}))
            for p in paths if p in files.sources}


def _remarked(known, files):
    """User files given again whose recorded entry (``known``) names
    another source or mark: recorded again, so that later steps may read
    them again (plan.sources) as this user on this machine."""
    marks = files.marks()
    return [p for p, source in files.sources.items() if p in known and (
        known[p].get('source') != source or any(
            known[p].get(k) != v for k, v in (marks.get(p) or {}).items()))]


def _diff(stored_md5, md5s):
    """``(added, changed)``: objects that are new or differ from Swift's."""
    added, changed = [], []
    for path, md5 in md5s.items():
        old = stored_md5(path)
        if old is None:
            added.append(path)
        elif old != md5:
            changed.append(path)
    return sorted(added), sorted(changed)


def sync(store, plan, objects, listing, extra=None):
    """Write what ``objects`` holds that ``listing`` lacks or has otherwise.

    One listing in, one batch out: returns ``(added, changed)``. Objects
    the plan holds and ``objects`` does not (rendered templates, the
    record, earlier user files) are left alone; the content of the changed
    ones is kept first. ``extra``: record objects to write in the same
    batch.
    """
    added, changed = _diff(
        lambda p: listing[p]['hash'] if p in listing else None,
        {p: content.md5(d) for p, d in objects.items()})
    copies.keep(store.container, plan,
                {p: listing[p]['hash'] for p in changed},
                tree_mod.kept(listing))
    batch = {p: objects[p] for p in added + changed}
    batch.update(extra or {})
    store.container.write(plan, batch)
    return added, changed


def failed(plan, result):
    """The error for a step recorded as FAILED (``result``: the step's
    summary, ``written.result``), None when it succeeded."""
    if result['status'] != 'FAILED':
        return None
    return exceptions.CommandError(
        'Plan %s: step %s recorded as FAILED (its files are stored). %s. '
        'Fix the cause and run the command again.' % (
            plan, result['id'], result.get('reason')))


def create(store, plan, files, record, render=True):
    """Create the plan: the client's half, then ``record``'s.

    Here: refuse a name taken, make the container, write what Swift lacks
    of ``files`` in one pass. ``record`` (``plans.Recorder``) then has the
    plan_create action check what landed, generate the passwords,
    render and record the step (``mistral.lifecycle.create``). Returns the
    action's summary of the step.
    """
    headers, listing = store.container.listing(plan)
    if listing is not None and not layout.is_plan(headers):
        raise exceptions.CommandError(
            'Container %s exists and is not a plan; choose another plan '
            'name.' % plan)
    head = store.reader.head(plan, required=False) \
        if listing is not None else None
    refuse_created(plan, head)
    record.check()
    if listing is None:
        store.container.create_container(plan)
        listing = {}
    objects = dict(files.objects)
    fields = dict(create_request(files), render=render)
    if layout.PLAN_ENVIRONMENT in listing:
        # A create that stopped half-way left it with generated passwords:
        # the action carries on from it.
        objects.pop(layout.PLAN_ENVIRONMENT, None)
        fields['tree'][layout.PLAN_ENVIRONMENT] = \
            listing[layout.PLAN_ENVIRONMENT]['hash']
    sync(store, plan, objects, listing)
    # Followed as a workflow, rendering or not, as a GUI's create is.
    return record(plan, 'plan_create', fields, renders=True)


def refuse_created(plan, head):
    """A create is refused once a create of the plan succeeded (``head``:
    what its record says, None: no record)."""
    if head is not None and head.state['created']:
        raise exceptions.CommandError(
            'Plan %s already exists. Change it with "openstack overcloud '
            'plan amend" or "openstack overcloud deploy", or delete it '
            'first.' % plan)


def create_request(files):
    """The plan_create request fields that describe ``files``: with the
    names of the passwords its templates need, found here in the bytes at
    hand, so that the action reads none of the templates just written."""
    from tripleoplanclient.plan import passwords

    md5s = files.md5s()
    return {'environments': list(files.environments),
            'files': manifest(files, md5s, files.sources),
            'tree': md5s,
            'inputs': dict(files.inputs),
            'templates': files.templates,
            'release': files.release,
            'passwords': passwords.needed(files.objects),
            'directory': files.directory}


def after(head, step):
    """What the next step builds on once ``step`` is committed."""
    return log.Head(step['state'], head.count + 1, step['id'], [],
                    None if head.rows is None else list(head.rows) + [
                               log.row(step, len(head.rows) + 1)],
                    head.through)


def head_after(result):
    """What the next step builds on once the step an action answered
    (``mistral.lifecycle``) is committed."""
    return log.Head(result['state'], result['seen'] + 1,
                    result['id'], [])


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


class Change:
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
        self.md5s = files.md5s()
        self.view = view
        self.remove = list(remove)
        self.added, self.changed = _diff(stored, self.md5s)
        # The content these replace, to keep before they are written.
        self.replaced = {p: stored(p) for p in self.changed}
        self.kept = tree_mod.kept(listing) if listing is not None else ()
        self.noted = sorted(set(self.added + self.changed).union(
            *_diff(recorded, self.md5s)).union(_remarked(known, files)))
        # Objects of an old templates release the new one lacks.
        self.deleted = sorted(deleted)
        self.replaced.update((p, stored(p)) for p in self.deleted
                             if stored(p))
        self.environments = log.amended(
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
        copies.keep(store.container, plan, self.replaced, self.kept)

    def write(self, store, plan):
        self.keep(store, plan)
        store.container.write(plan, self.objects())
        store.container.delete_objects(plan, self.deleted)


def amend(store, plan, head, files, remove=(), record=None,
          no_render=False):
    """Change only what the user named: the client's half, then
    ``record``'s (the plan_amend action, ``mistral.lifecycle.amend``).

    Here: what differs from the record is written in one pass (the content
    it replaces kept first). Returns the action's summary of the step, or
    None when nothing changed (nothing is written then).
    """
    view = store.container.view(plan, head.state.get('tree'))
    change = Change(head.state, files, remove, view=view)
    if change.empty:
        return None
    renders = change.renders and not no_render
    if renders:
        # A workflow to follow: Mistral is asked first whether it has ours.
        # Else the one action request is the check (it names what to
        # install), and files it finds unrecorded are written again.
        record.check()
    change.keep(store, plan)
    store.container.write(plan, change.objects())
    return record(plan, 'plan_amend', amend_request(change, not no_render),
                  renders=renders)


def amend_request(change, render=True):
    """The plan_amend request fields of a ``Change`` (files written)."""
    return {'add': list(change.files.environments),
            'remove': list(change.remove),
            'files': manifest(change.files, change.md5s, change.noted),
            'tree': {p: change.md5s[p] for p in change.noted},
            'inputs': dict(change.inputs),
            'render': render,
            'directory': change.files.directory}
