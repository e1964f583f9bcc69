"""Which local files a plan needs, and where each one lives in the plan.

Files inside ``--templates`` keep their path relative to it. Every other
file the user gives or references is stored under ``user-files/`` at its
absolute local path, and the stored copies' references are rewritten to
relative plan paths, so the plan in Swift is self-contained. Each such
file is also named as the user gave it (``given_name``): what people are
shown, where the plan path would carry a temporary directory.
"""

import copy
import os
import posixpath
import re
from urllib import parse

import yaml

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import heat_environment
from tripleoplanclient.plan import layout

# Version-control and build leftovers are not part of a templates tree.
_SKIP_DIRS = frozenset(['.git', '.tox', '.stestr', '.eggs', '__pycache__'])
_SKIP_SUFFIXES = ('.pyc', '.pyo', '.egg-info')


def _read(path, what):
    try:
        with open(path, 'rb') as f:
            return f.read()
    except FileNotFoundError:
        raise exceptions.CommandError(
            '%s %s does not exist.' % (what, path))
    except IsADirectoryError:
        raise exceptions.CommandError('%s %s is a directory, not a file.'
                                      % (what, path))
    except OSError as exc:
        raise exceptions.CommandError('%s %s cannot be read: %s.'
                                      % (what, path, exc.strerror))


def _walk(node, visit, seen=None):
    """Call ``visit(kind, value)`` on every file reference in a template.

    ``kind`` is 'file' for ``get_file`` and 'template' for nested template
    ``type``. A non-None return value replaces the reference in place.
    ``seen``: the containers walked; one an alias shares is walked once
    (its reference, once rewritten, is not a local path any more).
    """
    seen = set() if seen is None else seen
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, str) and (
                    key == 'get_file' or (
                        key == 'type' and value.endswith(
                            heat_environment.TEMPLATE_SUFFIXES))):
                new = visit('file' if key == 'get_file' else 'template',
                            value)
                if new is not None:
                    node[key] = new
            else:
                _walk(value, visit, seen)
    elif isinstance(node, list):
        for item in node:
            _walk(item, visit, seen)


def _walk_registry(registry, visit, seen=None):
    """Call ``visit('template', value)`` on each resource_registry path.

    As in Heat, a value holding '::' names a type, not a file. ``seen``:
    as in _walk.
    """
    seen = set() if seen is None else seen
    for mapping, key, _ in heat_environment.registry_entries(registry, seen):
        value = mapping[key]
        if isinstance(value, str) and '::' not in value:
            new = visit('template', value)
            if new is not None:
                mapping[key] = new


def _rewrite_text(text, old_new, expected):
    """Replace reference scalars in YAML text, keeping comments and layout.

    The result is trusted only when it parses to ``expected``; otherwise the
    data is dumped afresh (comments are lost, references are right).
    """
    new_text = text
    for old, new in sorted(old_new.items()):
        pattern = re.compile(
            r'(?P<pre>(?:^|[\s:,\[{-]))(?P<q>["\']?)' + re.escape(old)
            + r'(?P=q)(?=\s*(?:#.*)?$|\s*[,\]}])', re.MULTILINE)
        new_text = pattern.sub(
            lambda m: m.group('pre') + m.group('q') + new + m.group('q'),
            new_text)
    try:
        if yaml.load(new_text, Loader=content.Loader) == expected:
            return new_text
    except (yaml.YAMLError, RecursionError):
        pass
    return yaml.safe_dump(expected, default_flow_style=False,
                          sort_keys=False)


def given_name(typed):
    """The name of a file given as ``typed`` (an option's argument, or a
    reference resolved against its file's name): normalized, relative when
    typed so (to the command's directory), None when no record may show
    it (``schema.name_problem``)."""
    from tripleoplanclient.plan import schema

    name = os.path.normpath(typed).replace(os.sep, '/')
    return None if schema.name_problem(name) else name


def _directory():
    """The working directory as a record may show it, or None (removed
    under the process, or no such name)."""
    from tripleoplanclient.plan import schema

    try:
        found = os.getcwd()
    except OSError:
        return None
    return None if schema.name_problem(found) else found


def user_path(local):
    """The plan path of the local file ``local`` (absolute, normalized)
    when it lies outside the templates tree (not checked)."""
    return layout.USER_FILES + local.lstrip('/').replace(os.sep, '/')


