#!/usr/bin/env python3
"""Check the test tree's two layout rules (issue 38), from the
repository's root::

    python3 tools/check_tests.py

- No test module imports another test module: a class holding ``test_*``
  methods, imported or subclassed elsewhere, runs its tests there too.
  What tests share lives in fixture modules (names without ``test_``).
- ``tests/unit`` mirrors the package: ``tests/unit/<package>/test_<name>.py``
  (or ``test_<name>_<aspect>.py``) tests
  ``tripleoplanclient/<package>/<name>.py``.

Prints each breach and exits 1 when there is one.
"""

import ast
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = 'tripleoplanclient'


def modules(top):
    """(dotted name, path) of every module under ``top``."""
    for root, dirs, files in os.walk(os.path.join(REPO, top)):
        dirs[:] = sorted(d for d in dirs if d != '__pycache__')
        for name in sorted(files):
            if name.endswith('.py'):
                path = os.path.join(root, name)
                rel = os.path.relpath(path, REPO)[:-len('.py')]
                yield rel.replace(os.sep, '.'), path


def imported(path):
    """The dotted names a module imports (``from a import b``: a.b too)."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
            for alias in node.names:
                yield node.module + '.' + alias.name


def is_test(dotted):
    return dotted.rsplit('.', 1)[-1].startswith('test_')


def test_imports():
    tests = dict(modules('tests'))
    for name, path in tests.items():
        if not is_test(name):
            continue
        for other in sorted(set(imported(path))):
            if other != name and other in tests and is_test(other):
                yield '%s imports test module %s' % (
                    os.path.relpath(path, REPO), other)


def tested_module(parts, package):
    """The module of ``package`` (dotted names) a unit test module tests,
    from its path under tests/unit (``parts``), or None. ``test_<name>``
    tests ``<name>``, and ``test_<name>_<aspect>`` one aspect of it;
    ``test_<package>`` a package's ``__init__``; at the top,
    ``test_package_<aspect>`` tests the package as a whole."""
    folders, name = parts[:-1], parts[-1][len('test_'):]
    if not folders and name.startswith('package_'):
        return PACKAGE
    prefix = '.'.join([PACKAGE] + folders)
    if folders and name == folders[-1] and prefix + '.__init__' in package:
        return prefix
    for candidate in sorted(package, key=len, reverse=True):
        head, _, leaf = candidate.rpartition('.')
        if head == prefix and leaf != '__init__' and (
                name == leaf or name.startswith(leaf + '_')):
            return candidate
    return None


def unmirrored():
    package = {name for name, _ in modules(PACKAGE)}
    for name, path in modules(os.path.join('tests', 'unit')):
        if is_test(name) and not tested_module(name.split('.')[2:],
                                               package):
            yield '%s tests no module of %s (tests/unit/<package>/' \
                'test_<module>[_<aspect>].py)' % (
                    os.path.relpath(path, REPO), PACKAGE)


def main():
    breaches = list(test_imports()) + list(unmirrored())
    for line in breaches:
        print(line)
    return 1 if breaches else 0


if __name__ == '__main__':
    sys.exit(main())
