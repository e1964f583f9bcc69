"""Plan life-cycle steps: what create and amend change, decided once.

Each step computes the objects to write against what Swift (or the record)
already holds, writes only those in one batch, then commits the step.
"""

import re

from tripleoplanclient import errors as exceptions
from tripleoplanclient import environments
from tripleoplanclient import record as record_mod

_PLAN_NAME = re.compile(r'^[A-Za-z0-9][A-Za-z0-9-]*$')


def check_name(plan):
    if not _PLAN_NAME.match(plan or '') or len(plan) > 255:
        raise exceptions.CommandError(
            'Plan name %r is not valid: use letters, digits and dashes, '
            'starting with a letter or digit (it also names the Heat stack).'
            % plan)
    return plan


def _manifest(files, paths):
    """Record entries (local source, MD5) of the user files among ``paths``."""
    return {p: {'source': files.sources[p],
                'md5': environments.md5(files.objects[p])}
            for p in paths if p in files.sources}


def _diff(stored_md5, objects):
    """``(added, changed)``: objects that are new or differ from Swift's."""
    added, changed = [], []
    for path, data in objects.items():
        old = stored_md5(path)
        if old is None:
            added.append(path)
        elif old != environments.md5(data):
            changed.append(path)
    return sorted(added), sorted(changed)


def sync(store, plan, files, listing):
    """Write what ``files`` holds that ``listing`` lacks or has otherwise.

    One listing in, one batch out: returns ``(added, changed)``. Objects
    the plan holds and ``files`` does not (rendered templates, the record,
    earlier user files) are left alone.
    """
    added, changed = _diff(
        lambda p: listing[p]['hash'] if p in listing else None,
        files.objects)
    store.write(plan, {p: files.objects[p] for p in added + changed})
    return added, changed


def _render(render, plan, step, inputs):
    """Render after the objects landed; the entry and outcome go in the step.

    ``inputs``: the roles / networks paths in force once the step lands.

    ``render`` is None with --no-render: the step says SKIPPED and the next
    step that can render will.
    """
    if render is None:
        step['render'] = {'state': 'SKIPPED'}
        return step
    step['render'] = render(plan, inputs)
    if step['render']['state'] != 'SUCCESS':
        step['outcome']['status'] = 'FAILED'
        step['outcome']['reason'] = 'render %s: %s' % (
            step['render']['state'], step['render'].get('info'))
    return step


def _raise_if_failed(plan, step):
    if step['outcome']['status'] != 'SUCCESS':
        raise exceptions.CommandError(
            'Plan %s: step %d recorded as FAILED. %s. Fix the cause and run '
            'the command again.' % (plan, step['id'],
                                    step['outcome']['reason']))


def create(store, plan, files, render=None):
    """Create the plan: container, templates, user files, render, record."""
    headers, listing = store.listing(plan)
    record = record_mod.new(plan, files.templates)
    if listing is not None and not store.is_plan(headers):
        raise exceptions.CommandError(
            'Container %s exists and is not a plan; choose another plan '
            'name.' % plan)
    if listing is not None and record_mod.PATH in listing:
        record = store.read_record(plan)
        if record_mod.succeeded(record):
            raise exceptions.CommandError(
                'Plan %s already exists. Change it with "openstack overcloud '
                'plan amend" or "openstack overcloud deploy", or delete it '
                'first.' % plan)
        # Only failed creates so far: this one carries on from them.
    if render is not None:
        render.check()
    if listing is None:
        store.create_container(plan)
        listing = {}
    # A container without a successful step is a create that stopped
    # half-way: carry on from what already landed.
    added, changed = sync(store, plan, files, listing)
    step = record_mod.make_step(
        'create', files.environments, added, changed,
        inputs=dict(files.inputs),
        files=_manifest(files, files.sources))
    _render(render, plan, step, files.inputs)

    def rebase(record, step):
        raise exceptions.CommandError(
            'Plan %s was created by another command at the same time; see '
            '"openstack overcloud plan show-history %s".' % (plan, plan))

    record = store.commit(plan, record, step, rebase)
    _raise_if_failed(plan, step)
    return record, step


def _amended(current, add, remove):
    """The environment list after adding ``add`` and removing ``remove``.

    A file already in the list keeps its place; new ones go last.
    """
    result = [e for e in current if e not in remove]
    result.extend(e for e in add if e not in result)
    return result


def resolve_removals(files, current, names):
    """Plan paths of ``--remove-environment`` values (local or plan paths)."""
    paths = []
    for name in names:
        candidates = [name, files.plan_path(name)]
        match = next((c for c in candidates if c in current), None)
        if match is None:
            raise exceptions.CommandError(
                '--remove-environment %s: not in the environment list of the '
                'plan (%s). See "openstack overcloud plan show-history".' % (
                    name, ', '.join(current) or 'empty'))
        paths.append(match)
    return paths


def _needs_render(record, paths, inputs):
    from tripleoplanclient import rendering

    merged = dict(record['inputs'], **inputs)
    return (record_mod.render_state(record) != 'SUCCESS'
            or any(record['inputs'].get(k) != v for k, v in inputs.items())
            or any(rendering.is_input(p, merged) for p in paths))


def amend(store, plan, record, files, remove=(), render=None,
          no_render=False):
    """Change only what the user named; returns ``(record, step)``.

    ``step`` is None when nothing changed (nothing is written then). A
    render runs only when a rendering input changed (or the last render
    did not succeed).
    """
    known = record['files']
    added, changed = _diff(
        lambda p: known[p]['md5'] if p in known else None, files.objects)
    envs = _amended(record['environments'], files.environments, remove)
    if not (added or changed) and envs == record['environments'] and all(
            record['inputs'].get(k) == v for k, v in files.inputs.items()):
        return record, None
    needed = _needs_render(record, added + changed, files.inputs)
    renders = needed and not no_render
    if renders:
        render.check()
    store.write(plan, {p: files.objects[p] for p in added + changed})
    step = record_mod.make_step(
        'amend', envs, added, changed, inputs=dict(files.inputs),
        files=_manifest(files, added + changed))
    if needed:
        _render(render if renders else None, plan, step,
                dict(record['inputs'], **files.inputs))

    def rebase(newer, step):
        # Another writer got in first: apply our change on top of theirs.
        step['environments'] = _amended(newer['environments'],
                                        files.environments, remove)
        return step

    record = store.commit(plan, record, step, rebase)
    _raise_if_failed(plan, step)
    return record, step
