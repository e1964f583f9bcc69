"""What ``overcloud validation install`` puts into the validations
container, read on the client: the playbooks this package ships, and
trees in tripleo-validations' layout (``catalog.LAYOUT``) from a
directory (``--from DIR``: a checkout, ``<venv>/share/ansible``) or an
installed distribution's data files under ``share/ansible``
(``--from-package NAME``).

Each source is ``{name: bytes}`` in the container's layout; a later
source overrides an earlier one object by object, and the groups.yaml
files are merged (every group of each; a later description wins). Only
groups.yaml and the layout's trees are taken (a checkout's other files
are not validations); hidden files, Python's caches and roles'
``molecule/`` test scaffolding are left out. A source is bounded like
any upload (``MAX_FILES``, ``MAX_FILE_BYTES``, ``MAX_TOTAL_BYTES``),
and no file may lie outside its directory (a symlink out of it, a ``..`` in a
package's record): refused whole, naming the file, before anything is
sent.
"""

import os

from tripleoplanclient.common import exceptions
from tripleoplanclient.validations import catalog
from tripleoplanclient.validations import shipped

# tripleo-validations 16.0.0 and validations-common 1.9.0 together:
# ~400 files, 2.3 MB
MAX_FILES = 5000
MAX_FILE_BYTES = 1024 * 1024
MAX_TOTAL_BYTES = 32 * 1024 * 1024
# in a layout's trees, never run: byte code, roles' own tests
SKIPPED = ('__pycache__', 'molecule')
SHARE = ('share', 'ansible')


def ours():
    """The shipped playbooks and groups.yaml in the container's layout."""
    return {name if name == catalog.GROUPS else catalog.PLAYBOOKS + name:
            data for name, data in shipped.files().items()}


def taken(name):
    """True when ``name`` (relative, ``/``-separated) is one the
    container's layout holds and a run may use."""
    parts = name.split('/')
    if name == catalog.GROUPS:
        return True
    if len(parts) < 2 or parts[0] + '/' not in catalog.LAYOUT:
        return False
    return not any(p in SKIPPED or p.startswith('.') for p in parts) \
        and not name.endswith('.pyc')


def directory(path):
    """``{name: bytes}`` of the layout's files under directory ``path``;
    CommandError naming the file and the limit it passes."""
    root = os.path.realpath(path)
    if not os.path.isdir(root):
        raise exceptions.CommandError(
            '--from %s: no such directory (give a directory in '
            'tripleo-validations\' layout, e.g. <venv>/share/ansible).'
            % path)
    found = dict(_walk(root, path))
    if not found:
        raise exceptions.CommandError(
            '--from %s: no groups.yaml nor %s in it: not a directory in '
            'tripleo-validations\' layout.' % (path, catalog.PLAYBOOKS))
    return _read(found, '--from %s' % path)


def _walk(root, given):
    """``(name, real path)`` of the layout's files under ``root``; a
    symlink out of it is refused; each directory is seen once."""
    seen, todo, count = {root}, [('', root)], 0
    while todo:
        prefix, here = todo.pop()
        for entry in sorted(os.scandir(here), key=lambda e: e.name):
            name = prefix + entry.name
            real = os.path.realpath(entry.path)
            is_dir = os.path.isdir(real)
            # at the top, only groups.yaml and the layout's trees
            if entry.name in SKIPPED or not (
                    prefix or name + ('/' if is_dir else '') in
                    catalog.LAYOUT + (catalog.GROUPS,)) or not (
                    is_dir or taken(name)):
                continue
            if real != root and not real.startswith(root + os.sep):
                raise exceptions.CommandError(
                    '--from %s: %s is a link out of the directory; nothing '
                    'was installed.' % (given, name))
            if is_dir:
                if real not in seen:
                    seen.add(real)
                    todo.append((name + '/', real))
            elif os.path.isfile(real):
                count += 1
                if count > MAX_FILES:
                    raise exceptions.CommandError(
                        '--from %s: more than %d files; nothing was '
                        'installed.' % (given, MAX_FILES))
                yield name, real


def package(name):
    """``{name: bytes}`` of installed distribution ``name``'s data files
    under ``share/ansible`` (as its record lists them)."""
    from importlib import metadata as importlib_metadata
    given = '--from-package %s' % name
    try:
        dist = importlib_metadata.distribution(name)
    except importlib_metadata.PackageNotFoundError:
        raise exceptions.CommandError(
            '%s: no such distribution is installed beside this client (pip '
            'install %s in its Python environment).' % (given, name))
    found = {}
    for entry in dist.files or ():
        parts = entry.parts
        at = [i for i in range(len(parts) - 1)
              if tuple(parts[i:i + 2]) == SHARE]
        if not at:
            continue
        relative = '/'.join(parts[at[0] + 2:])
        if '..' in parts[at[0] + 2:] or not taken(relative):
            continue
        base = os.path.realpath(str(dist.locate_file(
            os.path.join(*parts[:at[0] + 2]))))
        real = os.path.realpath(str(dist.locate_file(entry)))
        if not real.startswith(base + os.sep):
            raise exceptions.CommandError(
                '%s: %s lies outside its share/ansible; nothing was '
                'installed.' % (given, relative))
        if os.path.isfile(real):
            found[relative] = real
    if len(found) > MAX_FILES:
        raise exceptions.CommandError('%s: more than %d files; nothing was '
                                      'installed.' % (given, MAX_FILES))
    if not found:
        raise exceptions.CommandError(
            '%s: it installs no groups.yaml nor %s under share/ansible: '
            'not a validations package.' % (given, catalog.PLAYBOOKS))
    return _read(found, given)


def _read(paths, given):
    out, total = {}, 0
    for name, path in sorted(paths.items()):
        size = os.path.getsize(path)
        if size > MAX_FILE_BYTES:
            raise exceptions.CommandError(
                '%s: %s is %d bytes, more than %d; nothing was installed.'
                % (given, name, size, MAX_FILE_BYTES))
        total += size
        if total > MAX_TOTAL_BYTES:
            raise exceptions.CommandError(
                '%s: more than %d bytes in all (at %s); nothing was '
                'installed.' % (given, MAX_TOTAL_BYTES, name))
        with open(path, 'rb') as f:
            out[name] = f.read(MAX_FILE_BYTES + 1)
    return out


def merge(trees):
    """``trees`` (``[(what, {name: bytes})]``, in order) as one tree: a
    later object wins, groups.yaml files merged; CommandError naming a
    source whose groups.yaml is wrong or the merged tree's size."""
    out, groups = {}, []
    for what, tree in trees:
        tree = dict(tree)
        text = tree.pop(catalog.GROUPS, None)
        try:
            groups.append(catalog.merged_groups([text]))
        except ValueError as exc:
            raise exceptions.CommandError(
                '%s: %s; nothing was installed.' % (what, exc))
        out.update(tree)
    out[catalog.GROUPS] = catalog.merged_groups(groups)
    if len(out) > MAX_FILES or sum(len(d) for d in out.values()) > \
            MAX_TOTAL_BYTES:
        raise exceptions.CommandError(
            'The sources together hold more than %d files or %d bytes; '
            'nothing was installed.' % (MAX_FILES, MAX_TOTAL_BYTES))
    return out
