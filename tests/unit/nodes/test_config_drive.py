"""nodes/config_drive.py: public keys only (a private key refused
without a word of it), the login name checked, the file's config_drive
refused when it names a password, and the drive Ironic is given: the
user with sudo and its keys, meta_data and network_data."""

import json
import unittest

from tests.unit.nodes import ssh_keys
from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import config_drive


class TestKeys(unittest.TestCase):

    def test_public_keys_of_a_file(self):
        text = '# mine\n%s\n\n%s\n' % (ssh_keys.public_key(1),
                                       ssh_keys.public_key(2, 'b@c'))
        self.assertEqual([ssh_keys.public_key(1),
                          ssh_keys.public_key(2, 'b@c')],
                         config_drive.public_keys(text.encode(), 'k.pub'))

    def test_a_private_key_refused_unprinted(self):
        with self.assertRaises(exceptions.CommandError) as cm:
            config_drive.public_keys(ssh_keys.PRIVATE.encode(), 'id_x')
        self.assertIn('id_x holds a private key', str(cm.exception))
        self.assertNotIn(ssh_keys.PRIVATE_MARK, str(cm.exception))

    def test_not_a_key(self):
        wrong_type = ssh_keys.public_key().replace('ssh-ed25519',
                                                   'ssh-rsa', 1)
        for text, problem in (
                ('', 'no public key'),
                ('hello world\n', 'line 1: not an SSH public key'),
                ('ssh-ed25519 !!!\n', 'line 1: its key is not base64'),
                (wrong_type, 'line 1: its key does not match its type'),
                ('\n'.join([ssh_keys.public_key()] * 33), 'more than 32'),
                (b'\xff' * 70000, 'larger than 65536 bytes')):
            with self.assertRaisesRegex(exceptions.CommandError, problem):
                config_drive.public_keys(text, 'k.pub')

    def test_login_names(self):
        self.assertEqual('tripleo-admin', config_drive.check_user(
            'tripleo-admin', 'u'))
        for bad in ('root;rm', '-x', 'A', '', None, 'a' * 33):
            with self.assertRaisesRegex(exceptions.CommandError,
                                        'is no login name'):
                config_drive.check_user(bad, '--overcloud-ssh-user')


class TestFileConfigDrive(unittest.TestCase):

    def test_passwords_and_strange_fields_refused(self):
        problems = []
        config_drive.check({'cloud_config': {
            'chpasswd': {'list': 'root:x'},
            'users': [{'name': 'u', 'plain_text_passwd': 'x'}]},
            'vendor_data': {}}, 'role R defaults', problems)
        text = '\n'.join(problems)
        self.assertIn('/cloud_config/chpasswd', text)
        self.assertIn('/cloud_config/users/0/plain_text_passwd', text)
        self.assertIn('unknown field(s) vendor_data', text)
        problems = []
        config_drive.check({'meta_data': 'x'}, 'w', problems)
        self.assertIn('w config_drive must map', problems[0])

    def test_merged_key_by_key(self):
        self.assertEqual(
            {'cloud_config': {'a': 1, 'b': 3}, 'meta_data': {'m': 1}},
            config_drive.merged({'cloud_config': {'a': 1, 'b': 2},
                                 'meta_data': {'m': 1}},
                                {'cloud_config': {'b': 3}}))


class TestBuild(unittest.TestCase):

    def test_the_drive(self):
        key = ssh_keys.public_key()
        network = config_drive.network_data('192.168.24.10',
                                            '192.168.24.0/24', 'aa:bb')
        found = config_drive.build(
            {'uuid': 'u1', 'name': 'n1'}, 'oc-compute-0', 'Compute',
            'stack', [key], {'cloud_config': {'users': [{'name': 'ops'}],
                                              'ntp': {'enabled': True}},
                             'meta_data': {'hostname': 'mine', 'rack': 4}},
            network)
        meta = found['meta_data']
        self.assertEqual(('oc-compute-0', 'u1', 'n1', {'0': key}, 4,
                          'Compute'),
                         (meta['hostname'], meta['uuid'], meta['name'],
                          meta['public_keys'], meta['rack'],
                          meta['instance-type']))
        self.assertTrue(found['user_data'].startswith('#cloud-config\n'))
        cloud = json.loads(found['user_data'].split('\n', 1)[1])
        self.assertEqual({'enabled': True}, cloud['ntp'])
        self.assertEqual([{'name': 'ops'}, {
            'name': 'stack', 'groups': ['wheel'],
            'sudo': 'ALL=(ALL) NOPASSWD:ALL', 'shell': '/bin/bash',
            'ssh_authorized_keys': [key]}], cloud['users'])
        self.assertEqual(('aa:bb', '192.168.24.10', '255.255.255.0',
                          'ipv4'), (
            found['network_data']['links'][0]['ethernet_mac_address'],
            found['network_data']['networks'][0]['ip_address'],
            found['network_data']['networks'][0]['netmask'],
            found['network_data']['networks'][0]['type']))

    def test_no_login_user(self):
        found = config_drive.build({'uuid': 'u1'}, 'h', 'R', None, [], None)
        self.assertEqual('#cloud-config\n{}', found['user_data'])
        self.assertNotIn('network_data', found)
        self.assertEqual('ipv6', config_drive.network_data(
            'fd00::10', 'fd00::/64', None)['networks'][0]['type'])
