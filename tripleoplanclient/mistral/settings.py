"""The deployment library's writes (bodies of the capabilities_set and
parameters_set actions): each checks the operator's choice against the
plan as its newest step recorded it, and records it as a step of its own,
written here in Mistral under a name no other step has (``builder``),
as the caller. A choice that breaks a constraint is refused with every
problem named, and nothing is written.
"""

import logging

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.common import masking
from tripleoplanclient.library import capabilities as capabilities_mod
from tripleoplanclient.library import parameter_values
from tripleoplanclient.mistral import builder
from tripleoplanclient.mistral import command_line
from tripleoplanclient.mistral import library
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import parameter_file
from tripleoplanclient.plan import tree as tree_mod
from tripleoplanclient import protocol
from tripleoplanclient.record import log

LOG = logging.getLogger(__name__)

# Looks at the log after a parameters step, while steps written at the
# same time keep the file behind (each mend is followed by a fresh look,
# so that the last mend holds every step written before it).
ROUNDS = 6
# Seconds before the n-th look (times n): a lagging container replica
# catches up from its peers meanwhile.
PAUSE = 0.1


def set_capabilities(store, plan, req):
    """Enable and disable environment files of the plan's capabilities
    (``capabilities.check``); a step ``capabilities`` that changes the
    environment list only."""
    environments = plan.environments
    caps = capabilities_mod.build(plan.paths, plan.read, environments,
                                  plan=plan.name)
    after = capabilities_mod.check(caps, environments, req['enable'] or (),
                                   req['disable'] or ())
    # What the choice lets through: overrides among its environments.
    warnings = capabilities_mod.overrides(caps, after)
    if after == environments:
        return dict(protocol.result(plan.name, None, plan.state),
                    warnings=warnings)
    added = [e for e in after if e not in environments]
    removed = [e for e in environments if e not in after]
    # Additions and removals (the root environment put first,
    # capabilities.check): they compose with any other step written at the
    # same time, as a whole list would not.
    change = {'environments': {'add': added, 'remove': removed}}
    first = [e for e in [caps.get('root_environment')] if e in added]
    if first:
        change['environments']['first'] = first
    if log.amended(environments, added, removed, first) != after:
        change = {'environments': {'set': after}}
    change.update(files={}, inputs={}, tree={})
    step = builder.write_step(store, plan.name, builder.build(
        'capabilities', change,
        command_line.command(req, 'tripleoplan.capabilities_set')), plan.head)
    return dict(protocol.result(plan.name, step, step['state']),
                warnings=warnings)


def _staged(store, plan, name):
    """The values of the object a client wrote under
    ``layout.STAGED_PARAMETERS`` (``parameter_values.parse_file``'s
    forms), removed once read, whatever it holds: hidden values are not
    left lying in the plan."""
    if not isinstance(name, str) or not name.startswith(
            layout.STAGED_PARAMETERS) or layout.path_problem(name, 'stored'):
        raise exceptions.CommandError(
            'Bad parameters_set request: staged %r is not an object name '
            'under %s in plan %s. Nothing was set.'
            % (name, layout.STAGED_PARAMETERS, plan.name))
    data = store.container.get(plan.name, name)
    if data is None:
        raise exceptions.CommandError(
            'Plan %s has no object %s: write the values there (a YAML '
            'mapping of parameter names to values) before asking to set '
            'them. Nothing was set.' % (plan.name, name))
    try:
        return parameter_values.parse_file(data, '%s of plan %s' % (
            name, plan.name))
    finally:
        store.container.delete_objects(plan.name, [name])


def _refuse_inline(plan, req, given, hidden):
    """In a workflow execution Mistral keeps the request (the workflow's
    input and its task's): a hidden value there is refused, pointing to
    the staged object."""
    inline = set(given) | {
        command_line.parameter_assignment(a, hidden)
        for a in (str(a) for a in req['command'] or [])
        if a.partition('=')[2] not in ('', masking.MASK)}
    found = sorted(n for n in inline if n is not None and (
        n in hidden or masking.secret_key(n)))
    if found:
        raise exceptions.CommandError(
            'Plan %s: %s %s hidden (or secret), and a workflow execution\'s '
            'input is kept by Mistral, readable by the project: nothing was '
            'set. Write the values as a YAML mapping to the object %s<name>'
            '.yaml of the plan\'s container and give its name as "staged" '
            'in the request (the action reads and removes it), or run the '
            'action on its own, unsaved ("openstack overcloud parameters '
            'set" does).' % (plan.name, ', '.join(found),
                             'is' if len(found) == 1 else 'are',
                             layout.STAGED_PARAMETERS))


