"""The deployment library's reads (bodies of the capabilities, roles,
parameters and validate actions): what any client of our Mistral actions
gets -- the CLI, a GUI, a script -- worked out here from the plan in Swift
as its newest step recorded it and from Heat's own validation. Nothing is
written anywhere.

Heat's template validation of a THT plan with its nested stacks takes
seconds (3 s for THT 18 on the loopback Heat); its result is kept for the
executor's life, keyed by the plan's content digest (every object the
step recorded, the environment list and the plan environment input), so a
plan asked again unchanged is answered from memory after two listings
(its steps, its objects) and one GET (its newest step): Swift still
checks the caller's right to read the plan each time. The writes
(``settings``) build on the same ``Plan``.
"""

import collections
import hashlib
import json
import threading
import time

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.common import masking
from tripleoplanclient.library import capabilities as capabilities_mod
from tripleoplanclient.library import capability_parts
from tripleoplanclient.library import derived_capabilities
from tripleoplanclient.library import parameters as parameters_mod
from tripleoplanclient.library import roles as roles_mod
from tripleoplanclient.mistral import assembly
from tripleoplanclient.plan import hidden_parameters
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import tree as plan_tree

# validations kept (each a THT schema of a few hundred KB)
VALIDATIONS_KEPT = 16


class Plan:
    """A plan as its newest step recorded it: ``state`` (the record's
    environments, inputs...), ``objects`` (read through the content
    cache) and ``digest`` (of everything a validation depends on)."""

    def __init__(self, store, req, cache=None):
        self.name = req['container']
        self.head = store.reader.head(self.name)  # what a new step builds on
        self.state = self.head.state
        self.objects = assembly.open_plan(
            store, dict(req, tree=self.state.get('tree')), cache)
        self.environments = list(self.state['environments'])
        self.plan_environment = self.state['inputs'].get('plan_environment')
        listing = self.objects.listing
        text = json.dumps([sorted(
            (path, entry['hash']) for path, entry in listing.items()
            if plan_tree.in_tree(path)),
            self.environments, self.plan_environment])
        self.digest = hashlib.sha256(text.encode('utf-8')).hexdigest()

    @property
    def paths(self):
        return set(self.objects.listing)

    def read(self, path):
        return self.objects.read(path)

    def merged_defaults(self):
        return merged_defaults(self.objects, self.environments,
                               self.plan_environment)


def merged_defaults(objects, environments, plan_environment):
    """The plan's parameter values as Heat would merge them at the top
    level of ``parameter_defaults``: generated passwords < the plan
    environment < each environment file in order (no Heat needed;
    merge strategies aside, enough for counts and plain values)."""
    values = assembly.parameter_defaults(objects, plan_environment)
    for path in layout.parameter_environments(environments, objects):
        if path not in objects:
            continue
        env = content.load_yaml(objects.read(path), '%s of plan %s' % (
            path, objects.plan), quote=False) or {}
        if isinstance(env, dict):
            for key in ('parameter_defaults', 'parameters'):
                if isinstance(env.get(key), dict):
                    values.update(env[key])
    return values


# -- capabilities ------------------------------------------------------

def capabilities(plan):
    return capabilities_mod.build(plan.paths, plan.read, plan.environments)


# -- roles -------------------------------------------------------------

def roles(plan, name=None):
    """The roles of the plan's roles data (counts from the plan's values)
    and those its templates offer; one role in detail with ``name``."""
    roles_path, networks_path, offered = roles_mod.paths(
        plan.paths, plan.state['inputs'])

    def data(path):
        return (path, plan.read(path) if path in plan.objects else None)

    args = (data(roles_path), {p: plan.read(p) for p in offered})
    kwargs = dict(parameters=plan.merged_defaults(),
                  network_data=data(networks_path), plan=plan.name)
    if name:
        return {'role': roles_mod.show(*args + (name,), **kwargs)}
    return {'roles': roles_mod.listing(*args, **kwargs)}


# -- parameters (Heat's validation) ------------------------------------

