"""What a plan's templates let the operator enable: its capabilities.

Pure (no Swift, no network): ``build`` takes the plan's paths and a
``read(path) -> bytes`` callable and returns topics -> groups ->
environment files, which of them the plan has enabled and the constraints
between them; ``check`` applies an ``--enable`` / ``--disable`` choice to
the plan's environment list and refuses one that breaks a constraint.

Where the capabilities come from, in this order:

``capabilities-map.yaml`` at the plan root (releases before 17)
    Authoritative, in the map's own order. A group of several environments
    is a choice of one (the map says so): each excludes the others. An
    environment's ``requires`` are kept when they name an environment of
    the map. An entry whose file the templates do not hold (nor render)
    is listed with ``available: false``: it shows the map is out of date,
    and ``check`` refuses to enable it.

``sample-env-generator/`` (tripleo-heat-templates 17 and 18 have no map)
    Derived. Every environment file under ``environments/`` is listed (a
    ``X.j2.yaml`` counts as the ``X.yaml`` it renders to), plus the root
    environment ``overcloud-resource-registry-puppet.yaml``, the base the
    others override. Left out: ``environments/lifecycle/`` (update and
    upgrade add those for their step only) and YAML that is no Heat
    environment (THT 18 keeps a release note under ``environments/``).

    Title and description: the generator entry that names the file
    (``name`` -> ``environments/<name>.yaml``; ``children`` inherit what
    they do not set), else the file's ``# title:`` / ``# description:``
    header, else the path and no description.

    Topics: the generator file's stem for a generated environment, else
    the directory under ``environments/`` holding the file, ``General``
    for the top level and the root environment; a generator file and a
    directory of the same name share their topic. Groups: a generator
    entry with its children is one group (its title); any other
    environment is a group of its own. A group is no constraint here:
    the ``excludes`` of each environment are. Order: ``General`` first,
    then topics by title; groups by title; a generator's group in its
    entries' order.

    Mutually exclusive: two environments whose ``resource_registry`` maps
    one resource type to different targets (relative targets read as plan
    paths from the environment's own directory), or whose
    ``parameter_defaults`` give one parameter different values: whichever
    comes later would silently undo the other's choice. Not counted as
    different: the same list written as a list or a comma-separated
    string, and a list holding every item of the other (a feature
    environment restating the base list plus its own items, such as
    ``neutron-ovn-sriov`` over ``neutron-ovn-ha``); under a ``merge`` /
    ``deep_merge`` strategy either file declares, lists add up and
    mappings differ only where both set one key differently (THT 18:
    252 pairs by the registry alone, 610 with every differing parameter,
    529 with these exceptions; 626 once rendered). The root
    environment is never part of a conflict. An environment known only by
    its jinja2 source (the plan not rendered yet) has no constraints.
    ``requires``: none (THT 18 states them only in prose).

Neither
    Nothing listed, and the result's ``note`` says why.
"""

import difflib
import posixpath
import re

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import layout

MAP = 'capabilities-map.yaml'
GENERATOR_DIR = 'sample-env-generator/'
ENVIRONMENTS_DIR = 'environments/'
# update / upgrade add environments/lifecycle/<action>-<stage>.yaml for
# their own step: never an environment of the plan's list.
LIFECYCLE_DIR = ENVIRONMENTS_DIR + 'lifecycle/'
ROOT_ENVIRONMENT = 'overcloud-resource-registry-puppet.yaml'
GENERAL = 'General'
ROOT_TITLE = 'Base resource registry'
ROOT_DESCRIPTION = ('The root environment: the base every other environment '
                    'overrides. Keep it first in the list.')
J2_SUFFIX = '.j2.yaml'
# Sources rendered once per role / network (see rendering): their outputs
# are in the plan's paths once rendered, under their own names.
_PER_ITEM_SUFFIXES = ('.role.j2.yaml', '.network.j2.yaml')
_SECTIONS = frozenset(['resource_registry', 'parameter_defaults',
                       'parameters', 'parameter_merge_strategies',
                       'event_sinks', 'encrypted_param_names'])
