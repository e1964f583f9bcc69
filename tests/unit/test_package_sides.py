"""Which side each module runs on, read from the source (static: every
import, at module level or inside a function, counts).

Each package's docstring opens with its side: ``CLI:``, ``Mistral:`` or
``Both:``. The CLI (everything ``osc/`` reaches) never reaches a module
of a Mistral-only package, and Mistral's actions (everything ``mistral/``
reaches) never reach a module of a CLI-only package. And no module
imports or uses another module's ``_private`` name: what modules share is
public in the module that owns it.
"""

import ast
import os
import unittest

import tripleoplanclient

ROOT = os.path.dirname(os.path.abspath(tripleoplanclient.__file__))
TOP = 'tripleoplanclient'
SIDES = {'cli': 'CLI', 'mistral': 'Mistral', 'both': 'Both'}


def _modules():
    """{module name: (path, its package)}, the package being the nearest
    folder with an ``__init__.py`` (callback_plugins/ is none)."""
    found = {}
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d != '__pycache__']
        package = folder
        while not os.path.exists(os.path.join(package, '__init__.py')):
            package = os.path.dirname(package)
        package = os.path.relpath(package, os.path.dirname(ROOT)).replace(
            os.sep, '.')
        for name in files:
            if not name.endswith('.py'):
                continue
            path = os.path.join(folder, name)
            module = os.path.relpath(path[:-3], os.path.dirname(ROOT))
            module = module.replace(os.sep, '.')
            if module.endswith('.__init__'):
                module = module[:-len('.__init__')]
            found[module] = (path, package)
    return found


MODULES = _modules()
TREES = {m: ast.parse(open(p).read(), p) for m, (p, _) in MODULES.items()}


def _package_of(module):
    return MODULES[module][1]


def _absolute(module, node):
    """The module an ``ImportFrom`` names, relative ones resolved."""
    if not node.level or module not in MODULES:
        return node.module
    base = module.split('.')
    if not MODULES[module][0].endswith('__init__.py'):
        base = base[:-1]
    base = base[:len(base) - node.level + 1]
    return '.'.join(base + ([node.module] if node.module else []))


def _imports(module, tree=None):
    """The project modules ``module`` imports anywhere in it, and the
    names it binds to them: {local name: module}."""
    imported, bound = set(), {}
    for node in ast.walk(tree or TREES[module]):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    imported.add(alias.name)
                    if alias.asname:
                        bound[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node)
            if source not in MODULES:
                continue
            for alias in node.names:
                full = '%s.%s' % (source, alias.name)
                if full in MODULES:
                    imported.add(full)
                    bound[alias.asname or alias.name] = full
                else:
                    imported.add(source)
    return imported, bound


GRAPH = {m: _imports(m)[0] for m in MODULES}


def side(package):
    """A package's side, from the first line of its docstring."""
    doc = ast.get_docstring(TREES[package]) or ''
    said = doc.split(':', 1)[0].strip().lower() if ':' in doc.split(
        '\n', 1)[0] else ''
    return said


def _paths_from(starts):
    """{module reached: the import path that reaches it first}."""
    paths = {m: [m] for m in starts}
    todo = list(starts)
    while todo:
        module = todo.pop(0)
        for target in sorted(GRAPH[module]):
            if target not in paths:
                paths[target] = paths[module] + [target]
                todo.append(target)
    return paths


def _of(package):
    return [m for m in MODULES if _package_of(m) == package]


