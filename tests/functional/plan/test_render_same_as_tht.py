"""Our renderer against THT's own tools/process-templates.py, on the
tripleo-heat-templates releases 18.0.0 and 17.0.0.

Both run on the same tree: THT's script in place on a copy (its -o mode
ignores j2_excludes.yaml), ours in-process on the original; every output
must be byte-identical. Needs only the THT sdist, no services.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import yaml

from tests.functional import base
from tripleoplanclient.plan import render_process


ISOLATION = 'network-data-samples/default-network-isolation.yaml'


class TestSameAsTHT(unittest.TestCase):

    VERSION = '18.0.0'

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='tpc-render-')
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.tree = os.path.join(self.tmp, 'tht')
        shutil.copytree(base.tht_dir(self.VERSION), self.tree)

    def compare(self, roles, networks):
        before = base.read_tree(self.tree)
        # As Mistral renders: in a child process, within the default bounds.
        ours = render_process.render(before, before.__getitem__, roles,
                                     networks)
        ran = subprocess.run(
            [sys.executable, os.path.join(self.tree, 'tools',
                                          'process-templates.py'),
             '-p', self.tree, '-r', roles, '-n', networks],
            capture_output=True, text=True)
        self.assertEqual(0, ran.returncode, ran.stdout[-3000:] + ran.stderr)
        after = base.read_tree(self.tree)
        theirs = {p: d for p, d in after.items() if before.get(p) != d}
        ours = {p: d for p, d in ours.items() if before.get(p) != d}
        self.assertEqual(sorted(theirs), sorted(ours))
        for path in theirs:
            self.assertEqual(theirs[path], ours[path], path)
        return theirs

    def test_default_roles_and_networks(self):
        # THT's own defaults: its roles and its network-isolation sample
        # (network_data_default.yaml is empty: no network templates).
        out = self.compare('roles_data.yaml', ISOLATION)
        self.assertIn('puppet/controller-role.yaml', sorted(out))
        self.assertIn('overcloud.yaml', sorted(out))
        self.assertIn('network/ports/internal_api_from_pool.yaml', sorted(out))

    def test_custom_roles_disabled_network_and_excludes(self):
        roles = b''.join(
            open(os.path.join(self.tree, 'roles', n + '.yaml'), 'rb').read()
            for n in ('Controller', 'Compute', 'Networker', 'ComputeOvsDpdk',
                      'CephStorage'))
        # A role of our own whose tags come from its name (deprecated THT
        # behaviour that must still match).
        roles += (b'- name: CephFooBar\n  CountDefault: 1\n'
                  b'  ServicesDefault: [OS::TripleO::Services::Timesync]\n')
        with open(os.path.join(self.tree, 'custom_roles.yaml'), 'wb') as f:
            f.write(roles)
        with open(os.path.join(self.tree, ISOLATION)) as f:
            networks = yaml.safe_load(f)
        for network in networks:
            if network['name'] == 'Tenant':
                network['enabled'] = False
        with open(os.path.join(self.tree, 'custom_networks.yaml'), 'w') as f:
            yaml.safe_dump(networks, f)
        with open(os.path.join(self.tree, 'j2_excludes.yaml'), 'w') as f:
            yaml.safe_dump({'name': [
                'puppet/networker-role.yaml',
                'network/ports/storage_from_pool.yaml']}, f)
        out = self.compare('custom_roles.yaml', 'custom_networks.yaml')
        self.assertIn('puppet/cephfoobar-role.yaml', sorted(out))
        self.assertIn('puppet/computeovsdpdk-role.yaml', sorted(out))
        self.assertNotIn('puppet/networker-role.yaml', sorted(out))
        self.assertNotIn('network/ports/storage_from_pool.yaml', sorted(out))
        self.assertIn('network/ports/internal_api_from_pool.yaml', sorted(out))
        self.assertNotIn('network/ports/tenant_from_pool.yaml', sorted(out))


class TestSameAsTHT17(TestSameAsTHT):

    VERSION = '17.0.0'
