"""python-tripleoclient from PyPI installed beside this checkout: the
command names both register run the implementation the documented rule
picks (ours unless ``tripleoplan_shared_commands`` says otherwise), whatever
order OSC loads the two plugins in, with a notice on stderr.

Needs no service (``--help`` only); the venv comes from
``tools/coexist-venv.sh`` (``COEXIST_VENV`` names one already at hand).
"""

import os
import subprocess
import tempfile
import unittest

from tests.functional import base

# ``openstack`` with OSC's plugin modules reordered: the API named first
# loads its commands first (cliff would keep the other's).
OPENSTACK = '''
import sys
sys.argv[0] = 'openstack'  # cliff names the program at import
from openstackclient.common import clientmanager
from openstackclient import shell
first = sys.argv.pop(1)
clientmanager.PLUGIN_MODULES.sort(key=lambda mod: mod.API_NAME != first)
sys.stderr.write('order: %s\\n' % ' '.join(
    m.API_NAME for m in clientmanager.PLUGIN_MODULES
    if m.API_NAME in ('tripleoplan', 'tripleoclient')))
sys.exit(shell.main(sys.argv[1:]))
'''
ORDERS = (('tripleoplan', 'tripleoclient'), ('tripleoclient', 'tripleoplan'))
NOTICE = ("Note: '%s' is a command of tripleoplan and tripleoclient; "
          "running %s's (%s; choose with --os-tripleoplan-shared-commands, "
          "OS_TRIPLEOPLAN_SHARED_COMMANDS or tripleoplan_shared_commands "
          "in clouds.yaml).")


class TestBesideTripleoclient(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.venv = os.environ.get('COEXIST_VENV') or subprocess.run(
            ['bash', os.path.join(base.REPO, 'tools', 'coexist-venv.sh')],
            check=True, capture_output=True, text=True).stdout.strip()

    def openstack(self, order, *argv, env=None, cwd=None):
        """``(stdout, stderr)`` of a successful run."""
        clean = {k: v for k, v in os.environ.items()
                 if not k.startswith('OS_')}
        clean.update(env or {})
        proc = subprocess.run(
            [os.path.join(self.venv, 'bin', 'python'), '-c', OPENSTACK,
             order[0]] + list(argv), capture_output=True, text=True,
            env=clean, cwd=cwd or tempfile.gettempdir(), timeout=120)
        self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertIn('order: %s\n' % ' '.join(order), proc.stderr)
        return proc.stdout, proc.stderr

    def assert_runs(self, stdout, stderr, name, api, why):
        self.assertIn('usage: openstack %s' % name, stdout)
        # tripleoclient's deploy options; ours print a result (cliff's
        # formatter options)
        self.assertEqual(api == 'tripleoclient', '--libvirt-type' in stdout,
                         stdout)
        self.assertEqual(api == 'tripleoplan', '--print-empty' in stdout,
                         stdout)
        self.assertIn(NOTICE % (name, api, why), stderr)

    def test_ours_by_default_in_either_order(self):
        for order in ORDERS:
            for name in ('overcloud deploy', 'overcloud update prepare'):
                out, err = self.openstack(order, *name.split(), '--help')
                self.assert_runs(out, err, name, 'tripleoplan', 'the default')

    def test_the_setting_runs_tripleoclients_in_either_order(self):
        for order in ORDERS:
            out, err = self.openstack(
                order, 'overcloud', 'deploy', '--help',
                env={'OS_TRIPLEOPLAN_SHARED_COMMANDS': 'tripleoclient'})
            self.assert_runs(out, err, 'overcloud deploy', 'tripleoclient',
                             'by tripleoplan_shared_commands')
            out, err = self.openstack(
                order, '--os-tripleoplan-shared-commands', 'tripleoclient',
                'overcloud', 'update', 'prepare', '--help')
            self.assert_runs(out, err, 'overcloud update prepare',
                             'tripleoclient', 'by tripleoplan_shared_commands')

    def test_clouds_yaml_setting(self):
        with tempfile.TemporaryDirectory() as cwd:
            with open(os.path.join(cwd, 'clouds.yaml'), 'w') as f:
                f.write('clouds:\n  undercloud:\n    auth_type: none\n'
                        '    tripleoplan_shared_commands: tripleoclient\n')
            out, err = self.openstack(
                ORDERS[0], 'overcloud', 'deploy', '--help', cwd=cwd,
                env={'OS_CLOUD': 'undercloud'})
            self.assert_runs(out, err, 'overcloud deploy', 'tripleoclient',
                             'by tripleoplan_shared_commands')
            # The command line wins over clouds.yaml.
            out, err = self.openstack(
                ORDERS[1], '--os-tripleoplan-shared-commands', 'tripleoplan',
                'overcloud', 'deploy', '--help', cwd=cwd,
                env={'OS_CLOUD': 'undercloud'})
            self.assert_runs(out, err, 'overcloud deploy', 'tripleoplan',
                             'by tripleoplan_shared_commands')

    def test_a_name_only_older_tripleoclients_have_runs_ours_quietly(self):
        # python-tripleoclient 20.0.0 has no "overcloud failures" (its
        # Train to Wallaby releases had one): ours, with no notice
        for order in ORDERS:
            out, err = self.openstack(order, 'overcloud', 'failures',
                                      '--help')
            self.assertIn('usage: openstack overcloud failures', out)
            self.assertIn('--stack <name>, --plan <name>', out)
            self.assertNotIn("Note: 'overcloud failures'", err)
