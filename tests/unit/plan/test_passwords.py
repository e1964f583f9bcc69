"""Passwords: which the templates need, their formats, plan-environment."""

import base64
import os
import string
import struct
import time
import unittest
import uuid

from cryptography.hazmat.primitives import serialization
from osc_lib import exceptions
import yaml

from tests.functional import base
from tripleoplanclient.plan import passwords

TEMPLATE = b"""heat_template_version: wallaby
parameters:
  FooPassword:
    type: string
    hidden: true
  EmptyPassword:
    type: string
    hidden: true
    default: ''
  NullPassword:
    type: string
    hidden: 'true'
    default:
  KeptPassword:
    type: string
    hidden: true
    default: guest
  Visible:
    type: string
  RabbitCookie:
    type: string
    default: ''
  CephClusterFSID:
    type: string
  MigrationSshKey:
    type: json
    hidden: true
    default: {public_key: '', private_key: ''}
  KeystoneFernetKeys:
    type: json
    hidden: true
  CephRbdMirrorCopyAdminKey:
    type: boolean
    default: false
  RegistryCredentials:
    type: json
    hidden: true
    default: {}
  SSLCertificate:
    type: string
    hidden: true
    default: ''
resources: {}
"""

HIDDEN = b"""parameters:
  %s:
    type: string
    hidden: true
"""


class TestNeeded(unittest.TestCase):

    def test_hidden_without_value_and_special_names(self):
        self.assertEqual(
            ['CephClusterFSID', 'EmptyPassword', 'FooPassword',
             'KeystoneFernetKeys', 'MigrationSshKey', 'NullPassword',
             'RabbitCookie'],
            passwords.needed({'deployment/a.yaml': TEMPLATE}))

    def test_skipped_paths_and_files(self):
        objects = {
            'a.yml': HIDDEN % b'YmlPassword',
            'overcloud.j2.yaml': HIDDEN % b'J2Password',
            'releasenotes/notes/x.yaml': HIDDEN % b'NotePassword',
            'user-environments/x.yaml': HIDDEN % b'RecordPassword',
            'doc/x.yaml': HIDDEN % b'DocPassword',
            'tools/x.yaml': HIDDEN % b'ToolPassword',
            'ci/x.yaml': HIDDEN % b'CiPassword',
            'deployment/readme.txt': HIDDEN % b'TextPassword',
            'broken.yaml': b'parameters: [\n  hidden: {',
            'list.yaml': b'- hidden\n',
            'params-list.yaml': b'parameters: [hidden]\n',
            'env.yaml': b'parameters:\n  hidden: true\n',
            'nested/c.yaml': HIDDEN % b'NestedPassword',
        }
        self.assertEqual(['NestedPassword', 'YmlPassword'],
                         passwords.needed(objects))

    def test_one_declaration_needing_a_value_is_enough(self):
        objects = {'a.yaml': HIDDEN % b'Shared',
                   'b.yaml': (b'parameters:\n  Shared:\n    type: string\n'
                              b'    default: x\n')}
        self.assertEqual(['Shared'], passwords.needed(objects))

    @unittest.skipUnless(os.environ.get('THT_DIR'), 'THT_DIR is not set')
    def test_tripleo_heat_templates(self):
        objects = base.read_tree(os.environ['THT_DIR'])
        names = passwords.needed(objects)
        for name in ('AdminPassword', 'KeystoneFernetKeys', 'RabbitCookie',
                     'CephClusterFSID', 'PacemakerRemoteAuthkey',
                     'MigrationSshKey', 'HeatAuthEncryptionKey'):
            self.assertIn(name, names)
        for name in ('SSLCertificate', 'ContainerImageRegistryCredentials',
                     'RhsmVars', 'CollectdAmqpPassword'):
            self.assertNotIn(name, names)


