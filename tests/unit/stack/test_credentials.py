import os
import stat
import tempfile
import unittest

import requests_mock

from tests.unit import fakes
from tripleoplanclient.common import exceptions
from tripleoplanclient.stack import credentials

STACK = fakes.HEAT + '/stacks/p/' + fakes.STACK_ID
OUTPUTS = {
    'KeystoneURL': 'http://127.0.6.10:5000',
    'KeystoneRegion': 'regionTwo',
    'EndpointMap': {'KeystoneAdmin': {'host': '127.0.7.5', 'port': 35357},
                    'NovaPublic': {'host': '127.0.6.10'}},
    'HostsEntry': 'a long output the rc does not need',
}
PLAN_ENV = (b'version: 1.0\nname: p\npasswords:\n  AdminPassword: s3cret '
            b'$(x)\n  Other: o\n')


class TestValues(unittest.TestCase):

    def test_rc_from_outputs(self):
        values = credentials.rc_values('p', OUTPUTS, 's3cret')
        self.assertEqual(('http://127.0.6.10:5000', 'regionTwo', 's3cret',
                          'p', '3', 'admin'), (
            values['OS_AUTH_URL'], values['OS_REGION_NAME'],
            values['OS_PASSWORD'], values['OS_CLOUD'],
            values['OS_IDENTITY_API_VERSION'], values['OS_USERNAME']))
        self.assertEqual('127.0.6.10,127.0.7.5', values['no_proxy'])

    def test_older_templates_admin_vip_and_default_region(self):
        values = credentials.rc_values('p', {
            'KeystoneURL': 'http://[fd00::5]:5000/v2.0',
            'KeystoneAdminVip': 'fd00::6'}, 'pw')
        self.assertEqual(('http://[fd00::5]:5000', 'regionOne',
                          '[fd00::5],[fd00::6]'), (
            values['OS_AUTH_URL'], values['OS_REGION_NAME'],
            values['no_proxy']))

    def test_refused_without_keystone_url_or_password(self):
        for outputs, password, named in (
                ({}, 'pw', 'no KeystoneURL output'),
                ({'KeystoneURL': ['not', 'text']}, 'pw', 'KeystoneURL'),
                ({'KeystoneURL': 'http://k:5000'}, None,
                 'no AdminPassword'),
                ({'KeystoneURL': 'http://k:5000'}, '', 'no AdminPassword')):
            with self.assertRaisesRegex(exceptions.CommandError, named):
                credentials.rc_values('p', outputs, password)

    def test_text_quotes_every_value(self):
        text = credentials.rc_text({'OS_PASSWORD': "a'b $(rm -rf /)",
                                    'OS_CLOUD': 'p'})
        self.assertTrue(text.startswith(credentials.CLEAR))
        self.assertIn("export OS_PASSWORD='a'\"'\"'b $(rm -rf /)'\n", text)
        self.assertIn('export OS_CLOUD=p\n', text)


class TestWrite(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(__import__('shutil').rmtree, self.dir)
        self.path = os.path.join(self.dir, 'prc')

    def mode(self):
        return stat.S_IMODE(os.stat(self.path).st_mode)

    def test_created_0600_even_with_an_open_umask(self):
        old = os.umask(0)
        self.addCleanup(os.umask, old)
        credentials.write(self.path, 'export A=1\n')
        self.assertEqual(0o600, self.mode())
        self.assertEqual(['prc'], os.listdir(self.dir))

    def test_an_older_wider_file_is_replaced(self):
        with open(self.path, 'w') as f:
            f.write('old')
        os.chmod(self.path, 0o644)
        credentials.write(self.path, 'new')
        self.assertEqual(0o600, self.mode())
        with open(self.path) as f:
            self.assertEqual('new', f.read())

    def test_a_directory_in_the_way_is_refused_and_nothing_left(self):
        os.mkdir(self.path)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Cannot write .*prc'):
            credentials.write(self.path, 'x')
        self.assertEqual(['prc'], os.listdir(self.dir))


class TestOvercloudrc(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(__import__('shutil').rmtree, self.dir)
        self.mocker = requests_mock.Mocker()
        self.mocker.start()
        self.addCleanup(self.mocker.stop)
        self.mocker.get(fakes.SWIFT + '/p/plan-environment.yaml',
                        content=PLAN_ENV)

    def stack(self, outputs):
        fakes.stack_is(self.mocker, None if outputs is None else {'stack': {
            'id': fakes.STACK_ID, 'stack_name': 'p'}})
        if outputs is None:
            return
        self.mocker.get(STACK + '/outputs', headers=fakes.JSON, json={
            'outputs': [{'output_key': k} for k in outputs]})
        for key, value in outputs.items():
            self.mocker.get(STACK + '/outputs/' + key, headers=fakes.JSON,
                            json={'output': {'output_key': key,
                                             'output_value': value}})

    def run_it(self):
        return credentials.overcloudrc(
            fakes.heat_client(), fakes.plan_store().container, 'p',
            self.dir)

    def test_written_from_the_needed_outputs_only(self):
        self.stack(OUTPUTS)
        row = self.run_it()
        path = os.path.join(self.dir, 'prc')
        self.assertEqual({'plan': 'p', 'file': path,
                          'auth_url': 'http://127.0.6.10:5000',
                          'region': 'regionTwo'}, row)
        with open(path) as f:
            text = f.read()
        self.assertIn("export OS_PASSWORD='s3cret $(x)'\n", text)
        asked = [r.path for r in self.mocker.request_history]
        self.assertNotIn('/v1/admin/stacks/p/%s/outputs/hostsentry'
                         % fakes.STACK_ID, asked)
        self.assertEqual(0o600, stat.S_IMODE(os.stat(path).st_mode))

    def test_parameter_defaults_win_over_passwords(self):
        self.mocker.get(fakes.SWIFT + '/p/plan-environment.yaml',
                        content=PLAN_ENV + b'parameter_defaults:\n'
                                           b'  AdminPassword: mine\n')
        self.stack(OUTPUTS)
        self.run_it()
        with open(os.path.join(self.dir, 'prc')) as f:
            self.assertIn('export OS_PASSWORD=mine\n', f.read())

    def test_no_stack_or_no_outputs_writes_nothing(self):
        for outputs, named in ((None, 'No stack p in Heat'),
                               ({'value': 'x'}, 'no KeystoneURL output')):
            self.stack(outputs)
            with self.assertRaisesRegex(exceptions.CommandError, named):
                self.run_it()
            self.assertEqual([], os.listdir(self.dir))

    def test_not_a_directory(self):
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'is not a directory'):
            credentials.overcloudrc(None, None, 'p', os.path.join(
                self.dir, 'missing'))
