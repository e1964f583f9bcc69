"""tools/validation_catalogue.py: why a validation cannot reach a
meaningful verdict on the loopback, read from its message."""

import testtools

import validation_catalogue as vc


class TestReason(testtools.TestCase):

    def test_a_passed_one_says_only_whether_it_checked_nothing(self):
        self.assertEqual('', vc.reason('PASSED', ''))
        self.assertEqual('', vc.vacuous({'undercloud': {'ok': 2}}))
        self.assertIn('no host', vc.vacuous({}))
        self.assertIn('every task skipped', vc.vacuous(
            {'undercloud': {'ok': 0, 'skipped': 3}}))

    def test_the_first_rule_that_matches(self):
        for message, why in (
                ("couldn't resolve module/action 'ansible.posix.sysctl'",
                 'a collection'),
                ('localhost: Get sestatus: sudo: a password is required',
                 'needs root'),
                ('podman: command not found', 'a container runtime'),
                ('c-0: Get limit: Module result deserialization failed',
                 'needs root'),
                ('Task failed: Syntax error in expression', 'older Ansible'),
                ('rpm -q tripleo: No such file', 'rpm/dnf'),
                ('lookup plugin tht: no auth_url', 'OpenStack clients'),
                ('/var/lib/config-data/puppet-generated/nova missing',
                 'no such service or file here'),
                ('overcloud-controller-0: unreachable: Connection refused',
                 'the network it needs')):
            self.assertIn(why, vc.reason('FAILED', message), message)

    def test_a_verdict_no_rule_explains_keeps_the_checks_words(self):
        self.assertEqual('el8 does not match configured kernel_version 6.1',
                         vc.reason('FAILED', 'el8 does not match   '
                                   'configured kernel_version 6.1'))
        self.assertEqual('', vc.reason('ERROR', None))
