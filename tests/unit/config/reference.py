"""tripleo-common 18.0.0 and this package, each run on a fake Heat stack
(``fake_heat``): what each wrote and what each asked Heat.

tripleo-common is installed in the test venv without its dependencies
(test-requirements.txt, constraints.txt); its ``Config.download_config``
needs heatclient, Jinja2, PyYAML and GitPython, its inventory heatclient,
keystoneauth and openstacksdk (no Neutron asked: no cloud given).
"""

import contextlib
import logging
import os
import shutil
import tempfile
import warnings

import requests_mock
import yaml

from tests import config_trees
from tests.unit.config import fake_heat
from tests.unit import fakes
from tripleoplanclient.config import inventory
from tripleoplanclient.config import stack_data
from tripleoplanclient.config import tree


def _import_quietly():
    """tripleo-common's inventory calls logging.basicConfig() when
    imported: the root logger's handlers and level are put back."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    from tripleo_common import inventories  # noqa: F401
    from tripleo_common import inventory as tc_inventory  # noqa: F401
    from tripleo_common.utils import config as tc_config  # noqa: F401
    root.handlers[:] = handlers
    root.setLevel(level)
    # its warnings (an excluded server) not on the tests' stderr
    logging.getLogger('tripleo_common').addHandler(logging.NullHandler())


_import_quietly()


@contextlib.contextmanager
def heat_of(cloud):
    """(a heatclient, the FakeHeat answering it) for ``cloud``."""
    with requests_mock.Mocker() as mocker:
        yield fakes.heat_client(), fake_heat.FakeHeat(mocker, cloud)


def ours(cloud, config_type=None, stack=fake_heat.STACK):
    """(files, data, Heat requests by kind) of our read and tree."""
    with heat_of(cloud) as (heat, fake):
        data = stack_data.read(heat, stack)
        return tree.files(data, config_type), data, fake.kinds()


def tripleo_common(cloud, config_type=None, stack=fake_heat.STACK):
    """(files, Heat requests by kind) of tripleo-common's
    ``Config(heat).download_config`` (umask 022, as an undercloud)."""
    from tripleo_common.utils import config as tc_config
    top = tempfile.mkdtemp(prefix='tc-download-')
    try:
        with heat_of(cloud) as (heat, fake), config_trees.umask(0o022), \
                warnings.catch_warnings():
            warnings.simplefilter('ignore')
            tc_config.Config(heat).download_config(
                stack, os.path.join(top, 'config'), config_type)
            return config_trees.walk(os.path.join(top, 'config')), fake.kinds()
    finally:
        shutil.rmtree(top)


def tripleo_common_inventory(cloud, plan=fake_heat.STACK,
                             ssh_user='tripleo-admin'):
    """(the inventory's data, Heat requests by kind) as tripleo-common's
    static inventory wrote it for ``plan``."""
    from tripleo_common import inventories
    from tripleo_common import inventory as tc_inventory
    top = tempfile.mkdtemp(prefix='tc-inventory-')
    try:
        with heat_of(cloud) as (heat, fake):
            found = inventories.TripleoInventories({
                plan: tc_inventory.TripleoInventory(
                    hclient=heat, plan_name=plan, ansible_ssh_user=ssh_user,
                    host_network='ctlplane', work_dir=top)})
            path = os.path.join(top, 'tripleo-ansible-inventory.yaml')
            found.write_static_inventory(path)
            with open(path) as f:
                return yaml.safe_load(f), fake.kinds()
    finally:
        shutil.rmtree(top)


def our_inventory(cloud, plan=fake_heat.STACK, **kwargs):
    with heat_of(cloud) as (heat, fake):
        data = stack_data.read(heat, plan)
    return inventory.inventory(data, plan, **kwargs)
