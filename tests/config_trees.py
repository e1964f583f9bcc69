"""config-download trees side by side (unit and functional tests): the
files under a directory, and what differs between two trees by the one
rule the comparison with tripleo-common keeps: the same paths and modes,
each YAML file equal as data, every other file byte for byte."""

import contextlib
import os
import stat

import yaml

# Files that are not YAML: compared byte for byte only.
TEXT = ('.pp', '.json', '.j2', '.gitignore')


@contextlib.contextmanager
def umask(mask):
    """The process's umask ``mask`` within (tripleo-common's download
    runs as on an undercloud: 022)."""
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def walk(top):
    """``{relative path: (bytes, mode)}`` of the files under ``top`` but
    ``.git/``."""
    found = {}
    for folder, dirs, names in os.walk(top):
        dirs[:] = [d for d in dirs if d != '.git']
        for name in names:
            path = os.path.join(folder, name)
            with open(path, 'rb') as f:
                found[os.path.relpath(path, top)] = (
                    f.read(), stat.S_IMODE(os.stat(path).st_mode))
    return found


def differences(ours, theirs):
    """One line for each difference of tree ``ours`` from ``theirs``
    (``walk``'s mappings); none when they are the same."""
    found = ['only ours: %s' % p for p in sorted(set(ours) - set(theirs))]
    found += ['only theirs: %s' % p for p in sorted(set(theirs) - set(ours))]
    for path in sorted(set(ours) & set(theirs)):
        (mine, my_mode), (body, mode) = ours[path], theirs[path]
        if my_mode != mode:
            found.append('mode: %s %o, not %o' % (path, my_mode, mode))
        if mine == body:
            continue
        if path.endswith(TEXT):
            found.append('bytes: %s' % path)
            continue
        try:
            same = yaml.safe_load(mine) == yaml.safe_load(body)
        except yaml.YAMLError:
            same = False
        if not same:
            found.append('content: %s' % path)
    return found
