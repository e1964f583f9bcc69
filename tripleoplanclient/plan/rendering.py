"""Render a plan's jinja2 templates the way tripleo-heat-templates does.

Pure: the caller hands in the plan's paths and a ``read(path) -> bytes``
callable and gets ``{output path: bytes}`` back. The output is meant to be
byte-identical to THT's ``tools/process-templates.py`` run in place on the
same tree (tests/functional/plan/test_render_same_as_tht.py checks it):

* ``*.role.j2.yaml`` once per role, to ``<role>-<name>.yaml`` beside it
  (``<role>.yaml`` under ``network/config``); the role is the role's data
  when the source says ``{{role.name}}``, else its bare name;
* ``*.network.j2.yaml`` once per enabled network, ``port``/``network`` in
  the file name replaced by the network's ``name_lower``;
* any other ``*.j2.yaml`` once, with every role and network;
* ``j2_excludes.yaml`` names role and network outputs not to produce;
* jinja2 defaults, includes searched beside the template, then at the root.

Unlike the THT script, one jinja2 environment serves the whole render, so
a source or an include is parsed and compiled once, not once per output.

Templates are the plan author's and run inside Mistral's executor, shared
by every plan: they render in a sandbox (``template_sandbox``), with
bounds on what one operation may build and on the render's output
(``LIMITS.output``); ``render_process`` runs a render bounded in time and
memory.
"""

import collections
import posixpath

import jinja2
import yaml

from tripleoplanclient.common import content
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import template_sandbox

ROLE_SUFFIX = '.role.j2.yaml'
NETWORK_SUFFIX = '.network.j2.yaml'
J2_SUFFIX = '.j2.yaml'
EXCLUDES = 'j2_excludes.yaml'
# Without -r / -n the plan renders with the templates' own data files.
DEFAULT_ROLES = 'roles_data.yaml'
DEFAULT_NETWORKS = ('network_data.yaml', 'network_data_default.yaml')
_SEP = '\x00'    # between the search directory and the name of an include
_MIB = 1024 * 1024


class Limits(collections.namedtuple('Limits', 'output seconds memory')):
    """Bounds of one render as a whole: bytes of output of all its
    templates, seconds of wall time, bytes of memory it may add (time and
    memory hold when ``render_process`` renders)."""


# The defaults; Mistral's configuration may change them (mistral.limits).
LIMITS = Limits(output=64 * _MIB, seconds=120, memory=1024 * _MIB)

# Deprecated THT behaviour, kept for identical output: roles named like
# these get the tag even when roles data forgets it.
_TAGS_BY_NAME = (
    (('Compute', 'HciCeph', 'DistributedCompute'), 'compute'),
    (('Ceph',), 'ceph'),
    (('ComputeOvsDpdk',), 'ovsdpdk'),
    (('ObjectStorage', 'BlockStorage', 'Ceph'), 'storage'),
)


class RenderError(Exception):
    """A template or its data cannot be rendered; the message says which."""


def is_source(path):
    """True for the paths THT renders (hidden directories are skipped)."""
    return path.endswith(J2_SUFFIX) and not any(
        part.startswith('.') for part in path.split('/'))


def data_paths(inputs, paths=None):
    """``(roles, networks)`` plan paths a render uses.

    ``inputs`` is the record's (``roles_data``/``network_data``); without
    ``paths`` the networks default is every candidate name.
    """
    roles = inputs.get('roles_data') or DEFAULT_ROLES
    networks = inputs.get('network_data')
    if networks:
        return roles, (networks,)
    if paths is None:
        return roles, DEFAULT_NETWORKS
    return roles, tuple(p for p in DEFAULT_NETWORKS if p in paths)[:1] or (
        DEFAULT_NETWORKS[0],)


def is_input(path, inputs):
    """True when a change of ``path`` can change what a render produces."""
    roles, networks = data_paths(inputs)
    return (is_source(path) or path.endswith('.j2') or path == EXCLUDES
            or path == roles or path in networks)


