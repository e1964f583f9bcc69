"""nodes/nodes_json.py with each driver of nodes/drivers.py: the Ironic
body built from a node file's pm_ fields, the password kept apart, the
fields a driver needs or refuses named, the BMC told apart."""

import json
import unittest

from tripleoplanclient.nodes import drivers
from tripleoplanclient.nodes import nodes_json

PW = 'bmc-pw-9'
LOGIN = {'pm_addr': '127.0.6.20', 'pm_user': 'root', 'pm_password': PW}


def entry(**fields):
    found, = nodes_json.read([dict({'name': 'n'}, **fields)], 'nodes.json')
    # the password never in the body nor in the entry's repr
    assert PW not in json.dumps(found.body) + repr(found)
    return found


def problems(**fields):
    with unittest.TestCase().assertRaises(
            nodes_json.NodesFileError) as caught:
        nodes_json.read([dict({'name': 'n'}, **fields)], 'nodes.json')
    assert PW not in str(caught.exception)
    return caught.exception.problems


class TestDrivers(unittest.TestCase):

    def test_prefixed_drivers(self):
        for pm_type, driver, prefix in (
                ('ilo', 'ilo', 'ilo'), ('pxe_ilo', 'ilo', 'ilo'),
                ('ilo5', 'ilo5', 'ilo'), ('irmc', 'irmc', 'irmc'),
                ('xclarity', 'xclarity', 'xclarity'),
                ('staging-iboot', 'staging-iboot', 'iboot')):
            found = entry(pm_type=pm_type, pm_port=443, **LOGIN)
            self.assertEqual(driver, found.body['driver'], pm_type)
            self.assertEqual({prefix + '_address': '127.0.6.20',
                              prefix + '_username': 'root',
                              prefix + '_port': 443},
                             found.body['driver_info'], pm_type)
            self.assertEqual({prefix + '_password': PW}, found.secrets)
            self.assertEqual((prefix, '127.0.6.20', '443'), found.bmc)

    def test_idrac_gets_both_forms(self):
        found = entry(pm_type='idrac', pm_addr='https://127.0.6.30:443/',
                      pm_user='root', pm_password=PW,
                      pm_system_id='/redfish/v1/Systems/System.Embedded.1')
        self.assertEqual({
            'redfish_address': 'https://127.0.6.30:443/',
            'redfish_username': 'root',
            'redfish_system_id': '/redfish/v1/Systems/System.Embedded.1',
            'drac_address': '127.0.6.30', 'drac_username': 'root'},
            found.body['driver_info'])
        self.assertEqual({'redfish_password': PW, 'drac_password': PW},
                         found.secrets)
        self.assertEqual(('redfish', '127.0.6.30:443',
                          '/redfish/v1/Systems/System.Embedded.1'),
                         found.bmc)
        self.assertEqual('idrac', entry(pm_type='pxe_drac',
                                        **LOGIN).body['driver'])

    def test_staging_drivers(self):
        found = entry(pm_type='staging-ovirt', pm_vm_name='vm-1', **LOGIN)
        self.assertEqual({'ovirt_address': '127.0.6.20',
                          'ovirt_username': 'root',
                          'ovirt_vm_name': 'vm-1'},
                         found.body['driver_info'])
        self.assertEqual('ovirt 127.0.6.20 VM vm-1',
                         drivers.describe_bmc(found.bmc))
        found = entry(pm_type='staging-iboot', pm_relay_id='2', **LOGIN)
        self.assertEqual('2', found.body['driver_info']['iboot_relay_id'])
        self.assertEqual({'wol_host': '127.0.6.255', 'wol_port': 9},
                         entry(pm_type='staging-wol', pm_addr='127.0.6.255',
                               pm_port=9).body['driver_info'])
        self.assertEqual({'amt_address': '127.0.6.20',
                          'amt_username': 'root'},
                         entry(pm_type='pxe_amt', **LOGIN).body[
                             'driver_info'])

    def test_manual_management_has_no_bmc(self):
        found = entry(pm_type='manual-management')
        self.assertEqual(({}, {}, None), (found.body['driver_info'],
                                          found.secrets, found.bmc))
        self.assertEqual(['nodes[0] (n): pm_addr means nothing to the '
                          'manual-management driver: remove it'],
                         problems(pm_type='manual-management',
                                  pm_addr='127.0.6.1'))

    def test_what_a_driver_needs_is_named(self):
        self.assertEqual([
            'nodes[0] (n): pm_user is missing: the ilo driver needs it '
            '(the BMC user)',
            'nodes[0] (n): pm_password is missing: the ilo driver needs it '
            '(the BMC password)'], problems(pm_type='ilo', pm_addr='h'))
        self.assertEqual([
            "nodes[0] (n): pm_vm_name is missing: the staging-ovirt driver "
            "needs it (the VM's name in oVirt)"],
            problems(pm_type='staging-ovirt', **LOGIN))
        self.assertEqual([
            "nodes[0] (n): pm_addr 'not a host!' is not an IP address or "
            "host name",
            'nodes[0] (n): pm_system_id means nothing to the irmc driver: '
            'remove it'],
            problems(pm_type='irmc', pm_system_id='/x',
                     **dict(LOGIN, pm_addr='not a host!')))
        self.assertEqual(['nodes[0] (n): pm_user must be text of at most '
                          '255 characters'],
                         problems(pm_type='irmc', **dict(LOGIN,
                                                         pm_user='u' * 256)))

    def test_one_bmc_for_two_drivers_of_a_kind(self):
        # an idrac node and a redfish node at one BMC and system: the same
        self.assertEqual(
            entry(pm_type='redfish', pm_addr='127.0.6.30',
                  pm_system_id='/s/1').bmc,
            entry(pm_type='idrac', pm_system_id='/s/1',
                  **dict(LOGIN, pm_addr='127.0.6.30')).bmc)

    def test_every_field_and_password_key_is_known(self):
        self.assertEqual(set(drivers.PM_FIELDS), {
            f for d in drivers.DRIVERS.values() for f in d.fields})
        self.assertEqual({'ipmi_password', 'redfish_password',
                          'drac_password', 'ilo_password', 'irmc_password',
                          'xclarity_password', 'fake_password',
                          'amt_password', 'iboot_password',
                          'ovirt_password'}, set(drivers.PASSWORDS))
