"""Which ansible-playbook runs config-download and which tags it always
skips, from mistral.conf."""

import os
import shutil
import tempfile
from unittest import mock

from oslo_config import cfg
import testtools

from tripleoplanclient.mistral import ansible_options


class TestAnsibleOptions(testtools.TestCase):

    def conf(self, text):
        place = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, place)
        path = os.path.join(place, 'mistral.conf')
        with open(path, 'w') as f:
            f.write(text)
        conf = cfg.ConfigOpts()
        conf(args=[], default_config_files=[path])
        return mock.patch.object(cfg, 'CONF', conf)

    def test_the_defaults(self):
        with self.conf(''):
            self.assertEqual((None, [], True), (
                ansible_options.ansible_playbook(),
                ansible_options.skip_tags(), ansible_options.become()))

    def test_from_the_tripleoplan_section(self):
        with self.conf('[tripleoplan]\n'
                       'config_ansible_playbook = /opt/a214/bin/'
                       'ansible-playbook\n'
                       'config_skip_tags = opendev-validation,,run_ceph\n'
                       'config_become = false\n'):
            self.assertEqual(
                ('/opt/a214/bin/ansible-playbook',
                 ['opendev-validation', 'run_ceph'], False),
                (ansible_options.ansible_playbook(),
                 ansible_options.skip_tags(), ansible_options.become()))