class Validations:
    """Heat's validation of a plan, per content digest (an LRU): the
    parameters' schema and the values the plan gives them. Scoped by the
    plan's container URL, so that no project reads another's."""

    def __init__(self, kept=VALIDATIONS_KEPT):
        self._kept = kept
        self._entries = collections.OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key, value):
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self._kept:
                self._entries.popitem(last=False)


VALIDATIONS = Validations()


def validation(plan, heat, req, validations=VALIDATIONS):
    """``(entry, cached)``: Heat's validation of ``plan`` with its nested
    stacks, reduced to ``{'schema', 'values', 'seconds'}`` (``schema`` of
    ``library.parameters.schema``; ``values`` the merged parameters Heat
    reports, of the declared names only), or ``{'error': Heat's
    message}`` when Heat refuses the plan."""
    base_url = assembly.container_url(req)
    key = (base_url, plan.digest)
    found = validations.get(key)
    if found is not None:
        return found, True
    started = time.monotonic()
    fields, _ = assembly.prepare(plan.objects, dict(
        req, environments=plan.environments,
        plan_environment=plan.plan_environment))
    from heatclient import exc as heat_exc
    try:
        result = heat.stacks.validate(
            template=fields['template'], files=fields['files'],
            environment_files=fields['environment_files'], show_nested=True)
    except heat_exc.HTTPForbidden as exc:
        # the caller's right, not the plan's content: never kept
        raise exceptions.CommandError(
            'Heat at %s does not let this user validate templates (%s): '
            'its policy stacks:validate_template wants the member role in '
            'the plan\'s project.'
            % (req['heat_url'], assembly.heat_message(exc)))
    except heat_exc.HTTPBadRequest as exc:    # the plan's content: kept
        entry = {'error': unquoted(
            assembly.heat_message(exc), plan.objects, plan.environments,
            plan.plan_environment, fields)}
    except heat_exc.HTTPException as exc:
        raise exceptions.CommandError('Heat at %s failed the validation: %s'
                                      % (req['heat_url'],
                                         assembly.heat_message(exc)))
    except Exception as exc:
        if exceptions.unreachable(exc):
            raise exceptions.CommandError('Heat is unreachable at %s (%s).'
                                          % (req['heat_url'],
                                             type(exc).__name__))
        raise
    else:
        if 'Error' in (result or {}):
            entry = {'error': unquoted(
                str(result['Error']), plan.objects, plan.environments,
                plan.plan_environment, fields)}
        else:
            schema = parameters_mod.schema(result, fields, base_url)
            values = _merged_values(result)
            entry = {'schema': schema,
                     'values': {k: v for k, v in values.items()
                                if k in schema['parameters']}}
    entry['seconds'] = round(time.monotonic() - started, 3)
    validations.put(key, entry)
    return entry, False


def unquoted(message, objects, environments, plan_environment, fields):
    """Heat's refusal without the plan's values of hidden (or secret)
    parameters: Heat quotes the value it refuses, hidden or not
    (heat/engine/constraints.py), and this message goes into answers
    Mistral keeps. ``fields``: what Heat was given (its templates say
    which parameters are hidden)."""
    hidden = set()
    for text in [fields['template']] + list(fields['files'].values()):
        if not isinstance(text, str):
            text = json.dumps(text)
        hidden |= hidden_parameters.declared(text.encode('utf-8'), 'template')
    try:
        values = merged_defaults(objects, environments, plan_environment)
    except exceptions.CommandError:     # a file Heat could not read either
        values = {}
    return masking.scrub(message, hidden_parameters.values_of(
        values, {n for n in values if n in hidden or
                 masking.secret_key(n)}))


def validated(plan, heat, req, validations=VALIDATIONS):
    """``validation``'s entry; Heat's refusal a CommandError."""
    entry, cached = validation(plan, heat, req, validations)
    if 'error' in entry:
        raise exceptions.CommandError(
            'Heat refused the templates of plan %s: %s' % (
                plan.name, entry['error']))
    return entry, cached