# resource_registry keys whose values are no resource type's target.
_REGISTRY_SKIP = frozenset(['base_url', 'hooks', 'restricted_actions'])
_MERGING = frozenset(['merge', 'deep_merge'])
_URL = re.compile(r'^[a-zA-Z][a-zA-Z0-9+.-]*://')
_HEADER = re.compile(r'^#(?P<indent>\s*)(?P<key>title|description):'
                     r'(?P<value>.*)$')
_BLOCK = re.compile(r'^[|>][+-]?[0-9]?$')
# How many keys a reason names before it counts the rest.
_REASON_KEYS = 3


def _malformed(path, problem):
    return exceptions.CommandError(
        'The templates\' %s: %s. Fix it in the templates and run the '
        'command again.' % (path, problem))


def _string(value, default=''):
    """A title or description: text, however the YAML typed it."""
    if value is None:
        return default
    text = str(value).strip()
    return text or default


def _rendered(path):
    """The plan path a jinja2 source renders to (``path`` itself if it is
    none)."""
    if path.endswith(J2_SUFFIX) and not path.endswith(_PER_ITEM_SUFFIXES):
        return path[:-len(J2_SUFFIX)] + '.yaml'
    return path


def _provided(paths):
    """Plan paths held or rendered: ``{path: (source, readable)}``.

    ``readable``: the path's own content is in the plan (a rendered
    output, or a plain file); otherwise only its jinja2 source is.
    """
    provided = {}
    for path in paths:
        if path.endswith(_PER_ITEM_SUFFIXES):
            continue
        target = _rendered(path)
        if target == path:
            provided[path] = (path, True)
        elif target not in provided:
            provided[target] = (path, False)
    return provided


class _Reader(object):
    """The caller's ``read``, each path read at most once."""

    def __init__(self, read):
        self._read = read
        self._data = {}

    def __call__(self, path):
        if path not in self._data:
            self._data[path] = self._read(path)
        return self._data[path]


def _environment(title, description, path, enabled, available=True):
    return {'file': path, 'title': title or path,
            'description': description, 'enabled': path in enabled,
            'available': available, 'requires': [], 'excludes': []}


def build(paths, read, enabled=(), plan=None):
    """The capabilities of a plan's templates.

    ``paths``: every plan path the plan holds (the templates tree, the
    render's outputs); ``read(path) -> bytes``: a path's content, called
    only for the map, the generator files and the environment files, each
    once; ``enabled``: the plan's environment list; ``plan``: its name,
    for the note. Returns a JSON-serialisable dict::

        {'source': 'capabilities-map.yaml' | 'sample-env-generator' | None,
         'note': str or None,
         'root_environment': plan path or None,
         'topics': [{'title', 'description', 'groups': [
             {'title', 'description', 'environments': [
                 {'file', 'title', 'description', 'enabled', 'available',
                  'requires': [plan path...],
                  'excludes': [{'file', 'reason'}...]}]}]}]}

    A malformed map, generator file or environment file raises a
    CommandError naming it.
    """
    paths = frozenset(paths)
    enabled = frozenset(enabled)
    read = _Reader(read)
    if MAP in paths:
        return _from_map(paths, read, enabled)
    if any(p.startswith(GENERATOR_DIR) for p in paths):
        return _derived(paths, read, enabled)
    return {'source': None, 'root_environment': None, 'topics': [],
            'note': 'The templates of %s have no %s and no %s: they '
                    'describe no capabilities, so none are listed. Add '
                    'environment files with -e (plan amend, deploy) '
                    'instead.' % (
                        'plan %s' % plan if plan else 'the plan', MAP,
                        GENERATOR_DIR)}


# -- capabilities-map.yaml ---------------------------------------------

def _map_path(value, where):
    if not isinstance(value, str) or not value.strip():
        raise _malformed(MAP, '%s names no file' % where)
    path = value.strip()
    while path.startswith('./'):
        path = path[2:]
    problem = layout.path_problem(path, 'stored')
    if problem:
        raise _malformed(MAP, '%s: %s' % (where, problem.rstrip('.')))
    return _rendered(path)


