"""A Heat environment as Heat reads it: its sections, the entries of its
``resource_registry`` and the template a resource's type resolves to.

One place for what several modules must read as Heat does
(heat/engine/environment.py): files (the references a plan stores),
environment_conflicts (what two environments map), parameter_declarations
(which template a nested stack is) and parameter_values (which file is an
environment). Only the standard library.
"""

import fnmatch
import re

# The sections Heat accepts in an environment file.
SECTIONS = frozenset(['resource_registry', 'parameter_defaults', 'parameters',
                      'parameter_merge_strategies', 'event_sinks',
                      'encrypted_param_names'])
# resource_registry keys whose values map no resource type.
NOT_TYPES = frozenset(['base_url', 'hooks', 'restricted_actions'])
# A resource type naming a template (heat/engine/environment.py:99-112).
TEMPLATE_SUFFIXES = ('.yaml', '.template')
# A URL, not a path (a scheme first).
URL = re.compile(r'^[a-zA-Z][a-zA-Z0-9+.-]*://')
# Registry mappings followed for one type before giving up.
MAX_MAPPINGS = 20


def registry_entries(registry, seen=None, path=()):
    """``(mapping, key, keys)`` for each entry of a ``resource_registry``
    that maps a resource type: the nested mappings (``resources:``) are
    walked, the keys that map no type (``NOT_TYPES``) skipped; ``keys``
    leads from the registry to it. The value is ``mapping[key]``, which
    the caller may replace. ``seen``: a set of the mappings walked, so
    that one several aliases share is walked once (None: each place it
    stands is walked)."""
    if not isinstance(registry, dict):
        return
    if seen is not None:
        if id(registry) in seen:
            return
        seen.add(id(registry))
    for key, value in registry.items():
        if key in NOT_TYPES:
            continue
        if isinstance(value, dict):
            yield from registry_entries(value, seen, path + (key,))
        else:
            yield registry, key, path + (key,)


def resolve(registry, kind, resource, scope, removed, depth=0):
    """``(template URL or None, final type, registry path or None)`` of a
    resource of type ``kind`` named ``resource``, as Heat's
    ResourceRegistry.get_resource_info finds it in the user environment
    (heat/engine/environment.py:451-535): a type naming a template is
    that template; then, most specific first, the resource's own mapping
    under ``resources`` (``scope``), the type's mapping in ``registry``,
    the wildcard mappings, in path order; a mapping to another type is
    followed. ``removed``: registry keys not seen here. Nothing found: a
    built-in type."""
    if kind.endswith(TEMPLATE_SUFFIXES):
        return kind, kind, (kind,)
    if depth > MAX_MAPPINGS:
        return None, kind, None
    found = []
    own = scope.get(resource)
    if isinstance(own, dict) and isinstance(own.get(kind), str):
        found.append((('resources', resource, kind), own[kind]))
    for key, value in registry.items():
        if key in removed or not isinstance(value, str):
            continue
        # A wildcard maps types to types only: one naming a template
        # matches nothing (environment.py:153-154, 255-259).
        if key == kind or (key.endswith('*') and kind != value and
                           kind.startswith(key[:-1]) and
                           not value.endswith(TEMPLATE_SUFFIXES)):
            found.append(((key,), value))
    # environment.py:138-145: the longer path first, then by path.
    found.sort(key=lambda item: (-len(item[0]), item[0]))
    for path, value in found:
        if value.endswith(TEMPLATE_SUFFIXES):
            return value, kind, path
        if path[-1].endswith('*') and value.endswith('*'):
            value = value[:-1] + kind[len(path[-1]) - 1:]
        return resolve(registry, value, resource, scope, removed, depth + 1)
    return None, kind, None


def narrow(scope, resource):
    """The ``resources`` section a nested stack of ``resource`` sees: the
    entries whose pattern matches its name merged, its own last
    (heat/engine/environment.py:441-449, 827-828). (Heat also drops there
    the mapping the resource's own template came from, which no lookup in
    the narrowed section can reach.)"""
    narrowed = {}
    for pattern, entry in scope.items():
        if isinstance(entry, dict) and fnmatch.fnmatchcase(resource,
                                                           pattern):
            narrowed.update(entry)
    own = scope.get(resource)
    if isinstance(own, dict):
        narrowed.update(own)
    return narrowed
