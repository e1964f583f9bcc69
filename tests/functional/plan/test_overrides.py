"""A later environment file overriding an earlier one is how TripleO is
configured: ``plan validate``, ``plan capabilities set`` and ``deploy``
let it through with a warning on stderr (exit 0), on a small plan and on
THT 18 with an upstream gate job's TLS-everywhere combination."""

import json
import os
import re
import subprocess
import uuid

from tests.functional import base
from tests.functional import library_base

WARNING = ('Warning: later file overrides earlier: environments/mode-c.yaml '
           'overrides environments/mode-a.yaml (both set parameter Mode '
           'differently)')


class TestOverridesAreWarnings(library_base.DeployedPlanTest):

    TEMPLATES = dict(library_base.TEMPLATES, **{
        'environments/mode-c.yaml': 'parameter_defaults:\n  Mode: b\n',
        'environments/needed.yaml': 'parameter_defaults:\n  Needed: x\n'})
    PREFIX = 'ovr'

    def environments(self):
        args = []
        for path in ('overcloud-resource-registry-puppet.yaml',
                     'environments/mode-a.yaml', 'environments/mode-c.yaml',
                     'environments/needed.yaml'):
            args += ['-e', os.path.join(self.templates, path)]
        return args

    def test_validate_warns_and_passes(self):
        self.openstack('overcloud', 'plan', 'amend', self.plan,
                       '--no-render', *self.environments())
        out, err = self.openstack('overcloud', 'plan', 'validate', self.plan,
                                  '-f', 'json')
        self.assertEqual('[]', out.strip())
        self.assertIn(WARNING, err)
        self.assertIn('is valid', err)

    def test_capabilities_set_warns(self):
        _, err = self.openstack(
            'overcloud', 'plan', 'capabilities', 'set', self.plan,
            '--enable', 'overcloud-resource-registry-puppet.yaml',
            '--enable', 'environments/mode-a.yaml',
            '--enable', 'environments/mode-c.yaml')
        self.assertIn(WARNING, err)

    def test_the_deploy_warns_and_deploys(self):
        out, err = self.openstack('overcloud', 'deploy', '--stack', self.plan,
                                  '-y', '-f', 'json', *self.environments())
        self.assertIn(WARNING, err)
        self.assertEqual('SUCCESS', json.loads(out)['status'])


class TestOverridesWithAMap(base.PlanTest):
    """Templates with a capabilities-map.yaml: the map's group that is no
    choice of one lets mode-a and mode-c combine, and plan validate warns
    of the override as it does without a map."""

    TEMPLATES = dict(TestOverridesAreWarnings.TEMPLATES, **{
        'capabilities-map.yaml': """root_environment: \
overcloud-resource-registry-puppet.yaml
topics:
  - title: Modes
    environment_groups:
      - title: Modes that combine
        environments:
          - file: environments/mode-a.yaml
          - file: environments/mode-c.yaml
          - file: environments/needed.yaml
"""})
    PREFIX = 'ovrmap'

    def test_validate_warns_and_passes(self):
        args = []
        for path in ('overcloud-resource-registry-puppet.yaml',
                     'environments/mode-a.yaml', 'environments/mode-c.yaml',
                     'environments/needed.yaml'):
            args += ['-e', os.path.join(self.templates, path)]
        self.openstack('overcloud', 'plan', 'amend', self.plan,
                       '--no-render', *args)
        out, err = self.openstack('overcloud', 'plan', 'validate', self.plan,
                                  '-f', 'json')
        self.assertEqual('[]', out.strip())
        self.assertIn(WARNING, err)


class TestUpstreamCombinationTht18(base.FunctionalTest):
    """tripleo-ci's standalone-on-multinode-ipa job enables TLS everywhere
    over the standalone profile (IpaClient off, then on)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tht = base.tht_dir()
        cls.plan = 'ovr18-%s' % uuid.uuid4().hex[:8]
        args = ['openstack', 'overcloud', 'plan', 'create', cls.plan,
                '--templates', cls.tht]
        for path in ('standalone/standalone-tripleo.yaml',
                     'ssl/tls-everywhere-endpoints-dns.yaml',
                     'services/haproxy-public-tls-certmonger.yaml',
                     'ssl/enable-internal-tls.yaml',
                     'ssl/enable-memcached-tls.yaml'):
            args += ['-e', os.path.join(cls.tht, 'environments', path)]
        cls.created = subprocess.run(
            args, capture_output=True, text=True, env=cls.env,
            stdin=subprocess.DEVNULL, timeout=600)

    @classmethod
    def tearDownClass(cls):
        subprocess.run(['openstack', 'overcloud', 'plan', 'delete', '-y',
                        cls.plan], env=cls.env, capture_output=True)
        super().tearDownClass()

    def test_validate_warns_and_refuses_no_capability(self):
        self.assertEqual(0, self.created.returncode, self.created.stderr)
        proc = subprocess.run(
            ['openstack', 'overcloud', 'plan', 'validate', self.plan, '-f',
             'json', '-c', 'kind', '-c', 'problem'],
            capture_output=True, text=True, env=self.env,
            stdin=subprocess.DEVNULL, timeout=600)
        self.assertNotIn('capabilities', proc.stdout)
        self.assertRegex(proc.stderr, re.escape(
            'Warning: later file overrides earlier: '
            'environments/ssl/enable-internal-tls.yaml overrides '
            'environments/standalone/standalone-tripleo.yaml (both map '
            'OS::TripleO::Services::IpaClient differently)'))