def _map_list(node, key, where):
    value = node.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise _malformed(MAP, '%s of %s is not a list' % (key, where))
    return value


def _mapping(node, path, where):
    if not isinstance(node, dict):
        raise _malformed(path, '%s is not a mapping' % where)
    return node


def _from_map(paths, read, enabled):
    data = content.load_yaml(read(MAP), MAP)
    if data is None:
        data = {}
    _mapping(data, MAP, 'its content')
    provided = _provided(paths)
    root = data.get('root_environment')
    root = _map_path(root, 'root_environment') if root is not None else None
    topics, groups_of, requires_of = [], {}, {}
    for t, topic in enumerate(_map_list(data, 'topics', 'the map'), 1):
        where = 'topic %d' % t
        _mapping(topic, MAP, where)
        groups = []
        for g, group in enumerate(
                _map_list(topic, 'environment_groups', where), 1):
            gwhere = '%s, group %d' % (where, g)
            _mapping(group, MAP, gwhere)
            title = _string(group.get('title'))
            members = []
            for e, env in enumerate(
                    _map_list(group, 'environments', gwhere), 1):
                ewhere = '%s, environment %d' % (gwhere, e)
                _mapping(env, MAP, ewhere)
                path = _map_path(env.get('file'), ewhere)
                requires = env.get('requires')
                if isinstance(requires, str):
                    requires = [requires]
                elif requires is None:
                    requires = []
                elif not isinstance(requires, list):
                    raise _malformed(MAP, 'requires of %s is not a list'
                                     % ewhere)
                requires_of.setdefault(path, set()).update(
                    _map_path(r, '%s, requires' % ewhere) for r in requires)
                members.append(_environment(
                    _string(env.get('title')),
                    _string(env.get('description')), path, enabled,
                    path in provided))
            label = ('"%s"' % title if title else
                     '%d of topic "%s"' % (g, _string(topic.get('title'))))
            for env in members:
                groups_of.setdefault(env['file'], []).append(
                    (label, [m['file'] for m in members]))
            groups.append({'title': title,
                           'description': _string(group.get('description')),
                           'environments': members})
        topics.append({'title': _string(topic.get('title'), where),
                       'description': _string(topic.get('description')),
                       'groups': groups})
    known = set(requires_of)
    unavailable = sorted(p for p in known if p not in provided)
    for topic in topics:
        for group in topic['groups']:
            for env in group['environments']:
                path = env['file']
                env['requires'] = sorted(
                    r for r in requires_of[path] if r in known and r != path)
                excludes = {}
                for label, files in groups_of[path]:
                    for other in files:
                        if other != path:
                            excludes.setdefault(other, []).append(
                                'same group %s of %s' % (label, MAP))
                env['excludes'] = [
                    {'file': other, 'reason': '; '.join(reasons)}
                    for other, reasons in sorted(excludes.items())]
    note = None
    if unavailable:
        note = ('%s names %d environment file(s) the templates do not hold: '
                '%s (listed with available false).' % (
                    MAP, len(unavailable), ', '.join(unavailable)))
    return {'source': MAP, 'note': note, 'root_environment': root,
            'topics': topics}


# -- derived from sample-env-generator/ and the files' headers ---------

def _generator_entries(paths, read):
    """What the generator files say of the environments they describe:
    ``{environment path: (title, description, stem, group key, rank)}``
    (rank: its place among the entries) and
    ``{group key: (title, description)}``; a group key is ``(generator
    path, number of its top-level entry)``."""
    described, groups = {}, {}
    for path in sorted(paths):
        name = path[len(GENERATOR_DIR):]
        if (not path.startswith(GENERATOR_DIR) or '/' in name
                or not name.endswith(('.yaml', '.yml'))):
            continue
        data = content.load_yaml(read(path), path)
        _mapping(data, path, 'its content')
        entries = data.get('environments')
        if not isinstance(entries, list):
            raise _malformed(path, 'it has no "environments" list')
        stem = name.rsplit('.', 1)[0]
        _walk_entries(path, stem, entries, 'environment', ('', '', None),
                      None, described, groups)
    return described, groups