def set_parameters(store, plan, heat, req, execution=None):
    """Give parameters values (``NAME=VALUE`` assignments, a mapping and
    a staged object), checked against Heat's types and constraints of
    the assembled plan; a step ``parameters`` that writes the plan's
    parameters file (``layout.PLAN_PARAMETERS``, merged after every
    environment file). A value of None takes the parameter out of it
    (its default, or an environment file's value, applies again).

    ``execution``: the workflow execution running the action (None: run
    on its own, nothing saved in Mistral): there, no hidden value may be
    given in the request itself (``_refuse_inline``)."""
    staged = _staged(store, plan, req['staged']) if req['staged'] \
        else {}
    entry, _ = library.validated(plan, heat, req)
    schema = entry['schema']
    hidden = {n for n, p in schema['parameters'].items() if p.get('hidden')}
    inline = dict(req['values'] or {})
    inline.update(parameter_values.parse_assignments(
        req['assignments'] or [], schema))
    if execution:
        _refuse_inline(plan, req, inline, hidden)
    given = dict(staged)
    given.update(inline)
    if not given:
        raise exceptions.CommandError(
            'Give at least one NAME=VALUE or --file to set parameters of '
            'plan %s.' % plan.name)
    checked = parameter_values.check(schema, given)
    path = layout.PLAN_PARAMETERS
    old = plan.read(path) if path in plan.objects else None
    current = {}
    if old is not None:
        current = parameter_file.load(old, '%s of plan %s' % (
            path, plan.name))
    values = dict(current)
    for name, value in checked.items():
        if value is None:
            values.pop(name, None)
        else:
            values[name] = value
    if values == current:
        return protocol.result(plan.name, None, plan.state)
    data = parameter_file.dump(values)
    md5 = content.md5(data)
    # The file and its copy under its MD5, which the record names as the
    # home of the values set here (parameter_file): a concurrent step
    # overwrites the file, never the copy. What it replaces stays
    # readable for past steps (plan.tree): every such file has its copy
    # but one written before this client kept them.
    objects = {path: data, tree_mod.kept_name(md5): data}
    base = None if old is None else content.md5(old)
    if base and tree_mod.kept_name(base) not in plan.objects.listing:
        objects[tree_mod.kept_name(base)] = old
    change = {'environments': {'add': [], 'remove': []}, 'files': {},
              'inputs': {}, 'tree': {path: md5},
              'parameters': sorted(n for n in checked),
              parameter_file.KEY: parameter_file.change(
                  plan.state, base, data, checked)}
    step = builder.write_step(store, plan.name, builder.build(
        'parameters', change,
        command_line.command(req, 'tripleoplan.parameters_set', hidden),
        added=[] if old is not None else [path],
        changed=[path] if old is not None else []),
        plan.head, objects)
    try:
        settle(store, plan.name, step['id'])
    except exceptions.CommandError as exc:
        # The step is on record: the next reader mends the file.
        LOG.warning('plan %s: parameters file not mended: %s', plan.name,
                    exc)
    return protocol.result(plan.name, step, step['state'])


def settle(store, plan, step_id=None):
    """After a parameters step (``step_id``): look at the log until no
    step lands unseen, mending the file (``parameter_file.current``,
    through ``history``) and putting back the file the record names when
    a mend made with an older look overwrote it.

    A look counts only once it shows the step itself: a container replica
    that missed updates (a node down) lists the log behind, and the
    reader's view of the log only grows from look to look."""
    container = store.container
    seen = None
    for attempt in range(ROUNDS):
        if attempt:
            container.pause(PAUSE * attempt)
        _, head = store.reader.history(plan)
        tree = head.state.get('tree')
        named = container.view(plan, tree).md5(
            parameter_file.PATH) if tree else None
        if named and container.newest_md5s(
                plan, [parameter_file.PATH])[parameter_file.PATH] != named:
            data = container.get(plan, tree_mod.kept_name(named))
            if data is not None and content.md5(data) == named:
                container.write(plan, {parameter_file.PATH: data})
        if step_id is not None and step_id not in (
                r['id'] for r in head.rows or ()):
            continue
        if head.count == seen:
            return
        seen = head.count