class PlanFiles:
    """The objects one command wants in the plan, computed locally.

    Nothing here talks to Swift: every input error surfaces before the
    first request, so a bad command line never touches the stored plan.
    """

    def __init__(self, templates=None):
        self.templates = os.path.abspath(templates) if templates else None
        self.objects = {}        # plan path -> bytes to store
        self.sources = {}        # plan path -> local path (user files only)
        self.environments = []   # plan paths, in the order given
        # plan path -> the name the user gave (user files only)
        self.names = {}
        # Where the command runs: what the relative names are relative to.
        self.directory = _directory()
        self.inputs = {}         # rendering inputs: kind -> plan path
        self.release = None      # the tree's (add_templates): templates.py
        # Who reads the sources, where (plan.origin.Origin): their marks go
        # on record with them; None: no mark, never read again.
        self.origin = None
        self._scanned = set()

    def md5s(self):
        """``{plan path: MD5}`` of every object."""
        return {p: content.md5(d) for p, d in self.objects.items()}

    def marks(self):
        """``{plan path: mark}`` of the sources, to record with them."""
        if self.origin is None:
            return {}
        return {p: self.origin.mark(p, s) for p, s in self.sources.items()}

    # -- paths ---------------------------------------------------------

    def _in_templates(self, local):
        t = self.templates
        return bool(t) and (local == t or local.startswith(t + os.sep))

    def plan_path(self, local, what=None):
        """Where the local file ``local`` lives in the plan, checked
        (``what`` names it in the error): a templates file keeps its path
        in the tree, any other goes under user-files/."""
        local = os.path.abspath(local)
        if self._in_templates(local):
            path = os.path.relpath(local, self.templates)
            path = path.replace(os.sep, '/')
            source = 'templates'
        else:
            path = user_path(local)
            source = 'user'
        return layout.check_plan_path(path, what or local, source)

    def _renders_to(self, local):
        """True when the templates' jinja sources will produce ``local``."""
        if not self._in_templates(local):
            return False
        base, ext = os.path.splitext(local)
        if os.path.exists(base + '.j2' + ext):
            return True
        folder = os.path.dirname(local)
        try:
            names = os.listdir(folder)
        except OSError:
            return False
        return any(n.endswith(('.role.j2.yaml', '.network.j2.yaml'))
                   for n in names)

    # -- the templates tree -------------------------------------------

    def add_templates(self):
        if not os.path.isdir(self.templates or ''):
            raise exceptions.CommandError(
                '--templates %s is not a directory.' % self.templates)
        found = {}
        for top, dirs, files in os.walk(self.templates):
            dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS
                             and not d.endswith(_SKIP_SUFFIXES))
            for name in files:
                if name.endswith(_SKIP_SUFFIXES):
                    continue
                local = os.path.join(top, name)
                if os.path.islink(local) and not os.path.exists(local):
                    continue
                # Every path is checked before any file is read.
                found[self.plan_path(local, '--templates %s holds %s' % (
                    self.templates, local))] = local
        for path, local in found.items():
            self.objects[path] = _read(local, 'Template')
        from tripleoplanclient.plan import templates
        self.release = templates.release(
            {p: self.objects[p] for p in found})

    def provides(self, plan_path):
        """True when the templates tree holds ``plan_path`` or its jinja
        sources render it."""
        return plan_path in self.objects or self._renders_to(
            os.path.join(self.templates or '', plan_path))

    # -- user files ----------------------------------------------------

    def add_environment(self, path):
        """Add one ``-e`` file to the environment list and the plan."""
        local = os.path.abspath(path)
        if local.endswith('.j2.yaml'):
            raise exceptions.CommandError(
                'Environment %s is a jinja2 source; pass the file it renders '
                'to instead: %s' % (path, path[:-len('.j2.yaml')] + '.yaml'))
        if not os.path.exists(local) and self._renders_to(local):
            # A THT environment rendered inside the plan (e.g.
            # environments/network-isolation.yaml): nothing to upload.
            plan_path = self.plan_path(local, 'Environment file %s' % path)
        else:
            plan_path = self._add_file(local, 'Environment file', 'env',
                                       path)
        if plan_path not in self.environments:
            self.environments.append(plan_path)
        return plan_path

    def add_environment_directory(self, directory):
        """Add the directory's environment files, sorted by name; returns
        their plan paths."""
        if not os.path.isdir(directory):
            raise exceptions.CommandError(
                '--environment-directory %s is not a directory.' % directory)
        return [self.add_environment(os.path.join(directory, name))
                for name in sorted(os.listdir(directory))
                if name.endswith(('.yaml', '.yml'))
                and not name.endswith('.j2.yaml')]

    def add_input(self, kind, path, option):
        """Add a rendering input (roles, networks or plan environment)."""
        plan_path = self._add_file(os.path.abspath(path), option, 'data',
                                   path)
        data = content.load_yaml(_read(path, option), path)
        want = dict if kind == 'plan_environment' else list
        if not isinstance(data, want):
            raise exceptions.CommandError(
                '%s %s must hold a YAML %s.' % (
                    option, path, 'mapping' if want is dict else 'list'))
        if kind == 'roles_data' and not all(
                isinstance(r, dict) and r.get('name') for r in data):
            raise exceptions.CommandError(
                '%s %s: every role needs a "name".' % (option, path))
        self.inputs[kind] = plan_path
        return plan_path

    def add_upload(self, spec):
        """``--upload-file LOCAL[=PLAN_PATH]``."""
        local, sep, target = spec.partition('=')
        what = '--upload-file %s' % spec
        # Whatever the plan path comes from, it is the user's: never the
        # record's, never plan-environment.yaml (the generated passwords).
        plan_path = layout.check_plan_path(
            target if sep else self.plan_path(local, what), what)
        return self.add_file_at(local, plan_path, bool(sep), local)

    def add_file_at(self, local, plan_path, named=True, typed=None):
        """Store the local file ``local`` as it is at ``plan_path`` (checked
        by the caller); ``named``: the user chose that path; ``typed``:
        ``local`` as the user gave it."""
        self.objects[plan_path] = _read(os.path.abspath(local),
                                        '--upload-file')
        if not self._in_templates(os.path.abspath(local)) or named:
            self._source(plan_path, os.path.abspath(local), typed)
        return plan_path

    def _source(self, plan_path, local, typed):
        self.sources[plan_path] = local
        name = given_name(typed) if typed else None
        if name and name != plan_path:
            self.names[plan_path] = name

    def _add_file(self, local, what, kind, typed):
        """Read a user-given file (and what it references) into the plan;
        ``typed``: its name as given (or reached from a given one).

        A file inside the templates tree is only checked: the tree itself
        is synced by add_templates, never piecemeal.
        """
        plan_path = self.plan_path(local, '%s %s' % (what, local))
        if plan_path in self._scanned:
            return plan_path
        self._scanned.add(plan_path)
        inside = self._in_templates(local)
        if inside and kind != 'env':
            _read(local, what)
            return plan_path
        data = _read(local, what)
        if kind in ('env', 'template'):
            parsed = content.load_yaml(data, local)
            if kind == 'env':
                self._check_environment(parsed, local)
            if not inside:
                data = self._follow(local, plan_path, data, parsed, kind,
                                    typed)
        if not inside:
            self._source(plan_path, local, typed)
            self.objects[plan_path] = data
        return plan_path

    @staticmethod
    def _check_environment(parsed, local):
        if parsed is None:
            return
        if not isinstance(parsed, dict):
            raise exceptions.CommandError(
                'Environment file %s must hold a YAML mapping (with '
                'resource_registry, parameter_defaults, ...).' % local)
        # Keys of any type (1:, null:) sort by their text.
        unknown = sorted(set(parsed) - heat_environment.SECTIONS, key=str)
        if unknown:
            raise exceptions.CommandError(
                'Environment file %s has unknown section(s) %s; Heat accepts '
                '%s.' % (local, ', '.join(map(str, unknown)),
                         ', '.join(sorted(heat_environment.SECTIONS))))

    def _follow(self, local, plan_path, data, parsed, kind, typed):
        """Add what a user file references (named from ``typed``, the
        file's own name); return its bytes for the plan."""
        if not isinstance(parsed, dict):
            return data
        base = os.path.dirname(local)
        plan_dir = posixpath.dirname(plan_path)
        rewrites = {}
        url = heat_environment.URL

        def visit(ref_kind, ref):
            if url.match(ref) and not ref.startswith('file://'):
                return None        # a remote URL: Heat's business
            target = os.path.normpath(os.path.join(
                base, parse.unquote(ref[len('file://'):])
                if ref.startswith('file://') else ref))
            if not os.path.exists(target) and not self._renders_to(target):
                raise exceptions.CommandError(
                    '%s references %s (%s), which does not exist. Create it '
                    'or fix the reference.' % (local, ref, target))
            if os.path.exists(target):
                relative = parse.unquote(ref[len('file://'):]) \
                    if ref.startswith('file://') else ref
                self._add_file(target, 'File referenced by %s' % local,
                               ref_kind if ref_kind == 'template' else 'file',
                               target if os.path.isabs(relative) else
                               os.path.join(os.path.dirname(typed), relative))
            target_path = self.plan_path(
                target, 'File %s referenced by %s' % (ref, local))
            if not url.match(ref) and not ref.startswith('/') and (
                    posixpath.normpath(posixpath.join(plan_dir, ref))
                    == target_path):
                return None        # already right inside the plan
            new = posixpath.relpath(target_path, plan_dir)
            rewrites[ref] = new
            return new

        expected = copy.deepcopy(parsed)
        if kind == 'env':
            _walk_registry(expected.get('resource_registry'), visit)
        else:
            _walk(expected, visit)
        if not rewrites:
            return data
        # Stored as UTF-8 whatever the file's encoding (UTF-16 too).
        text = content.text(data, local)
        return _rewrite_text(text, rewrites, expected).encode('utf-8')
