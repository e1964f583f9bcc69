"""The login user of a plan's servers, as ``overcloud node provision``
put it in their config drive (``--overcloud-ssh-user``): recorded in the
plan as ``PATH`` with the provision step that deployed them, and read by
config-download and the validations (their inventory's
``ansible_ssh_user``) in place of Mistral's ``[tripleoplan]
validation_ssh_user`` when the plan has one.

A plan file (kept, restored and exported with the plan), not a Heat
environment: no template takes the login user.
"""

import yaml

from tripleoplanclient.common import content
from tripleoplanclient.nodes import config_drive
from tripleoplanclient.plan import layout
from tripleoplanclient import protocol

PATH = protocol.PROVISION_LOGIN
MAX_BYTES = 4096
HEADER = (b'# Written by "openstack overcloud node provision" '
          b'(tripleoplanclient):\n# the login user of plan %s\'s servers '
          b'(config-download and the validations log in as it).\n')


def dump(plan, user):
    return (HEADER % plan.encode('utf-8')) + yaml.safe_dump(
        {'ssh_user': user}, default_flow_style=False).encode('utf-8')


def read(store, plan):
    """The plan's recorded login user, or None when none is recorded;
    CommandError when ``PATH`` holds no login user."""
    data = store.container.get(layout.check_name(plan), PATH)
    if data is None:
        return None
    found = content.load_yaml(data, '%s of plan %s' % (PATH, plan),
                              loader=content.PlainLoader,
                              max_bytes=MAX_BYTES)
    user = found.get('ssh_user') if isinstance(found, dict) else None
    return config_drive.check_user(
        user, '%s of plan %s' % (PATH, plan), 'Provision the plan\'s nodes '
        'again to write it, or delete it to log in as Mistral\'s '
        '[tripleoplan] validation_ssh_user.')
