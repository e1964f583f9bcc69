"""Any past step of a plan: its files shown, exported, compared (and
read by the plan_restore action, ``mistral.restore``).

A step's state names the plan's tree after it (``tree``); the content of
each path is read from its object while that still holds the recorded
MD5, else from the copy kept when a later step replaced it. An export of
step N holds that tree and the step objects up to N (never rewritten),
the configuration archive step N kept (``configs``),
with times taken from step N, so it is the same file whenever it is made.
"""

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import export as plan_export
from tripleoplanclient.plan import tree as tree_mod
from tripleoplanclient.record import configs
from tripleoplanclient.record import log


class At:
    """Step ``row`` of a plan and what is needed to reproduce it.

    ``rows``: the whole history; ``state``: the plan's state after the
    step; ``entries``: the listing entries of the step objects up to it;
    ``listing``: the plan's whole listing; ``head``: what a next step
    builds on.
    """

    def __init__(self, plan, rows, row, state, entries, listing, head):
        self.plan = plan
        self.rows = rows
        self.row = row
        self.state = state
        self.entries = entries
        self.listing = listing
        self.head = head


def find(plan, rows, which):
    """The history row of ``which``: a step number or a step id."""
    text = str(which).strip()
    # An id first: one in ~300 is all digits, and no step number has 12.
    for row in rows:
        if row['id'] == text:
            return row
    if text.isdigit():
        number = int(text)
        if 1 <= number <= len(rows):
            return rows[number - 1]
        raise exceptions.CommandError(
            'Plan %s has no step %s: its history has steps 1 to %d. See '
            '"openstack overcloud plan show-history %s".' % (
                plan, text, len(rows), plan))
    raise exceptions.CommandError(
        'Plan %s has no step with id %r; give a step number or id from '
        '"openstack overcloud plan show-history %s".' % (plan, text, plan))


class History:
    """A plan's listing and history, read once, and any step of it.

    The step objects read are shared by every ``at``; a ``read_only``
    store writes nothing (``history`` otherwise mends the record's cache).
    """

    def __init__(self, store, plan):
        self.store = store
        self.plan = plan
        self.listed = store.container.listing(plan)
        self.entries = log.ordered(
            (self.listed[1] or {}).values())
        self.steps = store.reader.steps(plan, self.entries)
        self.rows, self.head = store.reader.history(plan, self.listed,
                                                    steps=self.steps)

    def find(self, which):
        return find(self.plan, self.rows, which)

    def at(self, which=None, row=None):
        """``At`` step ``which`` (a number or id), or history ``row``."""
        plan, rows, entries = self.plan, self.rows, self.entries
        row = row or self.find(which)
        index = row['step'] - (len(rows) - len(entries)) - 1
        if index < 0:
            raise exceptions.CommandError(
                'Plan %s: step %d was recorded by an older '
                'tripleoplanclient, which kept no copy of its content; only '
                'steps %d to %d can be shown, exported, compared or '
                'restored.' % (plan, row['step'],
                               len(rows) - len(entries) + 1, len(rows)))
        state = self.store.reader.state_after(plan, entries, index + 1,
                                              self.steps)
        return At(plan, rows, row, state, entries[:index + 1],
                  self.listed[1], self.head)


def at(store, plan, which):
    """``At`` step ``which`` of ``plan``: one listing, the history, and
    the step object (and any it must be replayed from)."""
    return History(store, plan).at(which)


def newest(store, plan, listed):
    """The history row of the plan's newest step, read with its listing
    ``listed`` (``store.container.listing()``); None while the plan has no
    record (a create cut short)."""
    listing = listed[1] or {}
    if log.PATH not in listing and not any(
            log.id_of(name) for name in listing):
        return None
    rows, _ = store.reader.history(plan, listed)
    return rows[-1] if rows else None


def files(store, past):
    """``[(path, md5, environment position or None, local source)]`` of
    every file of the plan after the step, and every environment file
    (listed even when the tree lacks it, with no MD5)."""
    full = store.container.view(past.plan, past.state.get('tree')).full()
    known = past.state['files']
    position = {p: i for i, p in enumerate(past.state['environments'], 1)}
    paths = sorted(set(full) | set(position))
    return [(p, full.get(p), position.get(p),
             (known.get(p) or {}).get('source')) for p in paths]


def readable(past, full, paths):
    """Object names to read ``paths`` of ``full`` (the tree after
    ``past``) from; refuses when any content is nowhere."""
    found, missing = tree_mod.sources({p: full[p] for p in paths},
                                      past.listing)
    if missing:
        damaged = [tree_mod.kept_name(full[p]) for p in missing
                   if tree_mod.kept_name(full[p]) in past.listing]
        raise exceptions.CommandError(
            'Plan %s: the content of %d file(s) as of step %d was not kept '
            '(%s%s): they were changed outside tripleoplanclient, or by two '
            'commands at the same moment%s. Nothing was changed.' % (
                past.plan, len(missing), past.row['step'],
                ', '.join(missing[:10]), ', ...' if len(missing) > 10
                else '', '; kept copies that do not hold the MD5 in their '
                'name: %s' % ', '.join(damaged[:10]) if damaged else ''))
    return found


def export(store, past, fileobj):
    """Write the plan as it stood after the step to ``fileobj`` (tar.gz);
    returns the number of members."""
    full = store.container.view(past.plan, past.state.get('tree')).full()
    members = readable(past, full, full)
    members.update((e['name'], e['name']) for e in past.entries)
    # the step's configuration (its Ansible tree), when it kept one
    if past.row.get('stack'):
        kept = configs.archive_path(past.row['id'])
        if kept in (past.listing or ()):
            members[kept] = kept
    plan_export.export(store.container, past.plan, members, fileobj,
                       mtime=log.seconds(past.row['time']))
    return len(members)
