"""tripleo-ansible installed beside the ansible-playbook that runs
config-download: its roles and plugins given to Ansible by variables
(the tree stays as it was stored), only those the prefix has."""

import os
import shutil
import tempfile

import testtools

from tripleoplanclient.config import ansible_run


class TestTripleoAnsible(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.prefix = tempfile.mkdtemp(prefix='config-venv-')
        self.addCleanup(shutil.rmtree, self.prefix)
        os.mkdir(os.path.join(self.prefix, 'bin'))
        self.program = os.path.join(self.prefix, 'bin', 'ansible-playbook')

    def share(self, *parts):
        path = os.path.join(self.prefix, 'share', 'ansible', *parts)
        os.makedirs(path)
        return path

    def test_nothing_without_share_ansible(self):
        self.assertEqual({}, ansible_run.tripleo_ansible(self.program))
        env = ansible_run.environment(self.prefix, {}, program=self.program)
        self.assertNotIn('ANSIBLE_ROLES_PATH', env)

    def test_the_directories_the_prefix_has(self):
        roles = self.share('roles')
        modules = self.share('plugins', 'modules')
        strategy = self.share('plugins', 'strategy')
        env = ansible_run.environment(self.prefix, {}, program=self.program)
        self.assertEqual(
            (ansible_run.TREE + '/roles:' + roles + ':' + ansible_run.TREE,
             modules, strategy),
            (env['ANSIBLE_ROLES_PATH'], env['ANSIBLE_LIBRARY'],
             env['ANSIBLE_STRATEGY_PLUGINS']))
        self.assertNotIn('ANSIBLE_FILTER_PLUGINS', env)
        # nothing is written into the tree
        self.assertEqual(['bin', 'share'], sorted(os.listdir(self.prefix)))