def _walk_entries(path, stem, entries, where, inherited, group, described,
                  groups):
    """Generator entries and their ``children``, which inherit the title,
    description and name they do not set."""
    for n, entry in enumerate(entries, 1):
        here = '%s %d' % (where, n)
        _mapping(entry, path, here)
        name = entry.get('name', inherited[2])
        if not isinstance(name, str) or not name.strip():
            raise _malformed(path, '%s has no name' % here)
        title = (_string(entry['title']) if 'title' in entry
                 else inherited[0])
        description = (_string(entry['description'])
                       if 'description' in entry else inherited[1])
        key = group or (path, n)
        if group is None:
            groups[key] = (title, description)
        env_path = posixpath.normpath(
            ENVIRONMENTS_DIR + name.strip() + '.yaml')
        described.setdefault(env_path, (title, description, stem, key,
                                        len(described)))
        children = entry.get('children')
        if children is None:
            children = []
        if not isinstance(children, list):
            raise _malformed(path, 'children of %s is not a list' % here)
        _walk_entries(path, stem, children, here + ', child',
                      (title, description, name), key, described, groups)


def _block(lines, indent):
    """The text of a ``|`` block in header comments: the lines indented
    deeper than the key, kept until the first that is not."""
    kept = []
    for line in lines:
        line = line.strip()
        if not line.startswith('#'):
            break
        rest = line[1:].rstrip()
        depth = len(rest) - len(rest.lstrip())
        if rest.strip() and depth <= indent:
            break
        kept.append(rest)
    while kept and not kept[-1].strip():
        kept.pop()
    depth = min((len(k) - len(k.lstrip()) for k in kept if k.strip()),
                default=0)
    return [k[depth:] for k in kept]


def _header(data, path):
    """``(title, description)`` from a file's leading comments: the
    ``# title:`` and ``# description:`` lines (a description may be a
    ``|`` or ``>`` block of deeper-indented comment lines)."""
    lines = content.text(data, path).splitlines()
    found = {}
    for i, line in enumerate(lines):
        if line.strip() in ('', '---'):
            continue
        if not line.lstrip().startswith('#'):
            break        # the header ends where the YAML begins
        match = _HEADER.match(line.strip())
        if not match or match.group('key') in found:
            continue
        value = match.group('value').strip()
        if _BLOCK.match(value):
            kept = _block(lines[i + 1:], len(match.group('indent')))
            value = ('\n' if value[0] == '|' else ' ').join(kept).strip()
        elif len(value) > 1 and value[0] == value[-1] and value[0] in '\'"':
            value = value[1:-1]
        found[match.group('key')] = value
    return found.get('title', ''), found.get('description', '')


def _registry(path, registry):
    """``{resource type: target}``, targets as plan paths (relative ones
    read from the environment's directory); types nested under
    ``resources`` keyed ``resources/<name>/<type>``."""
    base = posixpath.dirname(path)
    found = {}

    def walk(node, prefix):
        for key, value in node.items():
            key = str(key)
            if key in _REGISTRY_SKIP:
                continue
            if isinstance(value, dict):
                walk(value, prefix + key + '/')
            elif isinstance(value, str):
                value = value.strip()
                if not ('::' in value or _URL.match(value)
                        or value.startswith('/')):
                    value = posixpath.normpath(posixpath.join(base, value))
                found[prefix + key] = value
            elif value is None or isinstance(value, (bool, int, float)):
                found[prefix + key] = value
            else:
                raise _malformed(path, 'it maps %s to a %s, not a template '
                                       'or a type' % (prefix + key,
                                                      type(value).__name__))

    walk(registry, '')
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
    if not isinstance(value, dict):
        raise _malformed(path, 'its %s is not a mapping' % key)
    return value


def _settings(data, env, source):
    """What an environment sets: ``(registry, parameters, strategies)``,
    or None when the document is no Heat environment."""
    if data is None:
        return {}, {}, {}
    if not isinstance(data, dict) or any(k not in _SECTIONS for k in data):
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


