"""The validations container's support trees (roles, modules, module
utilities, lookup and filter plugins) as a run's ``ansible-playbook``
reads them: a directory on the executor, mounted read-only in the
sandbox, that ``ENVIRONMENT`` points Ansible at.

No byte travels twice: the objects are kept in a cache per project
(``<cache>/<project>/objects/<md5>``, the listing's hashes, each
checked against the bytes fetched), and each set of them as a tree of
hard links named by the listing (``trees/<digest>``): a run of a
container that did not change fetches nothing and builds nothing. A
project's cache holds only what its own container gave (another
project's objects are never its).

The container is anyone's in the project to write: its names and sizes
are bounded (``MAX_FILES``, ``MAX_FILE_BYTES``, ``MAX_TOTAL_BYTES``,
plain names: ``NAME`` for each part; hidden files are left out), and
a tree that passes one bound is refused whole. The container's
``callback_plugins/`` are not used: a callback runs in the controller
of every task, and ours (``tripleoplan_json``) alone writes the run's
result.
"""

import hashlib
import json
import os
import re
import shutil
import tempfile
import time

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.validations import catalog

# tripleo-validations 16.0.0 and validations-common 1.9.0: ~300 files
MAX_FILES = 5000
MAX_FILE_BYTES = 1024 * 1024
MAX_TOTAL_BYTES = 64 * 1024 * 1024
NAME = re.compile(r'[A-Za-z0-9_][A-Za-z0-9_.+=-]{0,99}\Z')
# the trees a run uses, by the variable that points Ansible at each
ENVIRONMENT = {'roles': 'ANSIBLE_ROLES_PATH', 'library': 'ANSIBLE_LIBRARY',
               'module_utils': 'ANSIBLE_MODULE_UTILS',
               'lookup_plugins': 'ANSIBLE_LOOKUP_PLUGINS',
               'filter_plugins': 'ANSIBLE_FILTER_PLUGINS'}
# trees and objects unused this long are removed
KEEP_SECONDS = 7 * 24 * 3600
_PROJECT = re.compile(r'[A-Za-z0-9_-]{1,64}\Z')
_MD5 = re.compile(r'[0-9a-f]{32}\Z')


def default_cache():
    """Where the executor keeps the support trees: its own cache."""
    return os.path.join(os.path.expanduser('~'), '.cache', 'tripleoplan',
                        'validation-support')


def wanted(listing):
    """``{name: (md5, bytes)}`` of the support objects of ``listing``
    (the container's); CommandError naming a name or bound it passes."""
    found, total = {}, 0
    for name, entry in sorted(listing.items()):
        parts = name.split('/')
        # hidden files (a role's .gitkeep...) are no Ansible's
        if parts[0] not in ENVIRONMENT or len(parts) < 2 or any(
                p.startswith('.') for p in parts):
            continue
        if not all(NAME.match(p) for p in parts):
            raise exceptions.CommandError(
                '%s/%s: not a plain name (each part letters, digits and '
                '"_.+=-")' % (catalog.CONTAINER, name))
        md5, size = entry.get('hash'), entry.get('bytes')
        if not isinstance(md5, str) or not _MD5.match(md5) or \
                not isinstance(size, int):
            raise exceptions.CommandError(
                '%s/%s: Swift\'s listing gives no MD5 and size of it'
                % (catalog.CONTAINER, name))
        total += size
        if size > MAX_FILE_BYTES or total > MAX_TOTAL_BYTES or \
                len(found) >= MAX_FILES:
            raise exceptions.CommandError(
                '%s/%s: the support trees pass a bound (%d files, %d bytes '
                'each, %d bytes in all)' % (
                    catalog.CONTAINER, name, MAX_FILES, MAX_FILE_BYTES,
                    MAX_TOTAL_BYTES))
        found[name] = (md5, size)
    return found


def prepare(store, project, cache, clock=time.time):
    """The directory of the container's support trees for a run of
    ``project``'s (``cache``: the executor's, ``default_cache``); the
    objects not in its cache are fetched. None when the container holds
    none (nothing is written then). CommandError naming what is
    refused."""
    _, listing = store.container.listing(catalog.CONTAINER)
    found = wanted(listing or {})
    if not found:
        return None
    home = _private(os.path.join(cache, project if project and _PROJECT.match(
        project) else hashlib.sha256(str(project).encode()).hexdigest()))
    objects, trees = (_private(os.path.join(home, d))
                      for d in ('objects', 'trees'))
    digest = hashlib.sha256(json.dumps(sorted(
        (n, h) for n, (h, _) in found.items())).encode()).hexdigest()
    tree = os.path.join(trees, digest)
    if not os.path.isdir(tree):
        _fetch(store, objects, found)
        _build(tree, objects, found)
    os.utime(tree)
    _forget(tree, objects, found, clock() - KEEP_SECONDS)
    return tree


def _private(path):
    """``path``, a directory of the executor's own (0700); CommandError
    when it is something else (a link, another owner's)."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    info = os.lstat(path)
    if not os.path.isdir(path) or os.path.islink(path) or \
            info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise exceptions.CommandError(
            'the validations\' support cache %s is not a directory private '
            'to Mistral\'s executor (mode 0700, its owner)' % path)
    return path


def _fetch(store, objects, found):
    missing = {}
    for name, (md5, size) in found.items():
        if not os.path.isfile(os.path.join(objects, md5)):
            missing.setdefault(md5, name)
    fetched = store.container.get_many(catalog.CONTAINER,
                                       list(missing.values()))
    for md5, name in missing.items():
        data = fetched[name]
        if len(data) > MAX_FILE_BYTES or content.md5(data) != md5:
            raise exceptions.CommandError(
                '%s/%s changed while it was read; run again'
                % (catalog.CONTAINER, name))
        with tempfile.NamedTemporaryFile(dir=objects, delete=False) as f:
            f.write(data)
        os.chmod(f.name, 0o400)
        os.replace(f.name, os.path.join(objects, md5))


def _build(tree, objects, found):
    """The tree of hard links, built aside then renamed into place (a
    run beside this one sees a whole tree or none)."""
    aside = tempfile.mkdtemp(dir=os.path.dirname(tree), prefix='.new-')
    try:
        for name, (md5, _) in found.items():
            path = os.path.join(aside, *name.split('/'))
            os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
            try:
                os.link(os.path.join(objects, md5), path)
            except OSError:
                shutil.copyfile(os.path.join(objects, md5), path)
        for top in ENVIRONMENT:
            os.makedirs(os.path.join(aside, top), mode=0o700, exist_ok=True)
        os.rename(aside, tree)
    except OSError:
        shutil.rmtree(aside, ignore_errors=True)
        if not os.path.isdir(tree):
            raise


def _forget(tree, objects, found, before):
    """Remove the trees and objects unused since ``before`` (``tree``
    and the current listing's objects stay)."""
    used = {h for h, _ in found.values()}
    trees = os.path.dirname(tree)
    for name in os.listdir(trees):
        path = os.path.join(trees, name)
        if path != tree and os.lstat(path).st_mtime < before:
            shutil.rmtree(path, ignore_errors=True)
    for name in os.listdir(objects):
        path = os.path.join(objects, name)
        if name not in used and os.lstat(path).st_mtime < before:
            os.remove(path)


def environment(tree):
    """The variables that point Ansible at ``tree``'s trees."""
    return {variable: os.path.join(tree, top)
            for top, variable in ENVIRONMENT.items()}
