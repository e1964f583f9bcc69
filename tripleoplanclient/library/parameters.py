"""The parameters of an assembled plan: flattened once from Heat's template
validation (``schema``), then shown (``rows``) and checked
(parameter_values.check) without asking Heat again.

``schema`` reads what ``heat.stacks.validate(..., show_nested=True)``
answers for the plan as the deploy assembles it (heat/engine/service.py:
1315-1388): every parameter of the root template and of every nested stack
(heat/engine/stack.py:1189-1217), each as
heat/engine/api.py:497-577 formats it, and the merged environment. A name
declared by many templates (THT declares the same service template under
every role) becomes one entry (parameter_declarations). Its result is
compact, JSON-serialisable and holds no secret: a hidden parameter's
default is parameter_types.MASK, no parameter value is kept.

Pure: no network, only the standard library and this package's own
modules; run inside Mistral as well as on the client.
"""

from tripleoplanclient.common import exceptions
from tripleoplanclient.library import parameter_declarations
from tripleoplanclient.library import parameter_types as types


def _roles(validation):
    """Top-level resources that are THT roles: a group whose members are of
    type ``...::<its name>`` (``Controller`` of ``OS::TripleO::Controller``
    members)."""
    found = set()
    for resource, child in (validation.get('NestedParameters') or {}).items():
        members = child.get('NestedParameters') if isinstance(
            child, dict) else None
        for member in (members or {}).values():
            if isinstance(member, dict) and str(
                    member.get('Type') or '').endswith('::' + resource):
                found.add(resource)
    return sorted(found)


def schema(validation, fields, base_url, template='overcloud.yaml',
           roles=None):
    """Every parameter of the assembled plan, one entry per name::

        {'template': the root template's plan path,
         'roles': [role names],
         'templates': [{'path': plan path of a template declaring
                                parameters, sorted,
                        'resources': [top-level resources it is under]}],
         'parameters': {name: {
             'type': 'String' | 'Number' | 'CommaDelimitedList' | 'Json' |
                     'Boolean',
             'description': str,
             'templates': [places in 'templates' of those declaring it],
             'default': the declaring template's default; MASK when
                        hidden (absent: none),
             'hidden': True when any declaration is (absent: False),
             'top': True when the root template declares it,
             'fed': True when every declaration is nested and given its
                    value by its parent (parameter_defaults cannot set
                    it),
             'resources': [top-level resources of its declarations in
                           stacks no template makes (generated)],
             'constraints': {Heat's keys: AllowedValues, MinLength...},
             'variants': [{'templates', 'type', 'default'?,
                           'constraints'?}] (declarations that differ)}}}

    Keys left out are False, None or empty: the result is what a Mistral
    action can return (its result is bounded, 1 MB by default) and a cache
    can hold: THT 18.0.0's 250 service templates under five roles make
    about 370 KB of JSON, 160 KB of it descriptions. ``rows`` and
    parameter_values.check read it.

    ``validation``: what ``heat.stacks.validate(template=...,
    files=..., environment_files=..., show_nested=True)`` answered for
    ``fields`` (what ``mistral.assembly.assemble`` made: ``template``, the
    root template, and ``files``, URL -> text). ``base_url``: the
    container's URL (the deploy's), stripped from template URLs to give
    plan paths. ``roles``: the role names (roles_data.yaml's); None: the
    top-level groups whose members are of type ``...::<group name>``.

    A nested stack's template is found as Heat finds it: its ``Type`` is a
    template URL, or a type mapped in the merged environment's
    ``resource_registry`` (a resource's own mapping under ``resources``
    first, narrowed level by level as Heat narrows it for nested stacks).

    Several declarations of a name: the root template's wins, else the
    first declaring template's by path; its description (or the first
    non-empty one), type, default and constraints are the entry's, the
    others that differ in type, default, hiddenness or constraints are
    ``variants`` (parameter_values.check holds a value to each). Hidden
    when any declaration is.

    The default: Heat reports a name set by ``parameter_defaults`` with
    that value as its Default, so for those the declaring template's own
    default is read from ``fields``.

    ``fields`` None: no template is read; a default the plan overrides is
    then None (unknown), and a parameter is ``fed`` only where Heat shows
    the parent's Value (a value Heat cannot know while validating, a
    get_attr, shows none).
    """
    if not isinstance(validation, dict) or 'Error' in validation:
        raise exceptions.CommandError(
            'Heat could not validate the plan\'s templates: %s' % (
                validation.get('Error') if isinstance(validation, dict)
                else 'no answer'))
    tree = parameter_declarations.Declarations(validation, fields or {},
                                               base_url, template)
    tree.walk(validation)
    templates, params = tree.results()
    return {'template': template,
            'roles': sorted(roles) if roles is not None else _roles(
                validation),
            'templates': templates, 'parameters': params}