def _conflicts(settings):
    """``{(a, b): reason}`` for every mutually exclusive pair, a < b."""
    found = {}

    def add(a, b, kind, key):
        pair = (a, b) if a < b else (b, a)
        found.setdefault(pair, ({}, {}))[kind].setdefault(key, None)

    by_type, by_param = {}, {}
    for env, (registry, params, strategies) in sorted(settings.items()):
        for key, target in registry.items():
            by_type.setdefault(key, []).append((env, target))
        for key, value in params.items():
            by_param.setdefault(key, []).append(
                (env, value, _strategy(strategies, key)))
    for key, entries in by_type.items():
        for i, (a, target_a) in enumerate(entries):
            for b, target_b in entries[i + 1:]:
                if target_a != target_b:
                    add(a, b, 0, key)
    for key, entries in by_param.items():
        for i, (a, value_a, strategy_a) in enumerate(entries):
            for b, value_b, strategy_b in entries[i + 1:]:
                if _differ(value_a, value_b, strategy_a or strategy_b):
                    add(a, b, 1, key)
    reasons = {}
    for pair, (types, params) in found.items():
        parts = []
        if types:
            parts.append('map ' + _named(types))
        if params:
            parts.append('set parameter%s %s' % (
                's' if len(params) > 1 else '', _named(params)))
        reasons[pair] = 'both %s differently' % ' and '.join(parts)
    return reasons


def _derived(paths, read, enabled):
    described, generator_groups = _generator_entries(paths, read)
    provided = _provided(paths)
    candidates = sorted(
        p for p in provided
        if (p.startswith(ENVIRONMENTS_DIR) and not p.startswith(LIFECYCLE_DIR)
            and p.endswith(('.yaml', '.yml'))))
    root = ROOT_ENVIRONMENT if ROOT_ENVIRONMENT in provided else None
    if root:
        candidates.insert(0, root)
    settings, envs, unrendered = {}, [], []
    for path in candidates:
        source, readable = provided[path]
        # Read for its settings (the root's are the base, never compared)
        # or for its header: a jinja2 source only for the latter.
        needs_settings = readable and path != root
        data = (read(source) if needs_settings or path not in described
                else None)
        if needs_settings:
            parsed = _settings(content.load_yaml(data, source), path, source)
            if parsed is None:
                continue     # YAML, but no Heat environment
            settings[path] = parsed
        elif path != root:
            unrendered.append(path)
        if path in described:
            title, description, topic, group, _ = described[path]
        else:
            title, description = _header(data, source)
            if path == root:
                title = title or ROOT_TITLE
                description = description or ROOT_DESCRIPTION
            rest = path[len(ENVIRONMENTS_DIR):] if path != root else ''
            topic = rest.split('/', 1)[0] if '/' in rest else GENERAL
            group = path
        envs.append((topic, group, _environment(
            title, description, path, enabled)))
    reasons = _conflicts(settings)
    excludes = {}
    for (a, b), reason in sorted(reasons.items()):
        excludes.setdefault(a, []).append({'file': b, 'reason': reason})
        excludes.setdefault(b, []).append({'file': a, 'reason': reason})
    topics = {}
    for topic, group, env in envs:
        env['excludes'] = sorted(excludes.get(env['file'], []),
                                 key=lambda e: e['file'])
        sources, groups = topics.setdefault(topic, (set(), {}))
        if isinstance(group, tuple):
            sources.add(group[0])
            title, description = generator_groups[group]
        else:
            sources.add(posixpath.dirname(env['file']) + '/'
                        if env['file'] != root else env['file'])
            title, description = env['title'], env['description']
        entry = groups.setdefault(group, {
            'title': title or env['file'], 'description': description,
            'environments': []})
        entry['environments'].append(env)
    for _, groups in topics.values():
        for group in groups.values():
            # A generator's group in its entries' order (parent first).
            group['environments'].sort(key=lambda e: (
                described.get(e['file'], (0,) * 5)[4], e['file']))
    result = []
    for title in sorted(topics, key=lambda t: (t != GENERAL, t.lower(), t)):
        sources, groups = topics[title]
        result.append({
            'title': title,
            'description': 'Environment files from %s' % ', '.join(
                sorted(sources)),
            'groups': sorted(groups.values(), key=lambda g: (
                g['title'].lower(), g['environments'][0]['file']))})
    note = ('Derived from %s and the environment files\' headers (the '
            'templates have no %s): two environments are mutually '
            'exclusive when they map one resource type or set one parameter '
            'differently.' % (GENERATOR_DIR, MAP))
    if unrendered:
        note += (' %d environment file(s) are known only by their jinja2 '
                 'source (the plan is not rendered): no constraints for '
                 'them.' % len(unrendered))
    return {'source': GENERATOR_DIR.rstrip('/'), 'note': note,
            'root_environment': root, 'topics': result}


