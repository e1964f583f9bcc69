"""tools/loopback/ironic.py: what decides that Ironic serves, and the
configuration each auth mode gets (no process is started)."""

import json
import os
from unittest import mock

import testtools


from loopback import ironic
from loopback import registry


def conductors(*entries):
    return json.dumps({'conductors': list(entries)}).encode()


class TestServesHardware(testtools.TestCase):

    def test_a_live_conductor_with_fake_hardware(self):
        self.assertTrue(ironic.serves_hardware(conductors(
            {'hostname': 'old', 'alive': False, 'drivers': []},
            {'hostname': 'loopback', 'alive': True,
             'drivers': ['fake-hardware']})))

    def test_not_yet_or_no_longer(self):
        self.assertFalse(ironic.serves_hardware(conductors(
            {'hostname': 'loopback', 'alive': False,
             'drivers': ['fake-hardware']})))
        self.assertFalse(ironic.serves_hardware(conductors()))
        self.assertFalse(ironic.serves_hardware(conductors(
            {'hostname': 'loopback', 'alive': True, 'drivers': ['ipmi']})))
        # before 1.49 the list has no drivers
        self.assertFalse(ironic.serves_hardware(conductors(
            {'hostname': 'loopback', 'alive': True})))

    def test_not_an_answer(self):
        for body in (b'', b'<html>', b'[]', b'{"conductors": ["x"]}'):
            self.assertFalse(ironic.serves_hardware(body), body)


class TestConfigs(testtools.TestCase):

    def conf(self, keystone):
        env = {'LOOPBACK_KEYSTONE': keystone, 'LOOPBACK_IRONIC_PORT': '16999',
               'LOOPBACK_DIR': '/nonexistent/state'}
        with mock.patch.dict(os.environ, env):
            service = ironic.Ironic()
            return (service.configs()['ironic.conf'], service.requires,
                    service.cloud())

    def test_keystone(self):
        conf, requires, cloud = self.conf('1')
        self.assertIn('auth_strategy = keystone\n', conf)
        self.assertIn('username = ironic\n', conf)
        self.assertIn('enforce_new_defaults = false\n', conf)
        self.assertEqual(('keystone', 'postgres'), requires)
        self.assertEqual({}, cloud)

    def test_noauth(self):
        conf, requires, cloud = self.conf('0')
        self.assertIn('auth_strategy = noauth\n', conf)
        self.assertNotIn('keystone_authtoken', conf)
        self.assertEqual(('postgres',), requires)
        self.assertEqual(
            {'baremetal_endpoint_override': 'http://127.0.0.1:16999'}, cloud)

    def test_loopback_only_and_one_process(self):
        conf, _, _ = self.conf('0')
        self.assertIn('host_ip = 127.0.0.1\nport = 16999\n', conf)
        self.assertIn('rpc_transport = none\n', conf)
        self.assertIn('endpoint_override = http://127.0.0.1:16999\n', conf)
        self.assertIn('/nonexistent/state/ironic/locks', conf)

    def test_fake_bios_and_raid_only_for_nodes_that_ask(self):
        import configparser
        conf, _, _ = self.conf('0')
        parsed = configparser.ConfigParser(interpolation=None)
        parsed.read_string(conf)
        found = parsed['DEFAULT']
        self.assertEqual((['fake', 'no-bios'], 'no-bios', ['fake', 'no-raid'],
                          'no-raid'), (
            found['enabled_bios_interfaces'].split(','),
            found['default_bios_interface'],
            found['enabled_raid_interfaces'].split(','),
            found['default_raid_interface']))

    def test_started_after_what_it_needs(self):
        for keystone, wanted in (('0', ['postgres', 'ironic']),
                                 ('1', ['postgres', 'keystone', 'ironic'])):
            with mock.patch.dict(os.environ, {'LOOPBACK_KEYSTONE': keystone}):
                self.assertEqual(wanted,
                                 registry.with_requirements(['ironic']))
