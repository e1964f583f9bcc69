"""The deployment library's writes (bodies of the capabilities_set and
parameters_set actions): each checks the operator's choice against the
plan as its newest step recorded it, and records it as a step of its own,
written here in Mistral under a name no other step has (``store.commit``),
as the caller. A choice that breaks a constraint is refused with every
problem named, and nothing is written.
"""

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import library
from tripleoplanclient.mistral import written
from tripleoplanclient.plan import capabilities as capabilities_mod
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import parameter_values
from tripleoplanclient.plan import record as record_mod
from tripleoplanclient.plan import tree as tree_mod


def set_capabilities(store, plan, req):
    """Enable and disable environment files of the plan's capabilities
    (``capabilities.check``); a step ``capabilities`` that changes the
    environment list only."""
    environments = plan.environments
    caps = capabilities_mod.build(plan.paths, plan.read, environments,
                                  plan=plan.name)
    after = capabilities_mod.check(caps, environments, req['enable'] or (),
                                   req['disable'] or ())
    if after == environments:
        return written.result(plan.name, None, plan.state)
    added = [e for e in after if e not in environments]
    removed = [e for e in environments if e not in after]
    if record_mod.amended(environments, added, removed) == after:
        # Additions and removals: they compose with any other step
        # written at the same time.
        change = {'environments': {'add': added, 'remove': removed}}
    else:
        # The root environment went first (capabilities.check): the list
        # as a whole.
        change = {'environments': {'set': after}}
    change.update(files={}, inputs={}, tree={})
    step = record_mod.make_step(
        'capabilities', change,
        command=written.command(req, 'tripleoplan.capabilities_set'))
    store.commit(plan.name, step, plan.head)
    return written.result(plan.name, step, step['state'])


def set_parameters(store, plan, heat, req):
    """Give parameters values (``NAME=VALUE`` assignments and a mapping),
    checked against Heat's types and constraints of the assembled plan;
    a step ``parameters`` that writes the plan's parameters file
    (``layout.PLAN_PARAMETERS``, merged after every environment file).
    A value of None takes the parameter out of it (its default, or an
    environment file's value, applies again)."""
    entry, _ = library.validated(plan, heat, req)
    schema = entry['schema']
    given = dict(req['values'] or {})
    given.update(parameter_values.parse_assignments(
        req['assignments'] or [], schema))
    if not given:
        raise exceptions.CommandError(
            'Give at least one NAME=VALUE or --file to set parameters of '
            'plan %s.' % plan.name)
    checked = parameter_values.check(schema, given)
    path = layout.PLAN_PARAMETERS
    old = plan.read(path) if path in plan.objects else None
    current = {}
    if old is not None:
        loaded = content.load_yaml(old, '%s of plan %s' % (path, plan.name),
                                   quote=False) or {}
        current = dict(loaded.get('parameter_defaults') or {})
    values = dict(current)
    for name, value in checked.items():
        if value is None:
            values.pop(name, None)
        else:
            values[name] = value
    hidden = {n for n, p in schema['parameters'].items() if p.get('hidden')}
    if values == current:
        return written.result(plan.name, None, plan.state)
    data = content.dump_yaml({'parameter_defaults': values})
    md5 = content.md5(data)
    if old is not None:
        # What it replaces stays readable for past steps (plan.tree).
        store.keep(plan.name, {path: content.md5(old)},
                   tree_mod.kept(plan.objects.listing))
    change = {'environments': {'add': [], 'remove': []}, 'files': {},
              'inputs': {}, 'tree': {path: md5},
              'parameters': sorted(n for n in checked)}
    step = record_mod.make_step(
        'parameters', change, added=[] if old is not None else [path],
        changed=[path] if old is not None else [],
        command=written.command(req, 'tripleoplan.parameters_set', hidden))
    store.commit(plan.name, step, plan.head, {path: data})
    return written.result(plan.name, step, step['state'])