def template_paths(schema, places):
    """The plan paths of ``places`` in the schema's ``templates``."""
    templates = schema['templates']
    return [templates[i]['path'] for i in places]


def _resources(schema, entry):
    """The top-level resources ``entry`` is declared under."""
    templates = schema['templates']
    found = set(entry.get('resources', ()))
    for i in entry['templates']:
        found.update(templates[i]['resources'])
    return found


def _owner(name, roles):
    """The role a top-level name belongs to: the longest role name it
    starts with, followed by nothing or by no lower-case letter
    (``ComputeHCICount`` is ComputeHCI's, ``Networks`` is not Net's)."""
    best = None
    for role in roles:
        if name.startswith(role) and (
                len(name) == len(role) or not name[len(role)].islower()):
            if best is None or len(role) > len(best):
                best = role
    return best


def _role(schema, role):
    roles = schema.get('roles') or []
    if role in roles:
        return role
    folded = [r for r in roles if r.lower() == role.lower()]
    if len(folded) == 1:
        return folded[0]
    raise exceptions.CommandError(
        'Plan has no role %s; its roles: %s.' % (
            role, ', '.join(roles) if roles else 'none'))


def rows(schema, values, role=None, show_all=False):
    """The rows of ``parameters show``, sorted by name: ``{'name', 'type',
    'default', 'value', 'description', 'templates'}``.

    ``values``: the plan's parameter values now (the merged environment's
    parameter_defaults and parameters); ``value`` is None for a name it
    does not set. A hidden parameter shows MASK for its value and its
    default (None stays None: nothing to hide).

    Without ``show_all``: the parameters an operator sets, those whose
    value can come from parameter_defaults: every one but those only ever
    declared in nested templates that their parent gives a value
    (``fed``: THT's ServiceNetMap, EndpointMap, RoleName, RoleParameters...
    of each service). ``show_all`` adds those.

    ``role`` (a role name of the schema, any case): the parameters
    declared under that role's top-level resources (``<Role>``,
    ``<Role>ServiceChain``, ``<Role>Servers``...) and the root's whose
    name is the role's (``<Role>Count``, ``<Role>Services``...); a name
    belongs to the longest role name it starts with. An unknown role: a
    CommandError naming the plan's roles.
    """
    params = schema['parameters']
    roles = schema.get('roles') or []
    if role is not None:
        role = _role(schema, role)
    values = values or {}
    out = []
    for name in sorted(params):
        entry = params[name]
        if entry.get('fed') and not show_all:
            continue
        if role is not None and not (
                any(_owner(r, roles) == role
                    for r in _resources(schema, entry)) or
                (entry.get('top') and _owner(name, roles) == role)):
            continue
        hidden = entry.get('hidden', False)
        value = values.get(name)
        if hidden and value is not None:
            value = types.MASK
        default = entry.get('default')
        if hidden and default is not None:
            default = types.MASK
        out.append({'name': name, 'type': entry['type'], 'default': default,
                    'value': value, 'description': entry['description'],
                    'templates': template_paths(schema, entry['templates'])})
    return out
