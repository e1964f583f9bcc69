"""The body of the plan_restore action: a plan made what it was after a
past step, as a new step, the same for every client.

The content is in Swift already (the objects, or the copies kept when a
later step replaced them): it is put back by copies inside Swift, files
added since are deleted, and the step (the environment list, inputs,
templates and render state of then) is built and committed here as the
caller (``builder``). No file's bytes travel through Mistral or the
client.
"""

import re

from tripleoplanclient.common import exceptions
from tripleoplanclient.common import status
from tripleoplanclient.mistral import builder
from tripleoplanclient.mistral import command_line
from tripleoplanclient.plan import copies
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import tree as tree_mod
from tripleoplanclient import protocol
from tripleoplanclient.record import open_step
from tripleoplanclient.record import past as past_mod

# A step number, or a step id (record.new_id: 12 hex digits; any short
# word of letters and digits is looked up, and refused when not found).
_STEP = re.compile(r'[A-Za-z0-9_-]{1,64}\Z')


def which(plan, value):
    """The request's ``step``, checked: untrusted input."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not _STEP.match(value.strip()):
        raise exceptions.CommandError(
            'Bad plan_restore request for plan %s: step must be a step '
            'number or id from "openstack overcloud plan show-history %s", '
            'not %r. Nothing was recorded.' % (plan, plan, value))
    return value.strip()


def step(store, past, command):
    """Put the plan back as it was after ``past`` (``past.At``) and
    record it: the files put back from their kept copies (inside Swift),
    files added since deleted, the record's state of then. Returns the
    step as committed, or None when the plan already is so."""
    plan, listing, head = past.plan, past.listing, past.head
    then, now = past.state, head.state
    snapshots = {}

    def load(md5):
        # Then and now often share their snapshot: it is read once.
        if md5 not in snapshots:
            snapshots[md5] = store.container.get(
                plan, tree_mod.snapshot_name(md5))
        return snapshots[md5]

    full = tree_mod.View(then.get('tree'), load, plan).full()
    current = tree_mod.View(now.get('tree'), load, plan)
    full_now = current.full() if current.known else tree_mod.of_listing(
        listing)
    write = sorted(p for p, md5 in full.items()
                   if listing.get(p, {}).get('hash') != md5)
    remove = sorted(p for p in full_now if p not in full and p in listing)
    sources = past_mod.readable(past, full, write)
    change = {
        'environments': {'set': list(then['environments'])},
        'files': {p: v for p, v in then['files'].items()
                  if now['files'].get(p) != v},
        'drop_files': sorted(set(now['files']) - set(then['files'])),
        'inputs': dict(then['inputs']),
        'drop_inputs': sorted(set(now['inputs']) - set(then['inputs'])),
        'templates': then['templates'],
        'release': then.get('release'),
        'tree_base': then['tree']['base'],
        'tree': dict(then['tree']['changes']),
        'render_state': then['render'],
    }
    if not (write or remove) and all(
            now.get(k) == then.get(k) for k in (
                'environments', 'files', 'inputs', 'templates', 'render')):
        return None
    built = builder.build(
        'restore', change, command,
        added=[p for p in write if p not in listing],
        changed=[p for p in write if p in listing], removed=remove,
        restored={'step': past.row['step'], 'id': past.row['id']})
    copies.keep(store.container, plan, {
        p: listing[p]['hash'] for p in write + remove
        if p in listing}, tree_mod.kept(listing))
    copies.copy_objects(store.container, plan, {p: sources[p] for p in write},
                        {p: full[p] for p in write})
    store.container.delete_objects(plan, remove)
    return builder.write_step(store, plan, built, head)


def restore(store, heat, req):
    """The plan_restore action's body (``protocol.WORKFLOWS``): refused,
    with nothing written, for a bad request, a step whose content was not
    kept, or while a stack operation of the plan runs. Answers the step's
    summary (``protocol.result``, UNCHANGED when the plan already is as
    then) and the step it went back to (``restored``: step, id)."""
    plan = layout.check_name(req['container'])
    wanted = which(plan, req['step'])
    history = past_mod.History(store, plan)
    past = history.at(wanted)
    # Refused while a stack operation of the plan runs (a step nobody saw
    # end is mended from Heat first), as before any other plan step.
    open_step.check_idle(store, plan, history.rows, status.lookup(
        heat, plan, req['heat_url']))
    done = step(store, past, command_line.command(
        req, 'tripleoplan.plan_restore'))
    out = protocol.result(plan, done, past.head.state)
    out['restored'] = {'step': past.row['step'], 'id': past.row['id']}
    return out
