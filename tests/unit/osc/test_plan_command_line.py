"""The command line a plan command records, read by OSC's own parser."""

import io
import os
import shutil
import sys
import tempfile
from unittest import mock

import yaml

from tests.unit import fakes
from tripleoplanclient.osc import plan as plan_commands
from tripleoplanclient.record import log


class TestRecordedCommandLine(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.our_services()
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        os.makedirs(os.path.join(self.dir, 'tht'))
        with open(os.path.join(self.dir, 'tht', 'overcloud.yaml'), 'w') as f:
            f.write('heat_template_version: rocky\n')

    def create(self, *global_args):
        """``openstack <global_args> overcloud plan create p ...`` as OSC
        runs it: its app parser, the command's parser, sys.argv."""
        app = fakes.make_app({'object-store': fakes.SWIFT,
                              'workflow': fakes.MISTRAL})
        app.parser = fakes.osc_parser()
        app.stdout = io.StringIO()
        argv = ['p', '--templates', os.path.join(self.dir, 'tht'),
                '--no-render', '-f', 'yaml']
        cmd = plan_commands.CreatePlan(app, None)
        parsed = cmd.get_parser('overcloud plan create').parse_args(argv)
        with mock.patch.object(sys, 'argv', ['openstack'] + list(
                global_args) + ['overcloud', 'plan', 'create'] + argv):
            cmd.run(parsed)
        steps = [yaml.safe_load(data) for name, (data, _) in
                 self.swift.objects.items()
                 if name.startswith(log.LOG_PREFIX)]
        self.assertEqual(1, len(steps))
        return steps[0]['command']

    def test_abbreviated_and_url_secrets_are_never_stored(self):
        line = self.create('--os-passw', 'Pw1', '--os-tok=Tk2',
                           '--os-passcode', 'Pc3', '--os-auth-url',
                           'https://admin:Pw4@keystone:5000/v3',
                           '--os-application-credential-s', 'Sec5')
        for secret in ('Pw1', 'Tk2', 'Pc3', 'Pw4', 'Sec5'):
            self.assertNotIn(secret, line)
        self.assertIn('--os-passw *** --os-tok=*** --os-passcode *** '
                      '--os-auth-url https://***@keystone:5000/v3', line)
        self.assertIn('overcloud plan create p --templates', line)

    def test_the_parsers_are_only_those_of_the_running_command(self):
        self.create('--os-username', 'admin')
        self.assertFalse(hasattr(log, "_parsers"))
