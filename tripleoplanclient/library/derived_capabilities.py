"""Capabilities derived where the templates have no capabilities-map.yaml
(tripleo-heat-templates 17 and 18): from ``sample-env-generator/`` and the
environment files' headers.

Every environment file under ``environments/`` is listed (a ``X.j2.yaml``
counts as the ``X.yaml`` it renders to), plus the root environment
``overcloud-resource-registry-puppet.yaml``, the base the others
override. Left out: ``environments/lifecycle/`` (update and upgrade add
those for their step only) and YAML that is no Heat environment (THT 18
keeps a release note under ``environments/``).

Title and description: the generator entry that names the file (``name``
-> ``environments/<name>.yaml``; ``children`` inherit what they do not
set), else the file's ``# title:`` / ``# description:`` header, else the
path and no description.

Topics: the generator file's stem for a generated environment, else the
directory under ``environments/`` holding the file, ``General`` for the
top level and the root environment; a generator file and a directory of
the same name share their topic. Groups: a generator entry with its
children is one group (its title); any other environment is a group of
its own. A group is no constraint here: the ``excludes`` of each
environment are (see environment_conflicts; the root environment is never
part of one, and an environment known only by its jinja2 source, the
plan not rendered yet, has none); ``overlaps``: the environments it
overrides, or is overridden by, when both are enabled (a warning, never
a refusal). ``requires``: none (THT 18 states them
only in prose). Order: ``General`` first, then topics by title; groups by
title; a generator's group in its entries' order.
"""

import posixpath
import re

from tripleoplanclient.common import content
from tripleoplanclient.library import capability_parts as parts
from tripleoplanclient.library import environment_conflicts

GENERATOR_DIR = parts.GENERATOR_DIR
ENVIRONMENTS_DIR = 'environments/'
# update / upgrade add environments/lifecycle/<action>-<stage>.yaml for
# their own step: never an environment of the plan's list.
LIFECYCLE_DIR = ENVIRONMENTS_DIR + 'lifecycle/'
ROOT_ENVIRONMENT = 'overcloud-resource-registry-puppet.yaml'
GENERAL = 'General'
ROOT_TITLE = 'Base resource registry'
ROOT_DESCRIPTION = ('The root environment: the base every other environment '
                    'overrides. Keep it first in the list.')
_HEADER = re.compile(r'^#(?P<indent>\s*)(?P<key>title|description):'
                     r'(?P<value>.*)$')
_BLOCK = re.compile(r'^[|>][+-]?[0-9]?$')


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
        parts.mapping(data, path, 'its content')
        entries = data.get('environments')
        if not isinstance(entries, list):
            raise parts.malformed(path, 'it has no "environments" list')
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
        parts.mapping(entry, path, here)
        name = entry.get('name', inherited[2])
        if not isinstance(name, str) or not name.strip():
            raise parts.malformed(path, '%s has no name' % here)
        title = (parts.text(entry['title']) if 'title' in entry
                 else inherited[0])
        description = (parts.text(entry['description'])
                       if 'description' in entry else inherited[1])
        key = group or (path, n)
        if group is None:
            groups[key] = (title, description)
        env_path = posixpath.normpath(
            ENVIRONMENTS_DIR + name.strip() + '.yaml')
        described.setdefault(env_path, (title, description, stem, key,
                                        len(described)))
        children = parts.listed(entry, 'children', path, here)
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


def derive(paths, read, enabled):
    """The capabilities of templates with a ``sample-env-generator/`` and
    no map (``build``'s result; ``read`` reads each path once)."""
    described, generator_groups = _generator_entries(paths, read)
    provided = parts.provided(paths)
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
            parsed = environment_conflicts.settings(
                content.load_yaml(data, source), path, source)
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
        envs.append((topic, group, parts.environment(
            title, description, path, enabled)))
    # exclusive pairs, then overlapping ones: {file: [{'file', 'reason'}]}
    by_file = [environment_conflicts.by_file(pairs) for pairs in
               environment_conflicts.conflicts(settings)]
    topics = {}
    for topic, group, env in envs:
        for key, found in zip(('excludes', 'overlaps'), by_file):
            env[key] = found.get(env['file'], [])
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
            'exclusive when they map one resource type to two different '
            'implementations (base profiles such as standalone/ aside); '
            'where they otherwise map one resource type or set one '
            'parameter differently, the later in the list overrides the '
            'earlier.' % (GENERATOR_DIR, parts.MAP))
    if unrendered:
        note += (' %d environment file(s) are known only by their jinja2 '
                 'source (the plan is not rendered): no constraints for '
                 'them.' % len(unrendered))
    return {'source': GENERATOR_DIR.rstrip('/'), 'note': note,
            'root_environment': root, 'topics': result}