def parameters(plan, heat, req, validations=VALIDATIONS):
    entry, cached = validated(plan, heat, req, validations)
    rows = parameters_mod.rows(entry['schema'], entry['values'],
                               role=req['role'], show_all=req['all'])
    return {'parameters': rows, 'digest': plan.digest, 'cached': cached,
            'heat_seconds': entry['seconds']}


# -- validate ----------------------------------------------------------

def required(schema, values):
    """The root template's parameters without default that the plan
    gives no value (nested ones get theirs from their parents)."""
    return sorted(
        name for name, p in schema['parameters'].items()
        if p.get('top') and 'default' not in p and values.get(name) is None)


def _required_problems(schema, values):
    return [('parameter', name, 'required, and neither the plan nor its '
                                'templates give it a value')
            for name in required(schema, values)]


def capability_check(paths, read, environments):
    """``(problems, warnings)`` of the plan's environment list against
    its capabilities: a broken constraint (real alternatives both
    enabled, a requirement missing) is a problem; a later file
    overriding an earlier one a warning."""
    # Nothing is enabled or disabled here: only a constraint among the
    # enabled environments can break (an exclusion is a pair's), so the
    # environment files not in the list are left out, unread (THT 18:
    # some 200 a deploy would read for nothing).
    enabled = set(environments)
    paths = [p for p in paths if not p.startswith(
        derived_capabilities.ENVIRONMENTS_DIR) or
        capability_parts.rendered(p) in enabled]
    caps = capabilities_mod.build(paths, read, environments)
    if not caps.get('topics'):
        return [], []
    warnings = capabilities_mod.overrides(caps, environments)
    try:
        capabilities_mod.check(caps, environments)
    except exceptions.CommandError as exc:
        return [('capabilities', 'environments', str(exc))], warnings
    return [], warnings


def _merged_values(result):
    env = result.get('Environment') or {}
    values = dict(env.get('parameter_defaults') or {})
    values.update(env.get('parameters') or {})
    return values


def validate(plan, heat, req, validations=VALIDATIONS):
    """Every problem the plan has before a deploy, each a dict
    ``{'kind', 'what', 'problem'}``: environments missing from the plan
    or referencing files it lacks, Heat's refusal, required parameters
    without a value, broken capability constraints; and ``warnings``
    (text: a later environment file overriding an earlier one)."""
    base_url = assembly.container_url(req)
    found = [('environment', path, text) for path, text in
             assembly.environment_problems(plan.objects, base_url,
                                           plan.environments)]
    if not found:
        try:
            entry, _ = validation(plan, heat, req, validations)
        except exceptions.CommandError as exc:   # the template's references
            entry = {'error': str(exc)}
        if 'error' in entry:
            found.append(('heat', layout.TEMPLATE, entry['error']))
        else:
            found += _required_problems(entry['schema'], entry['values'])
    problems, warnings = capability_check(plan.paths, plan.read,
                                          plan.environments)
    found += problems
    problems = [{'kind': k, 'what': w, 'problem': p} for k, w, p in found]
    return {'valid': not problems, 'problems': problems,
            'warnings': warnings, 'digest': plan.digest}


def refuse_to_deploy(objects, req, fields, result):
    """The deploy action's check (unless the client said --no-validate),
    on Heat's validation ``result`` of what it is about to send: the same
    required parameters and capability constraints as ``validate``, all
    of them in one CommandError; else ``validate``'s warnings (a later
    environment file overriding an earlier one)."""
    base_url = assembly.container_url(req)
    schema = parameters_mod.schema(result, fields, base_url)
    found = _required_problems(schema, _merged_values(result))
    problems, warnings = capability_check(
        set(objects.listing), objects.read, req['environments'])
    found += problems
    if found:
        raise exceptions.CommandError(
            'Plan %s is not ready to deploy (%d problems): %s. Fix them '
            '("openstack overcloud plan validate %s" lists them), or run '
            'the command with --no-validate to skip these checks.' % (
                objects.plan, len(found), '; '.join(
                    '%s %s: %s' % f for f in found), objects.plan))
    return warnings
