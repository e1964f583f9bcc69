"""How the validations log in to the servers, from mistral.conf."""

import testtools

from tests.unit.mistral import mistral_conf
from tripleoplanclient.mistral import validation_config


class TestSshSettings(testtools.TestCase):

    conf = staticmethod(mistral_conf.used)

    def test_the_defaults(self):
        with self.conf(''):
            self.assertEqual(
                {'user': 'tripleo-admin', 'key': None, 'timeout': 10,
                 'port': 22}, validation_config.ssh())

    def test_from_the_tripleoplan_section(self):
        with self.conf('[tripleoplan]\nvalidation_ssh_user = heat-admin\n'
                       'validation_ssh_key = /etc/tripleoplan/id_ed25519\n'
                       'validation_ssh_timeout = 3\n'
                       'validation_ssh_port = 16022\n'):
            self.assertEqual(
                {'user': 'heat-admin', 'key': '/etc/tripleoplan/id_ed25519',
                 'timeout': 3, 'port': 16022}, validation_config.ssh())

    def test_a_port_out_of_range_is_refused(self):
        with self.conf('[tripleoplan]\nvalidation_ssh_port = 70000\n'):
            self.assertRaisesRegex(ValueError, 'validation_ssh_port',
                                   validation_config.ssh)

    def test_a_key_per_project(self):
        from tripleoplanclient.common import exceptions
        with self.conf('[tripleoplan]\nvalidation_ssh_key = '
                       '/etc/tripleoplan/keys/{project_id}\n'):
            self.assertEqual('/etc/tripleoplan/keys/0c5e2f7d',
                             validation_config.ssh('0c5e2f7d')['key'])
            # no project (no Keystone), or one that is no id: no key
            for project in (None, '../../etc/shadow', 'a/b'):
                self.assertRaisesRegex(
                    exceptions.CommandError, 'a key per project',
                    validation_config.ssh, project)

    def test_the_servers_the_operator_lets_plans_reach(self):
        with self.conf('[tripleoplan]\nvalidation_servers = '
                       'p1:overcloud=192.168.24.0/24\n'
                       'validation_servers = p2:*=127.0.0.5\n'):
            self.assertEqual(['p1:overcloud=192.168.24.0/24',
                              'p2:*=127.0.0.5'], validation_config.servers())
        with self.conf(''):
            self.assertEqual([], validation_config.servers())

    def test_the_directories_the_sandbox_hides(self):
        with self.conf('[tripleoplan]\nvalidation_hidden_paths = '
                       '/srv/loopback,/var/lib/secrets\n'):
            self.assertEqual(['/srv/loopback', '/var/lib/secrets'],
                             validation_config.hidden_paths())
        with self.conf(''):
            self.assertEqual([], validation_config.hidden_paths())
