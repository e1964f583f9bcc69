"""When two Heat environments of a plan's templates are real alternatives
(mutually exclusive), and when the later of two merely overrides the
earlier (a warning: in TripleO a later ``-e`` overriding an earlier one is
the design).

Mutually exclusive: two environments that map one resource type to two
different real implementations (templates or resource types, not
``OS::Heat::None`` nor null), such as two Neutron ML2 backends, unless one
of them is a base profile (``undercloud.yaml``, ``docker-ha.yaml``,
``podman-ha.yaml``, ``standalone/*``, ``composable-roles/*``: the others
are meant to override them).

Overlapping (the later overrides the earlier): every other pair that maps
one resource type to different targets (relative targets read as plan
paths from the environment's own directory; a service turned off then on,
as ``standalone-tripleo.yaml`` and ``ssl/enable-internal-tls.yaml`` do
with IpaClient), or gives one parameter different values. Not counted as
different: the same list written as a list or a comma-separated string,
and a list holding every item of the other (a feature environment
restating the base list plus its own items, such as ``neutron-ovn-sriov``
over ``neutron-ovn-ha``); under a ``merge`` / ``deep_merge`` strategy
either file declares, lists add up and mappings differ only where both
set one key differently.
"""

import posixpath

from tripleoplanclient.library import capability_parts as parts
from tripleoplanclient.plan import heat_environment

_MERGING = frozenset(['merge', 'deep_merge'])
# Profiles the other environments are meant to override (environments/).
BASE_PROFILES = frozenset(['environments/undercloud.yaml',
                           'environments/docker-ha.yaml',
                           'environments/podman-ha.yaml'])
BASE_PROFILE_DIRS = ('environments/standalone/',
                     'environments/composable-roles/')
# Targets that turn a resource off: no implementation of their own.
_OFF = (None, 'OS::Heat::None')
# How many keys a reason names before it counts the rest.
_REASON_KEYS = 3


def _registry(path, registry):
    """``{resource type: target}``, targets as plan paths (relative ones
    read from the environment's directory); types nested under
    ``resources`` keyed ``resources/<name>/<type>``."""
    base = posixpath.dirname(path)
    found = {}
    for mapping, key, keys in heat_environment.registry_entries(registry):
        name = '/'.join(map(str, keys))
        value = mapping[key]
        if isinstance(value, str):
            value = value.strip()
            if not ('::' in value or heat_environment.URL.match(value)
                    or value.startswith('/')):
                value = posixpath.normpath(posixpath.join(base, value))
            found[name] = value
        elif value is None or isinstance(value, (bool, int, float)):
            found[name] = value
        else:
            raise parts.malformed(
                path, 'it maps %s to a %s, not a template or a type' % (
                    name, type(value).__name__))
    return found


def _scalar(value):
    """A scalar as Heat reads it: ``True``, ``'true'`` and ``'True'`` are
    one value, so are ``1`` and ``'1'``."""
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        text = value.strip()
        return text.lower() if text.lower() in ('true', 'false') else text
    return value


def _items(value):
    """A list or comma-separated string as its items, else None."""
    if isinstance(value, str):
        return [i.strip() for i in value.split(',')] if value.strip() else []
    if isinstance(value, list) and not any(
            isinstance(v, (dict, list)) for v in value):
        return [_scalar(v) for v in value]
    return None


def _differ(a, b, strategy):
    """True when one parameter's values ``a`` and ``b`` cannot both stand:
    the later would undo the earlier's choice (see the module's doc)."""
    if _scalar(a) == _scalar(b):
        return False
    items_a, items_b = _items(a), _items(b)
    if items_a is not None and items_b is not None:
        if items_a == items_b or strategy:
            return False
        set_a, set_b = set(map(str, items_a)), set(map(str, items_b))
        return not (items_a and items_b
                    and (set_a <= set_b or set_b <= set_a))
    if isinstance(a, dict) and isinstance(b, dict) and strategy:
        deeper = strategy if strategy == 'deep_merge' else None
        return any(_differ(a[k], b[k], deeper) for k in set(a) & set(b))
    return True


