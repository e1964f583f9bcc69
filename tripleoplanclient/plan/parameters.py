"""The parameters of an assembled plan: flattened once from Heat's template
validation (``schema``), then shown (``rows``) and checked (``check``)
without asking Heat again.

``schema`` reads what ``heat.stacks.validate(..., show_nested=True)``
answers for the plan as the deploy assembles it (heat/engine/service.py:
1315-1388): every parameter of the root template and of every nested stack
(heat/engine/stack.py:1189-1217), each as
heat/engine/api.py:497-577 formats it, and the merged environment. A name
declared by many templates (THT declares the same service template under
every role) becomes one entry. Its result is compact, JSON-serialisable and
holds no secret: a hidden parameter's default is ``MASK``, no parameter
value is kept.

Pure: no network, only the standard library and this package's common/
modules; run inside Mistral as well as on the client.
"""

import difflib
import fnmatch
import json
import math
import numbers
import re
from urllib import parse

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.common import masking

# What Heat shows for a hidden parameter (heat/engine/parameters.py:307-308).
MASK = '******'
TYPES = (STRING, NUMBER, LIST, JSON, BOOLEAN) = (
    'String', 'Number', 'CommaDelimitedList', 'Json', 'Boolean')
# The constraint keys of a validated parameter (heat/rpc/api.py:130-143).
CONSTRAINTS = ('AllowedValues', 'AllowedPattern', 'MinLength', 'MaxLength',
               'MinValue', 'MaxValue', 'Step', 'Offset', 'CustomConstraint',
               'ConstraintDescription')
# oslo.utils strutils.TRUE_STRINGS / FALSE_STRINGS, as Heat's Boolean reads
# them (heat/engine/parameters.py:342-347).
_TRUE = ('1', 't', 'true', 'on', 'y', 'yes')
_FALSE = ('0', 'f', 'false', 'off', 'n', 'no')
# A resource type naming a template (heat/engine/environment.py:99-112).
_TEMPLATE_SUFFIXES = ('.yaml', '.template')
# Group resources: where their definition keeps the properties each member
# gets (resource_group.py, resource_chain.py, autoscaling_group.py).
_MEMBER_PROPERTIES = {
    'OS::Heat::ResourceGroup': ('resource_def', 'properties'),
    'OS::Heat::ResourceChain': ('resource_properties',),
    'OS::Heat::AutoScalingGroup': ('resource', 'properties'),
}
# The only sections a parameters file may hold besides parameter names.
_FILE_SECTIONS = ('parameter_defaults', 'parameters')
_ENV_SECTIONS = _FILE_SECTIONS + (
    'resource_registry', 'event_sinks', 'encrypted_param_names',
    'parameter_merge_strategies')
# YAML's spellings of null: a value given as one of them is None.
_NULLS = ('', '~', 'null', 'Null', 'NULL')
_MAX_MAPPINGS = 20          # registry mappings followed for one type
_SHOWN = 80                 # characters of a value an error message quotes


def _hidden(p):
    return str(p.get('NoEcho', 'false')).lower() == 'true'


def _plain(value):
    """``value`` as JSON has it (a template parsed from YAML may hold
    dates; Heat's answer never does)."""
    return json.loads(json.dumps(value, default=str))