class _PlanLoader(jinja2.BaseLoader):
    """Templates by plan path; an include looks beside its top template
    first, then at the plan root, as THT's FileSystemLoader does."""

    def __init__(self, paths, read):
        self.paths = paths
        self.read = read

    def get_source(self, environment, name):
        directory, _, rel = name.rpartition(_SEP)
        for candidate in ([posixpath.join(directory, rel), rel]
                          if directory else [rel]):
            candidate = posixpath.normpath(candidate)
            if candidate in self.paths:
                text = _text(self.read(candidate))
                return text, candidate, lambda: True
        raise jinja2.TemplateNotFound(rel)


class _MemoryBytecodeCache(jinja2.BytecodeCache):
    """Compiled templates by source checksum, kept for the process.

    A Mistral executor renders the same THT sources again and again; jinja2
    checks the checksum, so a changed source is simply compiled anew.
    """

    def __init__(self, limit=2000):
        self._code = {}
        self._limit = limit

    def load_bytecode(self, bucket):
        code = self._code.get(bucket.key)
        if code is not None and code[0] == bucket.checksum:
            bucket.code = code[1]

    def dump_bytecode(self, bucket):
        self.add(bucket.key, bucket.checksum, bucket.code)

    def add(self, key, checksum, code):
        if len(self._code) >= self._limit:
            self._code.clear()
        self._code[key] = (checksum, code)

    def snapshot(self):
        return dict(self._code)

    def since(self, snapshot):
        """``{key: (checksum, code)}`` compiled since ``snapshot``."""
        return {k: v for k, v in self._code.items()
                if snapshot.get(k) is not v}


BYTECODE_CACHE = _MemoryBytecodeCache()


class _PlanEnvironment(template_sandbox.PlanEnvironment):
    """The sandbox, with includes searched as THT does."""

    def join_path(self, template, parent):
        # Keep the top template's directory with the include's name, so
        # nested includes search where THT would, and the cache keys
        # differ when the same name resolves differently.
        directory = (parent.rpartition(_SEP)[0] if _SEP in parent
                     else posixpath.dirname(parent))
        return directory + _SEP + template


def size(count):
    """``count`` bytes for a message."""
    return ('%d MiB' % (count // _MIB) if count >= _MIB and not count % _MIB
            else '%d bytes' % count)


class _TooLarge(Exception):
    pass


def _bounded_text(template, data, limit):
    """The template's text, stopped once longer than ``limit`` (characters
    never outnumber UTF-8 bytes)."""
    chunks = []
    for chunk in template.generate(**data):
        limit -= len(chunk)
        if limit < 0:
            raise _TooLarge()
        chunks.append(chunk)
    return ''.join(chunks)


def _text(data):
    # THT reads in text mode: universal newlines.
    text = data.decode('utf-8') if isinstance(data, bytes) else data
    return text.replace('\r\n', '\n').replace('\r', '\n')


def _load(read, path, default):
    try:
        data = read(path)
    except KeyError:
        data = None
    if data is None:
        return default
    try:
        return yaml.load(data, Loader=content.Loader)
    except yaml.YAMLError as exc:
        raise RenderError('%s is not valid YAML: %s' % (path, exc))


def _containers(data, ids=None):
    """The ids of every list, dict and set within ``data``."""
    ids = set() if ids is None else ids
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, dict, set)) and id(item) not in ids:
            ids.add(id(item))
            stack.extend(item.values() if isinstance(item, dict) else item)
            if isinstance(item, dict):
                stack.extend(item)
    return ids


def _check_output(out_path, what):
    """Outputs are plain plan paths outside what the tooling keeps (the
    record, the generated passwords): a role or network name makes them,
    and no name may lead elsewhere."""
    problem = layout.path_problem(out_path)
    if problem:
        raise RenderError('%s would render to %s Rename it.'
                          % (what, problem))


def _check_names(items, key, path):
    for item in items:
        name = item.get(key)
        if not isinstance(name, str) or not name or '/' in name \
                or '\\' in name or name.strip('.') == '':
            raise RenderError(
                '%s: %s %r is not a plain name (letters, digits, "_", "-"; '
                'no "/"): it names rendered files.' % (path, key, name))


def tag_roles(roles):
    """Give each role the tags THT's jinja expects of its name (in place)."""
    for role in roles:
        role['tags'] = role.get('tags', [])
        name = role.get('name', str())
        for prefixes, tag in _TAGS_BY_NAME:
            if name.startswith(prefixes) and tag not in role['tags']:
                role['tags'].append(tag)