# -- a choice checked --------------------------------------------------

def environments(caps):
    """``{path: environment}`` of a ``build`` result (one entry for a
    file listed in several groups)."""
    found = {}
    for topic in caps.get('topics', ()):
        for group in topic['groups']:
            for env in group['environments']:
                found.setdefault(env['file'], env)
    return found


def _unknown(path, known):
    close = difflib.get_close_matches(path, sorted(known), n=3, cutoff=0.6)
    hint = ('; did you mean %s?' % ' or '.join(close)) if close else (
        '; `overcloud plan capabilities` lists them (add any other file '
        'with plan amend -e)')
    return '%s is not an environment of the templates\' capabilities%s' % (
        path, hint)


def _way_out(a, b, asked):
    """What to do about two mutually exclusive environments."""
    if a in asked and b in asked:
        return 'enable only one of them'
    if a in asked or b in asked:
        new, old = (a, b) if a in asked else (b, a)
        return 'do not enable %s, or --disable %s' % (new, old)
    return 'both are enabled already: --disable one of them'


def check(caps, current, enable=(), disable=()):
    """The plan's new environment list, or a CommandError naming every
    problem of the choice.

    ``caps``: a ``build`` result; ``current``: the plan's environment
    list. ``disable`` leaves the list; each ``enable`` not yet in it is
    appended in the order given (one already in keeps its place), but the
    root environment, the base the others override, goes first. Only the
    capabilities' environments are constrained: other entries (user
    files) are kept as they are.
    """
    envs = environments(caps)
    root = caps.get('root_environment')
    enable, disable = list(enable), list(disable)
    problems = []
    for path in dict.fromkeys(enable + disable):
        if path not in envs:
            problems.append(_unknown(path, envs))
    for path in dict.fromkeys(enable):
        if path in envs and not envs[path]['available']:
            problems.append(
                '%s is in %s but the templates do not hold it: it cannot '
                'be enabled' % (path, caps.get('source')))
        if path in disable:
            problems.append('%s is given to both --enable and --disable: '
                            'give it once' % path)
    for path in dict.fromkeys(disable):
        if path in envs and path not in current:
            problems.append('%s is not enabled: nothing to disable' % path)
    drop = set(disable)
    new = [p for p in current if p not in drop]
    for path in enable:
        if path not in new and path not in drop:
            if path == root:
                new.insert(0, path)
            else:
                new.append(path)
    on = [p for p in new if p in envs]
    asked = set(enable) - set(current)
    for i, path in enumerate(on):
        for other in on[i + 1:]:
            reason = next((e['reason'] for e in envs[path]['excludes']
                           if e['file'] == other), None)
            if reason is None:
                continue
            problems.append('%s and %s are mutually exclusive (%s): %s' % (
                path, other, reason, _way_out(path, other, asked)))
    kept = set(new)
    for path in on:
        for required in envs[path]['requires']:
            if required in kept:
                continue
            way = ('do not disable %s' % required
                   if required in drop and required in current
                   else 'enable %s too' % required)
            problems.append('%s requires %s: %s' % (path, required, way))
    if problems:
        raise exceptions.CommandError(
            'The capabilities change was refused:\n%s\nNothing was changed.'
            % '\n'.join('  - %s' % p for p in problems))
    return new
