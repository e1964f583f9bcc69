"""Which ansible-playbook runs config-download and which tags it always
skips, from mistral.conf."""

import testtools

from tests.unit.mistral import mistral_conf
from tripleoplanclient.mistral import ansible_options


class TestAnsibleOptions(testtools.TestCase):

    conf = staticmethod(mistral_conf.used)

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
