"""Secrets masked in a recorded command line, by what the parsers make of
it: OSC's own global option parser and a plan command's."""

import argparse
import unittest

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from tests.unit import fakes
from tripleoplanclient.common import masking
from tripleoplanclient.osc import plan as plan_commands
from tripleoplanclient.record import log

# A value no generated argument holds by chance (lower case only there).
SECRET = 'S3CRET'


def osc_parsers():
    """What reads ``openstack ... overcloud plan create ...``."""
    command = plan_commands.CreatePlan(None, None)
    return [fakes.osc_parser(), command.get_parser('overcloud plan create')]


def short_parser():
    """A parser with a secret short option, to cluster flags with it."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument('-p', '--password')
    parser.add_argument('-v', action='count')
    parser.add_argument('-q', action='store_true')
    parser.add_argument('-n', '--name')
    return parser


def line(argv, parsers):
    return log.sanitize_argv(argv, parsers)


class TestMasking(unittest.TestCase):

    def setUp(self):
        self.parsers = osc_parsers()

    def test_abbreviations_osc_accepts_are_masked(self):
        for argv in (['--os-passw', SECRET], ['--os-passw=' + SECRET],
                     ['--os-tok', SECRET], ['--os-passcode', SECRET],
                     ['--os-password=' + SECRET], ['--os-client-sec', SECRET],
                     ['--os-application-credential-s=' + SECRET],
                     ['--os-access-tok', SECRET], ['--os-idp-otp', SECRET]):
            masked = line(argv + ['overcloud', 'plan', 'create', 'p'],
                          self.parsers)
            self.assertNotIn(SECRET, masked, argv)
            self.assertIn(argv[0].split('=')[0], masked)
            self.assertIn('***', masked)

    def test_an_ambiguous_prefix_is_masked(self):
        # --os-pass: --os-password or --os-passcode (argparse refuses it).
        self.assertEqual('openstack --os-pass ***',
                         line(['--os-pass', SECRET], self.parsers))

    def test_other_options_and_their_values_are_kept(self):
        argv = ['--os-username', 'admin', '--os-access-token-type', 'Bearer',
                '--os-code-challenge-method', 'S256', '--os-auth-url',
                'https://keystone:5000/v3', 'overcloud', 'plan', 'create',
                'p', '--templates', '/t', '-e', 'x.yaml', '-p', 'pe.yaml',
                '--key-name', 'k']
        self.assertEqual(' '.join(['openstack'] + argv),
                         line(argv, self.parsers))

    def test_url_user_info_is_masked_in_any_argument(self):
        masked = line(['--os-auth-url', 'https://admin:pw1@ks:5000/v3',
                       '--upload-file', 'x=http://u:pw2@h/a,https://v:pw3@g',
                       '--os-auth-url=http://tok4@h/'], self.parsers)
        self.assertEqual(
            'openstack --os-auth-url https://***@ks:5000/v3 --upload-file '
            'x=http://***@g --os-auth-url=http://***@h/', masked)

    def test_a_secret_option_as_another_secrets_value(self):
        # argparse reads --os-passw as an option, not as the token.
        masked = line(['--os-token', '--os-passw', SECRET], self.parsers)
        self.assertNotIn(SECRET, masked)

    def test_short_options_and_clusters(self):
        parsers = [short_parser()]
        for argv in (['-p', SECRET], ['-p' + SECRET], ['-p=' + SECRET],
                     ['-vp', SECRET], ['-vqp' + SECRET], ['--pass', SECRET],
                     ['-vv', '-p', SECRET]):
            self.assertNotIn(SECRET, line(argv, parsers), argv)
        self.assertEqual('openstack -vq -n x -vp*** y',
                         line(['-vq', '-n', 'x', '-vp' + SECRET, 'y'],
                              parsers))

    def test_without_parsers_the_names_decide(self):
        self.assertEqual(
            'openstack --os-password *** --my-api-key=*** --key-name k '
            '--os-auth-type password',
            line(['--os-password', SECRET, '--my-api-key=' + SECRET,
                  '--key-name', 'k', '--os-auth-type', 'password'], []))

    def test_without_parsers_abbreviations_of_secret_options_are_masked(self):  # noqa
        # What a GUI or a script sends as the command line: no parser of
        # OSC's reads it where it is recorded, argparse would have.
        for argv in (['--os-passw', SECRET], ['--os-tok', SECRET],
                     ['--os-passw=' + SECRET], ['--os-application-c', SECRET],
                     ['--os-client-s', SECRET], ['--os-access-t', SECRET],
                     ['--os-p', SECRET], ['--my-api-ke', SECRET]):
            masked = line(argv, [])
            self.assertNotIn(SECRET, masked, argv)
            self.assertIn(argv[0].split('=')[0], masked)
        argv = ['--os-auth-url', 'http://k', '--os-username', 'admin',
                '--os-project-name', 'admin', '--templates', '/t', '-p',
                'pe.yaml', '--stack', 'overcloud']
        self.assertEqual(' '.join(['openstack'] + argv), line(argv, []))

    def test_the_secret_options_known_without_parsers_are_oscs(self):
        self.assertEqual(sorted(SECRET_OPTIONS),
                         sorted(masking.SECRET_OPTIONS))

    def test_a_secret_taking_several_values(self):
        parser = argparse.ArgumentParser()
        parser.add_argument('--secrets', nargs='+')
        parser.add_argument('--tokens', nargs=2)
        parser.add_argument('--rest-token', nargs=argparse.REMAINDER)
        self.assertEqual(
            ['--secrets', '***', '***', '--tokens', '***', '***', 'x',
             '--rest-token', '***', '***'],
            masking.mask_argv(['--secrets', 'a', 'b', '--tokens', 'c', 'd',
                               'x', '--rest-token', '--e', 'f'], [parser]))

    def test_an_argument_not_utf8_is_recorded(self):
        # sys.argv carries bytes that are not UTF-8 as lone surrogates.
        masked = line(['p\udcff', '--os-password', SECRET], self.parsers)
        self.assertNotIn(SECRET, masked)
        masked.encode('utf-8')


# -- properties ------------------------------------------------------------

def _secret_strings(parser):
    return sorted(o for o, a in parser._option_string_actions.items()
                  if o.startswith('--') and masking._secret_action(a))


OSC = osc_parsers()
SECRET_OPTIONS = sorted(set(o for p in OSC for o in _secret_strings(p)))
OTHER_OPTIONS = sorted(set(
    o for p in OSC for o, a in p._option_string_actions.items()
    if not masking._secret_action(a)))
WORDS = st.text(alphabet='abcdefghijklmnopqrstuvwxyz0123456789-_./:@=,',
                min_size=0, max_size=12)


@st.composite
def secret_arguments(draw, abbreviate=True):
    """A secret option, typed as any prefix of its name argparse could
    resolve (or refuse as ambiguous), with the secret after it."""
    option = draw(st.sampled_from(SECRET_OPTIONS))
    typed = option[:draw(st.integers(min_value=3, max_value=len(option)))
                   ] if abbreviate else option
    value = draw(st.sampled_from([SECRET, SECRET + '-x', '-' + SECRET,
                                  'a b ' + SECRET, SECRET + '=1']))
    if draw(st.booleans()):
        return [typed + '=' + value]
    return [typed, value]


@st.composite
def url_arguments(draw):
    """A URL with the secret in its user-info, inside some argument."""
    user = draw(st.sampled_from(['', 'admin:', 'a@b:']))
    scheme = draw(st.sampled_from(['http', 'https', 'git+ssh']))
    url = '%s://%s%s@%s/v3' % (scheme, user, SECRET, draw(WORDS))
    return [draw(WORDS) + url + draw(WORDS)]


def command_lines(secrets):
    return st.lists(st.one_of(secrets, url_arguments(), OTHER),
                    max_size=12).filter(
        lambda groups: any(SECRET in a for g in groups for a in g)).map(
        lambda groups: [a for g in groups for a in g])


OTHER = st.one_of(
    WORDS.map(lambda w: [w]),
    st.sampled_from(OTHER_OPTIONS).flatmap(
        lambda o: WORDS.map(lambda w: [o, w])),
    st.sampled_from(OTHER_OPTIONS).map(lambda o: [o]))


class TestMaskingProperties(unittest.TestCase):

    @settings(max_examples=1000, deadline=None)
    @given(command_lines(secret_arguments()))
    def test_no_secret_after_any_secret_option_or_in_a_url(self, argv):
        self.assertNotIn(SECRET, line(argv, OSC))

    @settings(max_examples=500, deadline=None)
    @given(command_lines(secret_arguments(abbreviate=False)))
    def test_without_parsers_full_names_are_masked(self, argv):
        self.assertNotIn(SECRET, line(argv, []))

    @settings(max_examples=500, deadline=None)
    @given(command_lines(secret_arguments()))
    def test_without_parsers_abbreviations_are_masked(self, argv):
        self.assertNotIn(SECRET, line(argv, []))

    @settings(max_examples=1000, deadline=None)
    @given(st.lists(st.text(max_size=20), max_size=12))
    def test_any_command_line_is_recorded(self, argv):
        for parsers in (OSC, [short_parser()], []):
            masked = line(argv, parsers)
            masked.encode('utf-8')
            self.assertTrue(masked.startswith('openstack'))

    @settings(max_examples=500, deadline=None)
    @given(st.lists(st.sampled_from(['v', 'q', 'n']), max_size=4),
           st.booleans(), st.lists(WORDS, max_size=3))
    def test_a_secret_at_the_end_of_a_flag_cluster(self, flags, attached,
                                                   rest):
        argv = ['-' + ''.join(flags) + 'p' + (SECRET if attached else '')]
        argv += [] if attached else [SECRET]
        masked = line(argv + rest, [short_parser()])
        if 'n' not in flags:    # -n takes the rest as its value
            self.assertNotIn(SECRET, masked)


class TestKeysAndLines(unittest.TestCase):
    """Parameter names and the lines of a file, as ``plan diff`` shows
    them."""

    def test_parameter_names_are_judged_by_their_words(self):
        for name in ('AdminPassword', 'KeystoneFernetKey0', 'SSLKey',
                     'passwords', 'nova::api::admin_password',
                     'ContainerImageRegistryCredentials', 'HorizonSecret',
                     'DB_PASSWORD'):
            self.assertTrue(masking.secret_key(name), name)
        for name in ('NtpServer', 'KeyName', 'SSLCertificate',
                     'parameter_defaults', 'ServiceNetMap',
                     'AdminPasswordFile'):
            self.assertFalse(masking.secret_key(name), name)

    def test_a_secret_key_hides_its_value_and_the_block_under_it(self):
        lines = ['parameter_defaults:',
                 '  AdminPassword: ' + SECRET,
                 '  # MysqlRootPassword: ' + SECRET,
                 '  "HeatAuthEncryptionKey": "%s",' % SECRET,
                 '  - nova::db::password: ' + SECRET,
                 '  SSLKey: |',
                 '    ' + SECRET,
                 '',
                 '    ' + SECRET,
                 '  NtpServer: pool.ntp.org',
                 'passwords:',
                 '- ' + SECRET,
                 'export OS_PASSWORD=' + SECRET,
                 'url: https://admin:%s@host/' % SECRET,
                 'plain: ' + SECRET]
        shown = masking.mask_lines(lines, values=[SECRET])
        self.assertEqual(['parameter_defaults:',
                          '  AdminPassword: ***',
                          '  # MysqlRootPassword: ***',
                          '  "HeatAuthEncryptionKey": ***',
                          '  - nova::db::password: ***',
                          '  SSLKey: ***',
                          '    ***',
                          '',
                          '    ***',
                          '  NtpServer: pool.ntp.org',
                          'passwords:',
                          '***',
                          'export OS_PASSWORD=***',
                          'url: https://***@host/',
                          'plain: ***'], shown)
        # Without the known value, a line no key makes secret is shown.
        self.assertEqual('plain: ' + SECRET,
                         masking.mask_lines(lines)[-1])

    def test_names_given_by_the_caller_are_secret_too(self):
        self.assertEqual(['RabbitCookie: ***', 'Other: x'],
                         masking.mask_lines(
                             ['RabbitCookie: c', 'Other: x'],
                             lambda key: key == 'RabbitCookie'))
