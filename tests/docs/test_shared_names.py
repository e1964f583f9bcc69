"""doc/source/guide/tripleoclient.rst's lists of the command names this
plugin shares with python-tripleoclient, held to setup.cfg: our command
group, the names osc/shared.py dispatches (``openstack.extension``), and
python-tripleoclient's names (below, from its releases' entry points)."""

import configparser
import os
import re

import testtools

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PAGE = os.path.join(ROOT, 'doc', 'source', 'guide', 'tripleoclient.rst')
# python-tripleoclient 20.0.0's openstack.tripleoclient.v2 entry points
# (its dist-info, the version tools/coexist-venv.sh installs)
TRIPLEOCLIENT_20 = frozenset('''
overcloud_admin_authorize overcloud_backup overcloud_backup_snapshot
overcloud_cell_export overcloud_ceph_deploy overcloud_ceph_spec
overcloud_ceph_user_disable overcloud_ceph_user_enable overcloud_credentials
overcloud_delete overcloud_deploy overcloud_export overcloud_export_ceph
overcloud_external-update_run overcloud_external-upgrade_run
overcloud_generate_fencing overcloud_image_build overcloud_image_upload
overcloud_netenv_validate overcloud_network_extract overcloud_network_provision
overcloud_network_unprovision overcloud_network_vip_extract
overcloud_network_vip_provision overcloud_node_bios_configure
overcloud_node_bios_reset overcloud_node_clean overcloud_node_configure
overcloud_node_delete overcloud_node_discover
overcloud_node_extract_provisioned overcloud_node_import
overcloud_node_introspect overcloud_node_provide overcloud_node_provision
overcloud_node_unprovision overcloud_profiles_list overcloud_profiles_match
overcloud_raid_create overcloud_restore overcloud_role_list overcloud_role_show
overcloud_roles_generate overcloud_status overcloud_support_report_collect
overcloud_update_prepare overcloud_update_run overcloud_upgrade_prepare
overcloud_upgrade_run tripleo_config_generate_ansible
tripleo_container_image_build tripleo_container_image_delete
tripleo_container_image_hotfix tripleo_container_image_list
tripleo_container_image_prepare tripleo_container_image_prepare_default
tripleo_container_image_push tripleo_container_image_show tripleo_deploy
tripleo_launch_heat tripleo_upgrade tripleo_validator_group_info
tripleo_validator_init tripleo_validator_list tripleo_validator_run
tripleo_validator_show tripleo_validator_show_history
tripleo_validator_show_parameter tripleo_validator_show_run undercloud_backup
undercloud_install undercloud_upgrade
'''.split())
# the overcloud commands of its older releases (Train, Ussuri) that 20.0.0
# no longer has
TRIPLEOCLIENT_OLDER = frozenset('''
overcloud_plan_create overcloud_plan_list overcloud_plan_delete
overcloud_plan_export overcloud_plan_deploy overcloud_update_converge
overcloud_upgrade_converge overcloud_ffwd-upgrade_prepare
overcloud_ffwd-upgrade_run overcloud_ffwd-upgrade_converge
overcloud_parameters_set overcloud_config_download overcloud_failures
'''.split())


def entry_points(group):
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(ROOT, 'setup.cfg'))
    return {line.split('=', 1)[0].strip()
            for line in cfg['entry_points'][group].strip().splitlines()}


def listed(text, heading):
    """The ``names`` of the bullet list after the line starting with
    ``heading``, as entry point names."""
    block = text.split('\n' + heading, 1)[1].split('\n\n', 2)[1]
    return {name.replace(' ', '_')
            for name in re.findall(r'^\* ``([a-z -]+)``$', block, re.M)}


class TestSharedNames(testtools.TestCase):

    def setUp(self):
        super().setUp()
        with open(PAGE) as f:
            self.text = f.read()
        self.ours = entry_points('openstack.tripleoplan.v1')

    def test_the_names_shared_with_20_0_0(self):
        self.assertEqual(sorted(TRIPLEOCLIENT_20 & self.ours), sorted(
            listed(self.text, 'Shared with release 20.0.0')))

    def test_the_names_shared_with_older_releases_only(self):
        self.assertEqual(
            sorted((TRIPLEOCLIENT_OLDER - TRIPLEOCLIENT_20) & self.ours),
            sorted(listed(self.text, 'Shared with older releases only')))

    def test_every_shared_name_is_dispatched(self):
        # osc/shared.py's classes, registered under the shared names
        self.assertEqual(
            sorted((TRIPLEOCLIENT_20 | TRIPLEOCLIENT_OLDER) & self.ours),
            sorted(entry_points('openstack.extension')))