class _Tree(object):
    """One walk of the validation result, collecting declarations."""

    def __init__(self, validation, fields, base_url, template):
        environment = validation.get('Environment') or {}
        registry = dict(environment.get('resource_registry') or {})
        self.scope = registry.pop('resources', None) or {}
        self.registry = registry
        # Heat reports parameter_defaults as a parameter's Default
        # (heat/engine/parameters.py:291-295, 520-522): for these names the
        # template's own default is read from the template.
        self.overridden = set(environment.get('parameter_defaults') or {})
        self.base_url = base_url
        self.template = template
        self.texts = {self.path(url): text
                      for url, text in (fields.get('files') or {}).items()}
        self.texts[template] = fields.get('template')
        self.parsed = {}
        self.names = {}
        self.signatures = {}
        self.under = {}         # template path -> top-level resources

    def path(self, url):
        """A template URL as a plan path (unchanged outside the plan)."""
        if url.startswith(self.base_url):
            return parse.unquote(url[len(self.base_url):])
        return url

    def parsed_template(self, path):
        """The template at plan path ``path`` as a mapping, or None."""
        if path not in self.parsed:
            text = self.texts.get(path)
            data = None
            if isinstance(text, dict):
                data = text
            elif isinstance(text, str) and (
                    'heat_template_version' in text or
                    'HeatTemplateFormatVersion' in text or
                    'AWSTemplateFormatVersion' in text):
                # heatclient hands every template it resolved as JSON.
                try:
                    data = json.loads(text)
                except ValueError:
                    try:
                        data = content.load_yaml(text.encode('utf-8'), path,
                                                 quote=False)
                    except exceptions.CommandError:
                        data = None
            self.parsed[path] = data if isinstance(data, dict) else None
        return self.parsed[path]

    def section(self, path, hot, cfn):
        data = self.parsed_template(path) if path is not None else None
        found = data.get(hot, data.get(cfn)) if data else None
        return found if isinstance(found, dict) else {}

    def declared_default(self, path, name):
        schema = self.section(path, 'parameters', 'Parameters').get(name)
        if not isinstance(schema, dict):
            return None
        return _plain(schema.get('default', schema.get('Default')))

    def properties(self, path, resource):
        """The properties template ``path`` gives its ``resource``: a
        mapping, or None when unknown (a function, a generated stack)."""
        definition = self.section(path, 'resources', 'Resources').get(
            resource)
        if not isinstance(definition, dict):
            return None
        found = definition.get('properties', definition.get('Properties'))
        return found if isinstance(found, dict) else None

    def resolve(self, kind, resource, scope, removed, depth=0):
        """``(template URL or None, final type, registry path or None)``
        of a resource of type ``kind`` named ``resource``, as Heat's
        ResourceRegistry.get_resource_info finds it in the user
        environment (heat/engine/environment.py:451-535): a type naming a
        template is that template; then, most specific first, the
        resource's own mapping under ``resources``, the type's mapping,
        the wildcard mappings, in path order; a mapping to another type
        is followed. Nothing found: a built-in type."""
        if kind.endswith(_TEMPLATE_SUFFIXES):
            return kind, kind, (kind,)
        if depth > _MAX_MAPPINGS:
            return None, kind, None
        found = []
        own = scope.get(resource)
        if isinstance(own, dict) and isinstance(own.get(kind), str):
            found.append((('resources', resource, kind), own[kind]))
        for key, value in self.registry.items():
            if key in removed or not isinstance(value, str):
                continue
            # A wildcard maps types to types only: one naming a template
            # matches nothing (environment.py:153-154, 255-259).
            if key == kind or (key.endswith('*') and kind != value and
                               kind.startswith(key[:-1]) and
                               not value.endswith(_TEMPLATE_SUFFIXES)):
                found.append(((key,), value))
        # environment.py:138-145: the longer path first, then by path.
        found.sort(key=lambda item: (-len(item[0]), item[0]))
        for path, value in found:
            if value.endswith(_TEMPLATE_SUFFIXES):
                return value, kind, path
            if path[-1].endswith('*') and value.endswith('*'):
                value = value[:-1] + kind[len(path[-1]) - 1:]
            return self.resolve(value, resource, scope, removed, depth + 1)
        return None, kind, None

    @staticmethod
    def narrow(scope, resource):
        """The ``resources`` section a nested stack of ``resource`` sees:
        the entries whose pattern matches its name merged, its own last
        (heat/engine/environment.py:441-449, 827-828). (Heat also drops
        there the mapping the resource's own template came from, which no
        lookup in the narrowed section can reach.)"""
        narrowed = {}
        for pattern, entry in scope.items():
            if isinstance(entry, dict) and fnmatch.fnmatchcase(resource,
                                                               pattern):
                narrowed.update(entry)
        own = scope.get(resource)
        if isinstance(own, dict):
            narrowed.update(own)
        return narrowed

    def walk(self, validation):
        # (node, its template's plan path or None, top-level resource,
        #  resources section, registry keys removed (the mapping a nested
        #  stack's own template came from is not seen inside it:
        #  environment.py:824-825), names its parent passes, properties of
        #  its generated members or None)
        stack = [(validation, self.template, None, self.scope, frozenset(),
                  None, None)]
        while stack:
            node, path, top, scope, removed, passed, members = stack.pop()
            if path is not None:
                under = self.under.setdefault(path, set())
                if top is not None:
                    under.add(top)
            for name, p in (node.get('Parameters') or {}).items():
                if isinstance(p, dict):
                    self.declare(name, p, path, top, passed)
            nested = node.get('NestedParameters') or {}
            for resource, child in nested.items():
                if not isinstance(child, dict):
                    continue
                url, kind, used = self.resolve(str(child.get('Type') or ''),
                                               resource, scope, removed)
                props = (self.properties(path, resource) if path is not None
                         else members)
                child_members = None
                if url is None and isinstance(props, dict):
                    child_members = props
                    for key in _MEMBER_PROPERTIES.get(kind, ()):
                        child_members = (child_members.get(key) if
                                         isinstance(child_members, dict)
                                         else None)
                    if not isinstance(child_members, dict) or \
                            kind not in _MEMBER_PROPERTIES:
                        child_members = None
                child_removed = removed
                if used is not None and len(used) == 1:
                    child_removed = removed | {used[0]}
                stack.append((
                    child, self.path(url) if url else None,
                    top if top is not None else resource,
                    self.narrow(scope, resource), child_removed,
                    frozenset(props) if isinstance(props, dict) else
                    frozenset(), child_members))

    def declare(self, name, p, path, top, passed):
        key = (path, name)
        found = self.signatures.get(key)
        if found is None:
            hidden = _hidden(p)
            if name in self.overridden:
                default = self.declared_default(path, name)
            else:
                default = _plain(p.get('Default'))
            if hidden and default is not None:
                default = MASK
            declaration = {
                'type': p.get('Type', STRING), 'default': default,
                'hidden': hidden,
                'constraints': {k: p[k] for k in CONSTRAINTS if k in p}}
            signature = json.dumps(declaration, sort_keys=True)
            found = (signature, declaration,
                     str(p.get('Description') or ''))
            if path is not None:
                self.signatures[key] = found
        signature, declaration, description = found
        entry = self.names.get(name)
        if entry is None:
            entry = self.names[name] = {
                'declarations': {}, 'templates': set(), 'resources': set(),
                'top': False, 'fed': True, 'descriptions': {}}
        entry['declarations'].setdefault(signature, [declaration, set()])[
            1].add(path)
        entry['descriptions'].setdefault(path or '', description)
        if path is not None:
            entry['templates'].add(path)
        if top is None:
            entry['top'] = True
            entry['fed'] = False
        else:
            if path is None:
                entry['resources'].add(top)
            # A value the parent gives (a property) beats any
            # parameter_defaults; Heat shows it as Value when it knows it
            # (api.py:526-527), the parent template says it always.
            if 'Value' not in p and name not in passed:
                entry['fed'] = False

    def result(self, name, index):
        """The schema entry of ``name``; ``index``: plan path -> its place
        in the schema's ``templates``."""
        entry = self.names[name]
        root = self.template

        def order(item):
            paths = item[1][1]
            return (root not in paths if entry['top'] else False,
                    min((p or '' for p in paths), default=''))

        def places(paths):
            return sorted(index[p] for p in paths if p is not None)

        ranked = sorted(entry['declarations'].items(), key=order)
        declaration = ranked[0][1][0]
        descriptions = entry['descriptions']
        paths = ranked[0][1][1]
        first = root if entry['top'] and root in paths else min(
            p or '' for p in paths)
        description = descriptions.get(first) or next(
            (descriptions[p] for p in sorted(descriptions)
             if descriptions[p]), '')
        out = {'type': declaration['type'], 'description': description,
               'templates': places(entry['templates'])}
        # Only what is there: False, None and empty are left out.
        if declaration['default'] is not None:
            out['default'] = declaration['default']
        if any(d['hidden'] for d, _ in entry['declarations'].values()):
            out['hidden'] = True
        if entry['top']:
            out['top'] = True
        if entry['fed']:
            out['fed'] = True
        if entry['resources']:
            out['resources'] = sorted(entry['resources'])
        if declaration['constraints']:
            out['constraints'] = declaration['constraints']
        variants = []
        for _, (other, paths) in ranked[1:]:
            variant = {'templates': places(paths), 'type': other['type']}
            if other['default'] is not None:
                variant['default'] = other['default']
            if other['constraints']:
                variant['constraints'] = other['constraints']
            variants.append(variant)
        if variants:
            out['variants'] = variants
        return out

    def results(self):
        paths = sorted({p for entry in self.names.values()
                        for p in entry['templates']})
        index = {p: i for i, p in enumerate(paths)}
        return ([{'path': p, 'resources': sorted(self.under.get(p, ()))}
                 for p in paths],
                {name: self.result(name, index) for name in self.names})


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
    ``check`` read it.

    ``validation``: what ``heat.stacks.validate(template=...,
    files=..., environment_files=..., show_nested=True)`` answered for
    ``fields`` (what ``mistral.deploy.assemble`` made: ``template``, the
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
    ``variants`` (``check`` holds a value to each). Hidden when any
    declaration is.

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
    tree = _Tree(validation, fields or {}, base_url, template)
    tree.walk(validation)
    templates, params = tree.results()
    return {'template': template,
            'roles': sorted(roles) if roles is not None else _roles(
                validation),
            'templates': templates, 'parameters': params}


def _paths(schema, places):
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
            value = MASK
        default = entry.get('default')
        if hidden and default is not None:
            default = MASK
        out.append({'name': name, 'type': entry['type'], 'default': default,
                    'value': value, 'description': entry['description'],
                    'templates': _paths(schema, entry['templates'])})
    return out


def undeclared(schema, values):
    """The names ``values`` sets that no template of the plan declares
    (Heat ignores them: a typo, or a parameter of a release left behind),
    sorted."""
    return sorted(set(values or ()) - set(schema['parameters']))


# --- checking values as Heat will ---------------------------------------


def _show(value, hidden):
    if hidden:
        return MASK
    text = json.dumps(value, default=str, sort_keys=True)
    return text if len(text) <= _SHOWN else text[:_SHOWN - 3] + '...'


def _kind(value):
    if isinstance(value, dict):
        return 'a mapping'
    if isinstance(value, list):
        return 'a list'
    if isinstance(value, bool):
        return 'a boolean'
    if isinstance(value, numbers.Number):
        return 'a number'
    if isinstance(value, str):
        return 'text'
    return 'a %s' % type(value).__name__


def _to_number(value):
    """Heat's Schema.str_to_num (heat/engine/constraints.py:172-180): a
    number as it is (a boolean too), else int(), else float()."""
    if isinstance(value, numbers.Number):
        return value
    try:
        return int(value)
    except ValueError:
        return float(value)


def _to_boolean(value):
    """oslo.utils' bool_from_string(strict=True), as Heat's Boolean uses
    it: a boolean as it is, anything else by its text."""
    if isinstance(value, bool):
        return value
    lowered = str(value).strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError('not a boolean')


def _typed(kind, value):
    """``(value as stored, value the constraints see, problem or None)``
    for one declared type, as heat/engine/parameters.py reads a value; a
    problem is a phrase that follows the value."""
    if kind == NUMBER:
        # NumberParam._validate: str_to_num, TypeError or ValueError refuse
        # (parameters.py:326-331); '3', ' 3 ', '1e3', '1_000' are numbers.
        if isinstance(value, (str, numbers.Number)):
            try:
                number = _to_number(value)
            except (TypeError, ValueError):
                pass
            else:
                if isinstance(number, bool):
                    number = int(number)
                if isinstance(number, float) and not math.isfinite(number):
                    # nan/inf: Heat takes them; JSON has no such number.
                    return str(number), number, None
                return number, number, None
        return value, None, 'is not a number (%s)' % _kind(value)
    if kind == BOOLEAN:
        # BooleanParam._validate (parameters.py:342-347).
        try:
            flag = _to_boolean(value)
        except ValueError:
            return value, None, (
                'is not a boolean (true/false, yes/no, on/off, 1/0, t/f, '
                'y/n in any case)')
        return flag, flag, None
    if kind == LIST:
        # CommaDelimitedListParam.parse (parameters.py:399-408): a list's
        # items as text, a string split at every comma ('' is []);
        # anything else has no split() and is refused.
        if isinstance(value, list):
            if any(isinstance(item, (dict, list)) for item in value):
                # Heat would keep str() of the item (Python's repr).
                return value, None, (
                    'holds a list or a mapping; a comma-delimited list '
                    'holds strings')
            items = [str(item) for item in value]
            return items, items, None
        if isinstance(value, str):
            items = value.split(',') if value != '' else []
            return items, items, None
        return value, None, (
            'is not a comma-delimited string or a list (%s)' % _kind(value))
    if kind == JSON:
        # JsonParam.parse (parameters.py:444-455): text is parsed as JSON
        # ('' stays ''), anything else must survive a JSON round trip.
        if isinstance(value, str):
            if value == '':
                return value, value, None
            try:
                parsed = json.loads(value)
            except ValueError:
                return value, None, (
                    'is not JSON text (give a mapping or a list as YAML, '
                    'or valid JSON)')
            return parsed, parsed, None
        try:
            parsed = json.loads(json.dumps(value))
        except (TypeError, ValueError):
            return value, None, 'holds a value JSON cannot carry'
        return parsed, parsed, None
    # String: StringParam.value is str(value) (parameters.py:365-366,
    # constraints.py:196-197).
    if isinstance(value, (dict, list)):
        # Heat would keep Python's repr of it: never what was meant.
        return value, None, 'is %s, not a string (quote it)' % _kind(value)
    text = value if isinstance(value, str) else str(value)
    return text, text, None


def _constraint_problems(kind, value, constraints, hidden):
    """What Heat's constraints (heat/engine/constraints.py) refuse in
    ``value`` (as the type made it), each a phrase. Only the constraints
    valid for the type count (Heat refuses a template with others)."""
    problems = []
    c = constraints
    if kind == NUMBER:
        # Range._is_valid (constraints.py:378-389).
        low, high = c.get('MinValue'), c.get('MaxValue')
        if (low is not None and value < low) or (
                high is not None and value > high):
            problems.append('is out of range (min: %s, max: %s)' % (
                low, high))
        # Modulo._is_valid (constraints.py:509-515).
        step, offset = c.get('Step'), c.get('Offset')
        if step and offset is not None and value % step != offset:
            problems.append('is not a multiple of %s with an offset of %s'
                            % (step, offset))
    if kind in (STRING, LIST, JSON):
        # Length._is_valid: len() of the value (constraints.py:442-443).
        low, high = c.get('MinLength'), c.get('MaxLength')
        if low is not None or high is not None:
            try:
                length = len(value)
            except TypeError:
                problems.append('has no length (%s)' % _kind(value))
            else:
                if (low is not None and length < low) or (
                        high is not None and length > high):
                    problems.append(
                        'has a length out of range (%smin: %s, max: %s)' % (
                            '' if hidden else '%d; ' % length, low, high))
    if 'AllowedValues' in c and kind in (STRING, NUMBER, BOOLEAN, LIST):
        allowed = c['AllowedValues']
        if kind == LIST:
            # Each item among the allowed values, as given
            # (constraints.py:562-563).
            ok = all(item in allowed for item in value)
        else:
            # Both sides in the type (constraints.py:565-567).
            convert = {NUMBER: _to_number, BOOLEAN: _to_boolean,
                       STRING: str}[kind]
            try:
                ok = value in [convert(v) for v in allowed]
            except (TypeError, ValueError):
                ok = False
        if not ok:
            problems.append('is not an allowed value %s' % json.dumps(
                allowed, default=str))
    if 'AllowedPattern' in c and kind == STRING:
        # AllowedPattern._is_valid: re.match must end at the end of the
        # value (constraints.py:603-605), not re.fullmatch: with 'a|ab',
        # 'ab' is refused.
        match = re.match(c['AllowedPattern'], value)
        if match is None or match.end() != len(value):
            problems.append('does not match pattern %s' % json.dumps(
                c['AllowedPattern']))
    return problems


def _declaration_problems(declaration, value, hidden):
    """``(value as stored, [phrases])`` for one declaration; a constraint's
    phrase ends with the template's ConstraintDescription, which Heat
    shows for it (constraints.py:299-305)."""
    kind = declaration['type']
    stored, seen, problem = _typed(kind, value)
    if problem is not None:
        return stored, [problem]
    constraints = declaration.get('constraints') or {}
    note = str(constraints.get('ConstraintDescription') or '').strip()
    return stored, ['%s (%s)' % (phrase, note) if note else phrase
                    for phrase in _constraint_problems(kind, seen,
                                                       constraints, hidden)]


def _suggestion(name, names):
    folded = [n for n in names if n.lower() == name.lower()]
    close = folded or difflib.get_close_matches(name, names, n=1)
    return '; did you mean %s?' % close[0] if close else ''


def check(schema, values):
    """``values`` ({name: value}) as the plan will store them, each
    checked as Heat checks a parameter value: raises a CommandError
    listing every problem, each naming its parameter (a hidden one's value
    never shown), when any value is refused.

    Refused: a name no template declares (with the closest declared
    name); a value of the wrong type; a value outside ``AllowedValues``,
    the ``MinValue``/``MaxValue`` range, the ``MinLength``/``MaxLength``
    length (of a string, a list's items, a JSON value), ``AllowedPattern``
    (matched from the start and ending at the end, as Heat's re.match
    check) or the ``Step``/``Offset`` modulo. A name declared
    differently by several templates is held to each declaration.

    Types, as heat/engine/parameters.py reads values (the stored value is
    what Heat's type makes of it):

    * Number: a number, or text int() or else float() reads (``'3'``,
      ``'1e3'``); a boolean is a number to Heat (stored 1 or 0); nan and
      inf are kept as text.
    * Boolean: true/false, or text (or a number) that reads as
      t/true/on/y/yes/1 or f/false/off/n/no/0 in any case.
    * CommaDelimitedList: a list (items stored as text) or a string split
      at each comma (``''`` is ``[]``).
    * Json: a mapping or a list (or any JSON value), or JSON text.
    * String: text; a number, boolean or date becomes its text, as Heat's
      str() makes it.

    Two refusals where Heat would store Python's repr of a collection: a
    list or mapping for a String, and a list or mapping as an item of a
    CommaDelimitedList.

    None is passed through (no value: the template's default applies).
    ``CustomConstraint`` (``nova.flavor``, ``neutron.network``...) asks
    the cloud and is not checked here.
    """
    params = schema['parameters']
    out = {}
    problems = []
    for name in sorted(values):
        value = values[name]
        entry = params.get(name)
        if entry is None:
            problems.append('%s: no template of the plan declares it%s' % (
                name, _suggestion(name, list(params))))
            continue
        if value is None:
            out[name] = None
            continue
        hidden = entry.get('hidden', False)
        stored, found = _declaration_problems(entry, value, hidden)
        if not found:
            for variant in entry.get('variants', ()):
                _, other = _declaration_problems(variant, stored, hidden)
                found.extend('%s (as declared in %s)' % (
                    phrase, ', '.join(_paths(schema, variant['templates'])))
                    for phrase in other)
        if found:
            problems.extend('%s (%s): %s %s' % (
                name, entry['type'], _show(value, hidden), phrase)
                for phrase in found)
        else:
            out[name] = stored
    if problems:
        raise exceptions.CommandError(
            'Nothing was set: %d problem%s with the parameters given:\n  %s'
            % (len(problems), '' if len(problems) == 1 else 's',
               '\n  '.join(problems)))
    return out


# --- reading the values a command is given -------------------------------


def _load_value(name, text):
    refused = exceptions.CommandError(
        'The value given for %s is not valid YAML; quote it as a YAML '
        'string (%s=\'"..."\') or fix it.' % (name, name))
    try:
        value = content.load_yaml(text.encode('utf-8'), name, quote=False)
    except (exceptions.CommandError, UnicodeEncodeError):
        raise refused
    if value is None and text.strip() not in _NULLS:
        # Only a comment ('#...'): not what anyone means by a value.
        raise refused
    return value


def parse_assignments(assignments, schema=None):
    """``['Name=value', ...]`` as ``{name: value}``, each value read as
    YAML (a scalar or a flow collection): ``Count=3`` is 3, ``Flag=true``
    True, ``List=[a,b]`` a list, ``Map={a: 1}`` a mapping, ``Text="3"``
    the string '3', an empty value (or ``null``, ``~``) None: no value,
    the template's default applies.

    With ``schema``, a String parameter keeps the text as typed where YAML
    would read a number, a boolean or a date (``ImageTag=16.10`` stays
    '16.10', not 16.1; ``Mode=0755`` not 493; ``Answer=yes`` not True), as
    Heat's own ``--parameter NAME=VALUE`` does.

    A malformed assignment (no '=', no name, a name given twice): a
    CommandError naming it by its place (and its text unless it looks like
    a secret).
    """
    params = (schema or {}).get('parameters') or {}
    out = {}
    for place, item in enumerate(assignments, 1):
        name, sep, text = item.partition('=')
        if not sep or not name or name != name.strip():
            shown = masking.MASK if masking.secret_key(item) else item
            raise exceptions.CommandError(
                'Parameter assignment %d (%r) is not NAME=VALUE; give each '
                'parameter as NAME=VALUE, the value as YAML.' % (
                    place, shown))
        if name in out:
            raise exceptions.CommandError(
                'Parameter %s is given twice (assignment %d); give it once.'
                % (name, place))
        value = _load_value(name, text)
        entry = params.get(name)
        if entry is not None and entry['type'] == STRING and \
                value is not None and not isinstance(
                    value, (str, dict, list)):
            value = text.strip()
        out[name] = value
    return out


def parse_file(data, name):
    """The parameters of a YAML file (bytes) as ``{name: value}``: a
    mapping of parameter names, or an environment holding only
    ``parameter_defaults`` and/or ``parameters`` (a name in both is
    refused). Any other environment section is refused: such a file is an
    environment (``-e``). Errors name the file, never quote a value."""
    loaded = content.load_yaml(data, name, quote=False)
    if loaded is None:
        return {}
    if not isinstance(loaded, dict) or not all(
            isinstance(k, str) for k in loaded):
        raise exceptions.CommandError(
            '%s is not a mapping of parameter names to values.' % name)
    if not any(k in _ENV_SECTIONS for k in loaded):
        return dict(loaded)
    others = sorted(k for k in loaded if k not in _FILE_SECTIONS)
    if others:
        raise exceptions.CommandError(
            '%s is an environment file (it has %s); add it to the plan with '
            '-e, or keep only parameter_defaults in it.' % (
                name, ', '.join(others)))
    out = {}
    for section in _FILE_SECTIONS:
        part = loaded.get(section) or {}
        if not isinstance(part, dict):
            raise exceptions.CommandError(
                '%s: %s is not a mapping.' % (name, section))
        for key, value in part.items():
            if key in out:
                raise exceptions.CommandError(
                    '%s sets %s in both parameter_defaults and parameters; '
                    'keep one.' % (name, key))
            out[str(key)] = value
    return out
