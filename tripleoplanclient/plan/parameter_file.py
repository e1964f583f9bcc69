"""The plan's parameters file (``layout.PLAN_PARAMETERS``), derived from
the record so that concurrent ``parameters set`` lose nothing.

Each parameters step writes the whole file from the state it read, and a
copy of it under its MD5 (``tree.kept_name``), and records, per parameter
it sets, the MD5 of that file (None: taken out): ``names``. Replayed in
the record's order, the names say which file holds each value now; the
file is their merge. A step that did not build on the file the replay
has (a writer that missed another one written at the same time) makes the
state ``stale``: its own file lacks the other's values. Whoever then reads
the plan for use derives the file from the names and mends it in Swift
(``current``; after a parameters step, ``mistral.settings`` looks until
it holds). Only names and MD5s are recorded: no value, hidden or not.

A plan whose state has no names (made before, created, restored: the
tree's file is the truth) has them taken from the file by the next
parameters step (``imported``).
"""

import copy

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import tree as tree_mod

PATH = layout.PLAN_PARAMETERS
KEY = 'parameter_values'


def dump(values):
    """The file's bytes for ``{name: value}``: names sorted, so that every
    writer and reader makes the same bytes of the same values."""
    return content.dump_yaml({'parameter_defaults': dict(sorted(
        values.items()))})


def load(data, what):
    loaded = content.load_yaml(data, what, quote=False) or {}
    found = (loaded.get('parameter_defaults') or {}) if isinstance(
        loaded, dict) else None
    if not isinstance(found, dict):
        raise exceptions.CommandError(
            '%s is damaged (no parameter_defaults mapping); restore the plan '
            'from an export.' % what)
    return dict(found)


def change(state, base, data, given):
    """The step's ``parameter_values`` change: it built on the file of
    MD5 ``base`` (None: none), writes ``data`` and sets ``given``
    (``{name: value}``, None: taken out). ``imported``: the names of the
    file it built on, when the state does not name them yet."""
    md5 = content.md5(data)
    out = {'base': base, 'file': md5,
           'names': {n: (None if v is None else md5)
                     for n, v in sorted(given.items())}}
    if state.get(KEY) is None:
        out['imported'] = sorted(n for n in load(data, PATH)
                                 if n not in given)
    return out


def replay(state, change):
    """Apply a step's ``change`` to ``state`` (in place; ``record.apply``)."""
    if change.get('tree_base') is not None:
        # The whole tree given (create, restore): its file is the truth.
        state.pop(KEY, None)
    found = change.get(KEY)
    if not found:
        return
    before = state.get(KEY)
    if before is None and 'imported' not in found:
        # Built on names this state lacks (a restore landed first): the
        # step's own file is the truth, until the next step names it all.
        state.pop(KEY, None)
        return
    names = dict(before['names']) if before else {}
    for name in found.get('imported') or ():
        # What the file it read held; a newer word on a name wins.
        names.setdefault(name, found['base'])
    names.update(found['names'])
    state[KEY] = {'file': found['file'], 'names': names,
                  'stale': before is not None and (
                      before['stale'] or before['file'] != found['base'])}


def derive(names, read, plan):
    """The file's bytes the ``names`` say (``read(md5)``: a kept copy)."""
    by_file = {}
    for name, md5 in names.items():
        if md5 is not None:
            by_file.setdefault(md5, []).append(name)
    values = {}
    for md5, wanted in sorted(by_file.items()):
        what = '%s of plan %s' % (tree_mod.kept_name(md5), plan)
        data = read(md5)
        if data is None or content.md5(data) != md5:
            raise exceptions.CommandError(
                '%s is missing or damaged; restore the plan from an export.'
                % what)
        found = load(data, what)
        for name in wanted:
            if name not in found:
                raise exceptions.CommandError(
                    '%s does not hold %s; restore the plan from an export.'
                    % (what, name))
            values[name] = found[name]
    return dump(values)


def current(container, plan, state, read_only=False):
    """``state``, its parameters file the one its names say: when the
    state is stale, the file is derived, written to the plan (and under
    its MD5) unless Swift holds it already (``container``: the plan's
    ``container.PlanContainer``), and the state says so. ``read_only``
    (a dry run): nothing is written, ``state`` returned as it is."""
    found = (state or {}).get(KEY)
    if not found or not found.get('stale') or read_only:
        return state
    data = derive(found['names'], lambda md5: container.get(
        plan, tree_mod.kept_name(md5)), plan)
    md5 = content.md5(data)
    if container.newest_md5s(plan, [PATH])[PATH] != md5:
        container.write(plan, {PATH: data, tree_mod.kept_name(md5): data})
    state = copy.deepcopy(state)
    state['tree'] = tree_mod.merged(state.get('tree'), {PATH: md5})
    state[KEY] = dict(found, file=md5, stale=False)
    return state