def _strategy(strategies, key):
    value = strategies.get(key, strategies.get('default'))
    return value if value in _MERGING else None


def _section(data, key, path):
    value = data.get(key)
    if value is None:
        return {}
    return parts.mapping(value, path, 'its %s' % key)


def settings(data, env, source):
    """What environment ``env`` (read from ``source``) sets: ``(registry,
    parameters, strategies)``, or None when the document ``data`` is no
    Heat environment."""
    if data is None:
        return {}, {}, {}
    if not isinstance(data, dict) or any(
            k not in heat_environment.SECTIONS for k in data):
        return None
    return (_registry(env, _section(data, 'resource_registry', source)),
            _section(data, 'parameter_defaults', source),
            _section(data, 'parameter_merge_strategies', source))


def _named(keys):
    keys = sorted(keys)
    shown = ', '.join(keys[:_REASON_KEYS])
    if len(keys) > _REASON_KEYS:
        shown += ' and %d more' % (len(keys) - _REASON_KEYS)
    return shown


def base_profile(path):
    """True for an environment the others are meant to override."""
    return path in BASE_PROFILES or path.startswith(BASE_PROFILE_DIRS)


def _reason(types, params):
    said = []
    if types:
        said.append('map ' + _named(types))
    if params:
        said.append('set parameter%s %s' % (
            's' if len(params) > 1 else '', _named(params)))
    return 'both %s differently' % ' and '.join(said)


def conflicts(environments, alternatives=True):
    """``(exclusive, overlapping)``: ``{(a, b): reason}`` for every pair,
    a < b, of ``environments`` (``{path: what settings() found it
    sets}``) that are real alternatives, and for every other pair whose
    settings differ (the later in a list overrides the earlier).

    ``alternatives`` False: the caller knows the alternatives (a
    capabilities map's groups), so none is derived here and every pair
    whose settings differ is overlapping."""
    found = {}

    def add(a, b, kind, key):
        pair = (a, b) if a < b else (b, a)
        found.setdefault(pair, ({}, {}, {}))[kind].setdefault(key, None)

    by_type, by_param = {}, {}
    for env, (registry, params, strategies) in sorted(environments.items()):
        for key, target in registry.items():
            by_type.setdefault(key, []).append((env, target))
        for key, value in params.items():
            by_param.setdefault(key, []).append(
                (env, value, _strategy(strategies, key)))
    for key, entries in by_type.items():
        for i, (a, target_a) in enumerate(entries):
            for b, target_b in entries[i + 1:]:
                if target_a == target_b:
                    continue
                real = (alternatives and target_a not in _OFF
                        and target_b not in _OFF
                        and not base_profile(a) and not base_profile(b))
                add(a, b, 0 if real else 1, key)
    for key, entries in by_param.items():
        for i, (a, value_a, strategy_a) in enumerate(entries):
            for b, value_b, strategy_b in entries[i + 1:]:
                if _differ(value_a, value_b, strategy_a or strategy_b):
                    add(a, b, 2, key)
    exclusive, overlapping = {}, {}
    for pair, (real, types, params) in found.items():
        if real:
            exclusive[pair] = _reason(real, ())
        if types or params:
            overlapping[pair] = _reason(types, params)
    return exclusive, overlapping


def by_file(pairs):
    """``{file: [{'file': other, 'reason'}]}`` of ``{(a, b): reason}``
    (``conflicts``), each pair under both files, by the other's path."""
    found = {}
    for (a, b), reason in sorted(pairs.items()):
        found.setdefault(a, []).append({'file': b, 'reason': reason})
        found.setdefault(b, []).append({'file': a, 'reason': reason})
    for entries in found.values():
        entries.sort(key=lambda e: e['file'])
    return found