class SidesTest(unittest.TestCase):

    def test_every_package_says_its_side(self):
        packages = {p for _, p in MODULES.values()} - {TOP}
        unsaid = sorted(p for p in packages if side(p) not in SIDES)
        self.assertEqual([], unsaid, 'Open the package docstring with '
                         '"CLI:", "Mistral:" or "Both:"')
        self.assertEqual('cli', side(TOP + '.osc'))
        self.assertEqual('mistral', side(TOP + '.mistral'))
        # config-download's tree and runs: the CLI gets the archive only
        self.assertEqual('mistral', side(TOP + '.config'))

    def _crossings(self, start_package, forbidden_side):
        reached = _paths_from(_of(start_package))
        return sorted(' -> '.join(path) for m, path in reached.items()
                      if side(_package_of(m)) == forbidden_side)

    def test_cli_reaches_no_mistral_only_module(self):
        self.assertEqual([], self._crossings(TOP + '.osc', 'mistral'))

    def test_mistral_reaches_no_cli_only_module(self):
        self.assertEqual([], self._crossings(TOP + '.mistral', 'cli'))

    def test_the_cli_reaches_no_config_module(self):
        reached = _paths_from(_of(TOP + '.osc'))
        self.assertEqual([], sorted(' -> '.join(p) for m, p in reached.items()
                                    if _package_of(m) == TOP + '.config'))
        # ... which the walk would see: Mistral's actions do reach it
        self.assertIn(TOP + '.config.ansible_run',
                      _paths_from([TOP + '.mistral.config_actions']))

    def test_the_walk_sees_a_crossing(self):
        # The walk's own check: an import inside a function is seen.
        reached = _paths_from([TOP + '.osc.node_provision'])
        self.assertIn(TOP + '.nodes.baremetal_file', reached)


def private_uses(module, tree=None):
    """``module``'s uses of another project module's ``_private`` name:
    ``from x import _name`` and ``x._name`` (x a project module);
    ``tree``: a script's, outside the package."""
    found = []
    tree = tree or TREES[module]
    _, bound = _imports(module, tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _absolute(module, node)
            if source in MODULES:
                found += ['%s:%d from %s import %s' % (
                    module, node.lineno, source, a.name)
                    for a in node.names if _private(a.name)]
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            owner = _dotted(node.value)
            owner = bound.get(owner, owner)
            if owner in MODULES and owner != module:
                found.append('%s:%d %s.%s' % (
                    module, node.lineno, owner, node.attr))
    return found


def _private(name):
    return name.startswith('_') and not name.startswith('__')


def _dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return base and '%s.%s' % (base, node.attr)
    return None


class PrivateNamesTest(unittest.TestCase):

    def test_no_module_uses_another_modules_private_name(self):
        found = [u for m in sorted(MODULES) for u in private_uses(m)]
        self.assertEqual([], found, 'Make what modules share public in '
                         'the module that owns it')

    def test_no_tool_uses_a_private_name_of_the_package(self):
        tools = os.path.join(os.path.dirname(ROOT), 'tools')
        found = []
        for folder, _, files in os.walk(tools):
            for name in sorted(files):
                if name.endswith('.py'):
                    path = os.path.join(folder, name)
                    found += private_uses(os.path.relpath(path, tools),
                                          ast.parse(open(path).read(), path))
        self.assertEqual([], found)

    def test_the_check_sees_both_forms(self):
        tree = ast.parse('from tripleoplanclient.osc import base\n'
                         'from tripleoplanclient.osc.base import _x\n'
                         'base._y\n')
        TREES['tripleoplanclient.osc.plugin'], saved = tree, TREES[
            'tripleoplanclient.osc.plugin']
        try:
            found = private_uses('tripleoplanclient.osc.plugin')
        finally:
            TREES['tripleoplanclient.osc.plugin'] = saved
        self.assertEqual(
            ['tripleoplanclient.osc.plugin:2 from '
             'tripleoplanclient.osc.base import _x',
             'tripleoplanclient.osc.plugin:3 tripleoplanclient.osc.base._y'],
            found)


class EntryPointsTest(unittest.TestCase):

    def test_each_mistral_action_names_a_class_of_its_module(self):
        # mistral_lib is not installed here: read the classes statically.
        import configparser

        cfg = configparser.ConfigParser()
        cfg.read(os.path.join(os.path.dirname(ROOT), 'setup.cfg'))
        missing = []
        for line in cfg['entry_points']['mistral.actions'].split('\n'):
            if not line.strip():
                continue
            module, cls = line.split('=', 1)[1].strip().split(':')
            body = TREES[module].body if module in TREES else []
            classes = {n.name for n in body if isinstance(n, ast.ClassDef)}
            if cls not in classes:
                missing.append(line.strip())
        self.assertEqual([], missing)