class TestGenerate(unittest.TestCase):

    def value(self, name):
        return passwords.generate([name])[name]

    def assertFernetKey(self, key):
        self.assertIsInstance(key, str)
        self.assertEqual(32, len(base64.urlsafe_b64decode(key)))

    def test_default(self):
        value = self.value('NovaPassword')
        self.assertEqual(25, len(value))
        self.assertLessEqual(set(value), set(string.ascii_letters
                                             + string.digits))
        self.assertEqual(25, len(self.value('SnmpdReadonlyUserPassword')))

    def test_fsid(self):
        value = self.value('CephClusterFSID')
        self.assertEqual(value, str(uuid.UUID(value)))

    def test_fernet_keys(self):
        for name in ('KeystoneCredential0', 'KeystoneCredential1',
                     'KeystoneFernetKey0', 'KeystoneFernetKey1'):
            self.assertFernetKey(self.value(name))
        keys = self.value('KeystoneFernetKeys')
        self.assertEqual(['/etc/keystone/fernet-keys/0',
                          '/etc/keystone/fernet-keys/1'], sorted(keys))
        for entry in keys.values():
            self.assertEqual(['content'], list(entry))
            self.assertFernetKey(entry['content'])
        self.assertNotEqual(keys['/etc/keystone/fernet-keys/0'],
                            keys['/etc/keystone/fernet-keys/1'])

    def test_pacemaker_authkey(self):
        value = self.value('PacemakerRemoteAuthkey')
        self.assertEqual(4096, len(value))
        self.assertEqual(3072, len(base64.b64decode(value, validate=True)))

    def test_ceph_keys(self):
        before = int(time.time())
        for name in ('CephClientKey', 'CephManilaClientKey', 'CephRgwKey',
                     'CephOtherKey'):
            raw = base64.b64decode(self.value(name), validate=True)
            self.assertEqual(28, len(raw))
            kind, created, nsec, length = struct.unpack('<hiih', raw[:12])
            self.assertEqual((1, 0, 16), (kind, nsec, length))
            self.assertTrue(before <= created <= time.time())

    def test_heat_key_and_rabbit_cookie(self):
        value = self.value('HeatAuthEncryptionKey')
        self.assertEqual(32, len(value))
        self.assertTrue(value.isalnum())
        cookie = self.value('RabbitCookie')
        self.assertEqual(20, len(cookie))
        self.assertLessEqual(set(cookie), set(string.ascii_uppercase))

    def test_migration_ssh_key(self):
        value = self.value('MigrationSshKey')
        self.assertEqual(['private_key', 'public_key'], sorted(value))
        self.assertTrue(value['public_key'].startswith('ssh-rsa AAAA'))
        key = serialization.load_pem_private_key(
            value['private_key'].encode('ascii'), password=None)
        self.assertEqual(2048, key.key_size)
        public = key.public_key().public_bytes(
            serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
        self.assertEqual(value['public_key'], public.decode('ascii'))

    def test_keeps_existing_and_generates_new_each_time(self):
        names = ['AdminPassword', 'NovaPassword', 'CephClusterFSID']
        existing = {'AdminPassword': 'kept', 'OldPassword': 'old'}
        first = passwords.generate(names, existing)
        second = passwords.generate(names, existing)
        self.assertEqual('kept', first['AdminPassword'])
        self.assertEqual('old', first['OldPassword'])
        self.assertEqual({'AdminPassword': 'kept', 'OldPassword': 'old'},
                         existing)
        self.assertNotEqual(first['NovaPassword'], second['NovaPassword'])
        self.assertNotEqual(first['CephClusterFSID'],
                            second['CephClusterFSID'])
        self.assertEqual(set(names) | {'OldPassword'}, set(first))


class TestPlanEnvironment(unittest.TestCase):

    def test_new_plan_environment(self):
        data = passwords.plan_environment(None, {'AdminPassword': 'a'},
                                          plan='cloud1')
        self.assertIsInstance(data, bytes)
        self.assertEqual(
            {'version': 1.0, 'name': 'cloud1', 'template': 'overcloud.yaml',
             'environments': [], 'parameter_defaults': {},
             'passwords': {'AdminPassword': 'a'}}, yaml.safe_load(data))
        self.assertEqual({'AdminPassword': 'a'}, passwords.stored(data))

    def test_existing_passwords_and_keys_win(self):
        data = (b'version: 1.0\nname: overcloud\ntemplate: overcloud.yaml\n'
                b'environments:\n- path: environments/a.yaml\n'
                b'parameter_defaults: {NtpServer: pool.ntp.org}\n'
                b'workflow_parameters: {x: 1}\n'
                b'passwords: {AdminPassword: old}\n')
        generated = passwords.generate(['AdminPassword', 'MigrationSshKey'])
        out = yaml.safe_load(passwords.plan_environment(data, generated))
        self.assertEqual('old', out['passwords']['AdminPassword'])
        self.assertEqual(generated['MigrationSshKey'],
                         out['passwords']['MigrationSshKey'])
        self.assertEqual([{'path': 'environments/a.yaml'}],
                         out['environments'])
        self.assertEqual({'NtpServer': 'pool.ntp.org'},
                         out['parameter_defaults'])
        self.assertEqual({'x': 1}, out['workflow_parameters'])
        self.assertEqual(['version', 'name', 'template', 'environments',
                          'parameter_defaults', 'workflow_parameters',
                          'passwords'], list(out))

    def test_round_trip_of_every_format(self):
        names = ['AdminPassword', 'KeystoneFernetKeys', 'MigrationSshKey',
                 'PacemakerRemoteAuthkey', 'CephClientKey', 'RabbitCookie']
        generated = passwords.generate(names)
        data = passwords.plan_environment(None, generated)
        self.assertEqual(generated, passwords.stored(data))

    def test_stored_without_passwords(self):
        self.assertEqual({}, passwords.stored(None))
        self.assertEqual({}, passwords.stored(b'version: 1.0\n'))
        self.assertEqual({}, passwords.stored(b'passwords:\n'))

    def test_rejects_what_is_not_a_mapping(self):
        for data in (b'- a\n- b\n', b'just text\n', b'', b'a: [\n',
                     b'passwords: [secret]\n'):
            with self.assertRaises(exceptions.CommandError) as ctx:
                passwords.plan_environment(data, {'AdminPassword': 'new'})
            message = str(ctx.exception)
            self.assertIn('plan-environment.yaml', message)
            self.assertIn('run the command again', message)
            self.assertNotIn('secret', message)
            self.assertNotIn('new', message)
            self.assertRaises(exceptions.CommandError,
                              passwords.stored, data)

    def test_parse_error_message_has_no_file_text(self):
        data = b'passwords:\n  AdminPassword: s3cr3t\n  Bad: "x\n'
        with self.assertRaises(exceptions.CommandError) as ctx:
            passwords.stored(data)
        self.assertNotIn('s3cr3t', str(ctx.exception))
        self.assertIn('line', str(ctx.exception))


if __name__ == '__main__':
    unittest.main()
