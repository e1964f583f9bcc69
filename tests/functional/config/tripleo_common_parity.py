"""Our ``overcloud config download`` next to tripleo-common 18.0.0's
``Config(heat).download_config`` on the same real stack (the THT story's):
the same paths, each file equal as data (YAML loaded, the rest as bytes),
the same modes.

tripleo-common is in the test venv without its dependencies
(test-requirements.txt, constraints.txt); it reads Heat with a heatclient
on the test's own session (the admin's token, or noauth).
"""

import logging
import os
import tempfile
import warnings

from tests import config_trees

# ours only: the inventory, which tripleo-common writes apart
OURS_ONLY = ('tripleo-ansible-inventory.yaml',)


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
    with config_trees.umask(0o022), warnings.catch_warnings():
        warnings.simplefilter('ignore')
        tc_config.Config(heat).download_config(stack, target)
    return config_trees.walk(target)


def compare(test, stack):
    """``(files compared, differences)`` of our download (the CLI) and
    tripleo-common's of ``stack``; each difference a line naming it."""
    top = tempfile.mkdtemp(prefix='parity-', dir=test.tmp)
    ours_dir = os.path.join(top, 'ours')
    test.openstack_json('overcloud', 'config', 'download', '--name', stack,
                        '--config-dir', ours_dir, timeout=600)
    ours = {p: v for p, v in config_trees.walk(ours_dir).items()
            if p not in OURS_ONLY}
    theirs = tripleo_common_tree(
        heat_client(test.env['LOOPBACK_HEAT_URL'], test.session), stack,
        os.path.join(top, 'theirs'))
    return len(set(ours) & set(theirs)), config_trees.differences(
        ours, theirs)
