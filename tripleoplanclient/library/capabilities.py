"""What a plan's templates let the operator enable: its capabilities.

Pure (no Swift, no network): ``build`` takes the plan's paths and a
``read(path) -> bytes`` callable and returns topics -> groups ->
environment files, which of them the plan has enabled and the constraints
between them; ``check`` applies an ``--enable`` / ``--disable`` choice to
the plan's environment list and refuses one that breaks a constraint.

Where the capabilities come from, in this order:

``capabilities-map.yaml`` at the plan root (releases before 17)
    Read here. Authoritative, in the map's own order. A group the map
    flags ``mutually_exclusive: true`` is a choice of one: each of its
    environments excludes the others; any other group is a list of
    environments that combine (several Cinder or Manila backends). An
    environment's ``requires`` are kept when they name an
    environment of the map. An entry whose file the templates do not hold
    (nor render) is listed with ``available: false``: it shows the map is
    out of date, and ``check`` refuses to enable it. The map says
    nothing of overrides: ``overlaps`` are found in the environments' own
    content (environment_conflicts, as without a map), each readable one
    of the map read once, the root environment aside (the base).

``sample-env-generator/`` (tripleo-heat-templates 17 and 18 have no map)
    Derived by derived_capabilities: every environment file, titled and
    grouped from the generator and the files' headers, two of them
    mutually exclusive where environment_conflicts says.

Neither
    Nothing listed, and the result's ``note`` says why.
"""

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.common import suggestions
from tripleoplanclient.library import capability_parts as parts
from tripleoplanclient.library import derived_capabilities
from tripleoplanclient.library import environment_conflicts
from tripleoplanclient.plan import layout

MAP = parts.MAP


class _Reader:
    """The caller's ``read``, each path read at most once."""

    def __init__(self, read):
        self._read = read
        self._data = {}

    def __call__(self, path):
        if path not in self._data:
            self._data[path] = self._read(path)
        return self._data[path]


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
    if any(p.startswith(parts.GENERATOR_DIR) for p in paths):
        return derived_capabilities.derive(paths, read, enabled)
    return {'source': None, 'root_environment': None, 'topics': [],
            'note': 'The templates of %s have no %s and no %s: they '
                    'describe no capabilities, so none are listed. Add '
                    'environment files with -e (plan amend, deploy) '
                    'instead.' % (
                        'plan %s' % plan if plan else 'the plan', MAP,
                        parts.GENERATOR_DIR)}


# -- capabilities-map.yaml ---------------------------------------------

def _map_path(value, where):
    if not isinstance(value, str) or not value.strip():
        raise parts.malformed(MAP, '%s names no file' % where)
    path = value.strip()
    while path.startswith('./'):
        path = path[2:]
    problem = layout.path_problem(path, 'stored')
    if problem:
        raise parts.malformed(MAP, '%s: %s' % (where, problem.rstrip('.')))
    return parts.rendered(path)


def _from_map(paths, read, enabled):
    data = content.load_yaml(read(MAP), MAP)
    if data is None:
        data = {}
    parts.mapping(data, MAP, 'its content')
    provided = parts.provided(paths)
    root = data.get('root_environment')
    root = _map_path(root, 'root_environment') if root is not None else None
    topics, groups_of, requires_of = [], {}, {}
    for t, topic in enumerate(
            parts.listed(data, 'topics', MAP, 'the map'), 1):
        where = 'topic %d' % t
        parts.mapping(topic, MAP, where)
        groups = []
        for g, group in enumerate(
                parts.listed(topic, 'environment_groups', MAP, where), 1):
            gwhere = '%s, group %d' % (where, g)
            parts.mapping(group, MAP, gwhere)
            title = parts.text(group.get('title'))
            members = []
            for e, env in enumerate(
                    parts.listed(group, 'environments', MAP, gwhere), 1):
                ewhere = '%s, environment %d' % (gwhere, e)
                parts.mapping(env, MAP, ewhere)
                path = _map_path(env.get('file'), ewhere)
                requires = env.get('requires')
                if isinstance(requires, str):
                    requires = [requires]
                elif requires is None:
                    requires = []
                elif not isinstance(requires, list):
                    raise parts.malformed(
                        MAP, 'requires of %s is not a list' % ewhere)
                requires_of.setdefault(path, set()).update(
                    _map_path(r, '%s, requires' % ewhere) for r in requires)
                members.append(parts.environment(
                    parts.text(env.get('title')),
                    parts.text(env.get('description')), path, enabled,
                    path in provided))
            label = ('"%s"' % title if title else
                     '%d of topic "%s"' % (g, parts.text(topic.get('title'))))
            if group.get('mutually_exclusive') is True:
                for env in members:
                    groups_of.setdefault(env['file'], []).append(
                        (label, [m['file'] for m in members]))
            groups.append({
                'title': title,
                'description': parts.text(group.get('description')),
                'environments': members})
        topics.append({'title': parts.text(topic.get('title'), where),
                       'description': parts.text(topic.get('description')),
                       'groups': groups})
    known = set(requires_of)
    unavailable = sorted(p for p in known if p not in provided)
    overlaps = _overlaps(provided, read, known, root)
    for topic in topics:
        for group in topic['groups']:
            for env in group['environments']:
                path = env['file']
                env['requires'] = sorted(
                    r for r in requires_of[path] if r in known and r != path)
                excludes = {}
                for label, files in groups_of.get(path, ()):
                    for other in files:
                        if other != path:
                            excludes.setdefault(other, []).append(
                                'same group %s of %s' % (label, MAP))
                env['excludes'] = [
                    {'file': other, 'reason': '; '.join(reasons)}
                    for other, reasons in sorted(excludes.items())]
                env['overlaps'] = overlaps.get(path, [])
    note = None
    if unavailable:
        note = ('%s names %d environment file(s) the templates do not hold: '
                '%s (listed with available false).' % (
                    MAP, len(unavailable), ', '.join(unavailable)))
    return {'source': MAP, 'note': note, 'root_environment': root,
            'topics': topics}


def _overlaps(provided, read, files, root):
    """``{file: [{'file', 'reason'}]}``: the pairs of the map's ``files``
    whose settings differ (the later in a list overrides the earlier).
    Only the map says which are alternatives; a file known only by its
    jinja2 source (not rendered yet) or that is no Heat environment has
    none."""
    settings = {}
    for path in sorted(files):
        source, readable = provided.get(path, (None, False))
        if path == root or not readable:
            continue
        found = environment_conflicts.settings(
            content.load_yaml(read(source), source), path, source)
        if found is not None:
            settings[path] = found
    return environment_conflicts.by_file(environment_conflicts.conflicts(
        settings, alternatives=False)[1])


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
    close = suggestions.close_matches(path, sorted(known), fold_case=False)
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


def overrides(caps, current):
    """The warnings of an environment list: ``'later file overrides
    earlier: <later> overrides <earlier> (<what both set>)'`` for each
    enabled pair of ``overlaps`` that ``check`` does not refuse (a
    warning: a later ``-e`` overriding an earlier one is how TripleO is
    configured), in list order."""
    envs = environments(caps)
    on = [p for p in dict.fromkeys(current) if p in envs]
    found = []
    for i, later in enumerate(on):
        reasons = {o['file']: o['reason']
                   for o in envs[later].get('overlaps', ())}
        refused = {e['file'] for e in envs[later]['excludes']}
        for earlier in on[:i]:
            if earlier in reasons and earlier not in refused:
                found.append('later file overrides earlier: %s overrides '
                             '%s (%s)' % (later, earlier, reasons[earlier]))
    return found


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
