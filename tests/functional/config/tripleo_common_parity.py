"""Our ``overcloud config download`` next to tripleo-common 18.0.0's
``Config(heat).download_config`` on the same real stack (the THT story's):
the same paths, each file equal as data (YAML loaded, the rest as bytes),
the same modes.

tripleo-common is in the test venv without its dependencies
(test-requirements.txt, constraints.txt); it reads Heat with a heatclient
on the test's own session (the admin's token, or noauth).
"""

import contextlib
import logging
import os
import stat
import tempfile
import warnings

import yaml

# ours only: the inventory, which tripleo-common writes apart
OURS_ONLY = ('tripleo-ansible-inventory.yaml',)


def _walk(top):
    found = {}
    for folder, dirs, names in os.walk(top):
        dirs[:] = [d for d in dirs if d != '.git']
        for name in names:
            path = os.path.join(folder, name)
            with open(path, 'rb') as f:
                found[os.path.relpath(path, top)] = (
                    f.read(), stat.S_IMODE(os.stat(path).st_mode))
    return found


def _as_data(path, body):
    if path.endswith(('.yaml', '.yml')) or '.' not in os.path.basename(
            path):
        try:
            return yaml.safe_load(body)
        except yaml.YAMLError:
            pass
    return body


@contextlib.contextmanager
def _umask(mask):
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def heat_client(heat_url, session):
    from heatclient import client
    from keystoneauth1 import noauth
    from keystoneauth1 import session as ksa_session
    return client.Client('1', session=session or ksa_session.Session(
        auth=noauth.NoAuth()), endpoint_override=heat_url)


def tripleo_common_tree(heat, stack, top):
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    from tripleo_common.utils import config as tc_config
    root.handlers[:] = handlers
    root.setLevel(level)
    target = os.path.join(top, 'config')
    with _umask(0o022), warnings.catch_warnings():
        warnings.simplefilter('ignore')
        tc_config.Config(heat).download_config(stack, target)
    return _walk(target)


def compare(test, stack):
    """``(files compared, differences)`` of our download (the CLI) and
    tripleo-common's of ``stack``; each difference a line naming it."""
    top = tempfile.mkdtemp(prefix='parity-', dir=test.tmp)
    ours_dir = os.path.join(top, 'ours')
    test.openstack_json('overcloud', 'config', 'download', '--name', stack,
                        '--config-dir', ours_dir, timeout=600)
    ours = {p: v for p, v in _walk(ours_dir).items() if p not in OURS_ONLY}
    theirs = tripleo_common_tree(
        heat_client(test.env['LOOPBACK_HEAT_URL'], test.session), stack,
        os.path.join(top, 'theirs'))
    differences = ['only ours: %s' % p for p in sorted(set(ours) - set(
        theirs))] + ['only tripleo-common\'s: %s' % p for p in sorted(
            set(theirs) - set(ours))]
    for path in sorted(set(ours) & set(theirs)):
        (body, mode), (their_body, their_mode) = ours[path], theirs[path]
        if _as_data(path, body) != _as_data(path, their_body):
            differences.append('content: %s' % path)
        if mode != their_mode:
            differences.append('mode: %s %o, not %o' % (
                path, mode, their_mode))
    return len(set(ours) & set(theirs)), differences