def render(paths, read, roles_path=DEFAULT_ROLES,
           networks_path=DEFAULT_NETWORKS[0], max_output=LIMITS.output,
           progress=None):
    """Render every source among ``paths``; returns ``{path: bytes}``.

    ``max_output``: bytes all outputs together may hold; ``progress`` is
    called with each output path before its template renders.
    """
    paths = frozenset(paths)
    roles = _load(read, roles_path, None)
    if not isinstance(roles, list) or not all(
            isinstance(r, dict) and r.get('name') for r in roles):
        raise RenderError('%s must be a YAML list of roles, each with a '
                          'name.' % roles_path)
    _check_names(roles, 'name', roles_path)
    networks = _load(read, networks_path, None) or []
    if not isinstance(networks, list) or not all(
            isinstance(n, dict) and n.get('name') for n in networks):
        raise RenderError('%s must be a YAML list of networks, each with a '
                          'name.' % networks_path)
    _check_names(networks, 'name', networks_path)
    _check_names([n for n in networks if n.get('name_lower')], 'name_lower',
                 networks_path)
    excludes = (_load(read, EXCLUDES, {}) if EXCLUDES in paths else {}) or {}
    excluded = set(excludes.get('name') or [])

    for idx, network in enumerate(networks):
        network['idx'] = idx
    tag_roles(roles)
    by_role = {r['name']: r for r in roles}
    enabled = {}
    for network in networks:
        if network.get('enabled') is not False:
            if not network.get('name_lower'):
                network['name_lower'] = network['name'].lower()
            enabled[network['name']] = network

    env = _PlanEnvironment(_containers([roles, networks]),
                           loader=_PlanLoader(paths, read),
                           bytecode_cache=BYTECODE_CACHE)
    outputs = {}
    left = [max_output]     # bytes the outputs may still take

    def emit(source, out_path, data, named_by=None):
        _check_output(out_path, named_by or 'Template %s' % source)
        if progress is not None:
            progress(out_path)
        try:
            text = _bounded_text(env.get_template(source), data, left[0])
        except _TooLarge:
            text = None
        except MemoryError as exc:
            raise RenderError(
                'Template %s needs more memory than one render may use: '
                'make it build less.' % out_path) from exc
        except Exception as exc:
            # The plan's own code failed (a jinja error, what the sandbox
            # refused, 1/0...): an error about the plan, not a traceback.
            raise RenderError('Error rendering template %s: %s: %s'
                              % (out_path, type(exc).__name__, exc))
        data = None if text is None else text.encode('utf-8')
        if data is None or len(data) > left[0]:
            raise RenderError(
                'Template %s takes the render past %s of output, the '
                'bound of one render: make it produce less.'
                % (out_path, size(max_output)))
        left[0] -= len(data)
        outputs[out_path] = data

    for source in sorted(p for p in paths if is_source(p)):
        folder, name = posixpath.split(source)
        if name.endswith(ROLE_SUFFIX):
            by_data = '{{role.name}}' in _text(read(source))
            for role in by_role:
                out = '%s-%s' % (role.lower(),
                                 name.replace(ROLE_SUFFIX, '.yaml'))
                if 'network/config' in source:
                    out = '%s.yaml' % role.lower()
                out_path = posixpath.join(folder, out)
                if out_path not in excluded:
                    emit(source, out_path, {
                        'role': by_role[role] if by_data else role,
                        'networks': networks},
                        'Role %r of %s' % (role, roles_path))
        elif name.endswith(NETWORK_SUFFIX):
            for network in enabled.values():
                out = name.replace(NETWORK_SUFFIX, '.yaml')
                out = out.replace('port' if folder.endswith('ports')
                                  else 'network', network['name_lower'])
                out_path = posixpath.join(folder, out)
                if out_path not in excluded:
                    emit(source, out_path, {'network': network},
                         'Network %r of %s' % (network['name_lower'],
                                               networks_path))
        else:
            emit(source, posixpath.join(
                folder, name.replace(J2_SUFFIX, '.yaml')),
                {'roles': roles, 'networks': networks})
    return outputs
