"""Issue 13 (hardening), through the real ``openstack``: secrets never
reach the record, and hostile YAML is a clear error with nothing stored."""

import os
import tarfile
import uuid

from tests.functional import base

SECRET = 'Zq8secretValue'


class TestHardeningInput(base.PlanTest):

    PREFIX = 'hard'
    TEMPLATES = {
        'overcloud.yaml': 'heat_template_version: wallaby\n',
        'deployment/a.yaml': 'heat_template_version: wallaby\n'}

    def stored_text(self):
        """Every object of the plan's record, as text."""
        listing = self.swift.listing(self.plan) or {}
        return ''.join(self.swift.get(self.plan, name).decode('utf-8',
                                                              'replace')
                       for name in listing
                       if name.startswith('user-environments/'))

    # -- secrets in the record ------------------------------------------

    def token_auth(self, fake):
        """(environment, token, options before the command) of a cloud
        that authenticates with the token given as --os-tok: a real token
        with Keystone (``fake`` without, where the admin_token plugin
        takes anything and Heat and Swift check nothing)."""
        if self.session is None:
            return self.env, fake, ['--os-auth-type', 'admin_token']
        env = self.cloud_env('bytoken', auth_type='v3token', auth={
            'username': None, 'password': None, 'user_domain_name': None})
        return env, self.session.get_token(), []

    def test_abbreviated_secret_options_and_url_credentials(self):
        env = self.write('secrets/plain.yaml', 'parameter_defaults: {}\n')
        # The token plugin ignores the password and --os-redirect-uri (an
        # OpenID option); OSC still parses them all. --os-passcode: only
        # the TOTP plugin takes it, so the unit tests prove that one.
        cloud, token, auth = self.token_auth(SECRET + '2')
        self.openstack(*auth + [
            '--os-passw', SECRET + '1', '--os-tok=' + token,
            '--os-redirect-uri', 'https://admin:%s3@idp.test/cb' % SECRET,
            'overcloud', 'plan', 'amend', self.plan, '-e', env,
            '--no-render'], env=cloud)
        stored = self.stored_text()
        for secret in (SECRET + '1', token, SECRET + '3'):
            self.assertNotIn(secret, stored)
        # (YAML folds a long command line: compare word by word)
        self.assertIn('--os-passw *** --os-tok=*** --os-redirect-uri '
                      'https://***@idp.test/cb', ' '.join(stored.split()))
        out, _ = self.openstack('overcloud', 'plan', 'show-history', self.plan,
                                '-f', 'yaml')
        self.assertNotIn(SECRET, out)

    def test_an_export_holds_no_secret(self):
        env = self.write('secrets/e2.yaml', 'parameter_defaults: {A: 1}\n')
        cloud, token, auth = self.token_auth(SECRET + '4')
        self.openstack(*auth + ['--os-tok', token, 'overcloud', 'plan',
                                'amend', self.plan, '-e', env,
                                '--no-render'], env=cloud)
        archive = os.path.join(self.tmp, 'export-%s.tar.gz'
                               % uuid.uuid4().hex[:6])
        self.openstack('overcloud', 'plan', 'export', self.plan,
                       '--output-file', archive)
        with tarfile.open(archive) as tar:
            for member in tar:
                if member.isfile() and 'user-environments' in member.name:
                    data = tar.extractfile(member).read()
                    self.assertNotIn(SECRET.encode(), data)
                    self.assertNotIn(token.encode(), data)

    # -- hostile YAML --------------------------------------------------

    def refused(self, pattern, data, name):
        path = os.path.join(self.tmp, 'hostile', name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(data)
        before = self.snapshot(self.plan)
        err = self.fail_with(pattern, 'overcloud', 'plan', 'amend',
                             self.plan, '-e', path, '--no-render')
        self.assertIn(path, err)
        self.assertEqual(before, self.snapshot(self.plan))

    def test_mixed_type_keys(self):
        self.refused('unknown section', b'1: a\nb: c\n', 'mixed.yaml')
        self.refused('unknown section', b'null:\n', 'null.yaml')

    def test_recursive_alias(self):
        self.refused(r'line 1.*recursive', b'resource_registry: &a [*a]\n',
                     'recursive.yaml')

    def test_utf16_file_with_references_is_stored_as_utf8(self):
        nested = self.write('hostile/nested.yaml',
                            'heat_template_version: wallaby\n')
        path = os.path.join(self.tmp, 'hostile', 'utf16.yaml')
        with open(path, 'wb') as f:
            f.write(('resource_registry:\n  OS::N: %s\n' % nested)
                    .encode('utf-16'))
        self.openstack('overcloud', 'plan', 'amend', self.plan, '-e', path,
                       '--no-render')
        stored = self.swift.get(self.plan, 'user-files' + path)
        self.assertIn(b'OS::N: nested.yaml', stored)

    def test_not_utf8(self):
        self.refused('UTF-8', 'parameter_defaults: {A: caf\xe9}\n'.encode(
            'latin-1'), 'latin1.yaml')

    def test_duplicate_keys(self):
        self.refused(r"line 3.*'A' appears twice",
                     b'parameter_defaults:\n  A: 1\n  A: 2\n', 'dup.yaml')

    def test_billion_laughs(self):
        lines = ['  a0: &a0 [x, x, x, x, x, x, x, x, x, x]']
        lines += ['  a%d: &a%d [%s]' % (i, i, ', '.join(
            ['*a%d' % (i - 1)] * 10)) for i in range(1, 12)]
        self.refused('aliases expand', (
            'parameter_defaults:\n%s\n' % '\n'.join(lines)).encode(),
            'lol.yaml')

    def test_deep_nesting(self):
        self.refused('nested more than|exceeded maximum nesting depth',
                     b'parameter_defaults:\n  A: ' + b'[' * 100000
                     + b']' * 100000 + b'\n', 'deep.yaml')
