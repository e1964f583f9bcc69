"""Download a stack's config the way tripleo-common 18.0.0 does.

Run with the Python of a venv that holds tripleo-common==18.0.0 (installed
--no-deps), GitPython, python-heatclient and openstacksdk:
tools/tht-config-run.sh makes one.  Reads the cloud of OS_CLOUD from
OS_CLIENT_CONFIG_FILE (the loopback's clouds.yaml).

    python download.py STACK CONFIG_DIR [SSH_USER]

writes CONFIG_DIR/<files of Config.download_config> and
CONFIG_DIR/tripleo-ansible-inventory.yaml, and prints the config
directory tripleo-common made.
"""

import os
import sys

from heatclient import client as heat_client
import openstack
from tripleo_common import inventory
from tripleo_common.utils import config


def main():
    stack, config_dir = sys.argv[1], sys.argv[2]
    ssh_user = sys.argv[3] if len(sys.argv) > 3 else 'tripleo-admin'
    session = openstack.connect(cloud=os.environ['OS_CLOUD']).session
    heat = heat_client.Client('1', session=session)
    # download_config: preserve_config_dir=True keeps earlier runs' files
    made = config.Config(heat).download_config(stack, config_dir)
    # No neutron connection: the inventory from Heat's outputs alone
    # (deployed servers).
    found = inventory.TripleoInventory(
        hclient=heat, plan_name=stack, ansible_ssh_user=ssh_user,
        work_dir=config_dir)
    found.write_static_inventory(
        os.path.join(config_dir, 'tripleo-ansible-inventory.yaml'))
    print(made)


if __name__ == '__main__':
    main()
