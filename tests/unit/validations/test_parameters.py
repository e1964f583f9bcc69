"""What a run is given beside its validations: extra vars, a limit, a
skiplist, checked; secrets masked."""

from osc_lib import exceptions
import testtools

from tripleoplanclient.validations import parameters


class TestExtraVars(testtools.TestCase):

    def test_pairs_are_text_the_last_wins(self):
        self.assertEqual({'a': '1', 'b': 'x=y', 'c': ''},
                         parameters.from_pairs(['a=0', 'b=x=y', 'a=1',
                                                'c=']))
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'noequals: give NAME=VALUE'):
            parameters.from_pairs(['noequals'])
        # a secret's value is not echoed back
        with self.assertRaisesRegex(exceptions.CommandError,
                                    r'\*\*\*: give NAME=VALUE'):
            parameters.from_pairs(['admin_password'])

    def test_a_vars_file_is_a_mapping_without_aliases(self):
        self.assertEqual({'n': 3, 'l': [1, 2]}, parameters.read_vars_file(
            b'{"n": 3, "l": [1, 2]}', 'f.json'))
        for data, message in (
                (b'- 1\n', 'f.yaml must be a mapping'),
                (b'a: &x 1\nb: *x\n', 'f.yaml'),
                (b'a: 2020-01-01\n', 'quote dates'),
                (b'a: [\n', 'f.yaml'),
                (b'a: "%s"\n' % (b'x' * parameters.MAX_BYTES), 'bytes')):
            with self.assertRaisesRegex(exceptions.CommandError, message):
                parameters.read_vars_file(data, 'f.yaml')

    def test_names_of_ours_or_no_variable_are_refused(self):
        for found, message in (
                ({'tripleoplan_plan': 'x'}, 'the run\'s own'),
                ({'TripleOPlan_endpoints': 'x'}, 'the run\'s own'),
                ({'1a': 'x'}, 'not a variable name'),
                ({'a b': 'x'}, 'not a variable name'),
                ({'a': object()}, 'values must be')):
            with self.assertRaisesRegex(exceptions.CommandError, message):
                parameters.check_extra_vars(found)
        self.assertEqual({}, parameters.check_extra_vars(None))

    def test_secrets_masked_in_the_record_and_everywhere_in_results(self):
        given = {'db_password': 's3cr3t-value', 'api_token': {'x': ['tkn"1']},
                 'min_ram': 'not-secret', 'key': 7}
        self.assertEqual({'db_password': '***', 'api_token': '***',
                          'min_ram': 'not-secret', 'key': '***'},
                         parameters.masked(given))
        values = parameters.secret_values(given)
        self.assertEqual(['s3cr3t-value', 'tkn"1', '7'], values)
        result = {'message': 'got s3cr3t-value', 'plays': [
            {'msg': 'tkn"1 and not-secret', 's3cr3t-value': 7}],
            'failed_hosts': ['h7'], 'rc': 7}
        self.assertEqual({'message': 'got ***', 'plays': [
            {'msg': '*** and not-secret', '***': 7}],
            'failed_hosts': ['h7'], 'rc': 7},
            parameters.scrub(result, values))


class TestTargets(testtools.TestCase):

    def test_a_limit_is_a_host_pattern_of_safe_characters(self):
        for good in ('overcloud-controller-0', 'h1,h2', 'overcloud:!h3',
                     'web[0:2]', 'all:&Compute', '*.example'):
            self.assertEqual(good, parameters.check_limit(good))
        self.assertIsNone(parameters.check_limit(None))
        for bad in ('-e@x', '@hosts.txt', 'a b', '~re', 'h;rm', '',
                    'h' * 1025, "h'", 3):
            with self.assertRaisesRegex(exceptions.CommandError, '--limit'):
                parameters.check_limit(bad)

    def test_a_skiplist_in_validations_libs_format(self):
        found = parameters.read_skiplist(b'''
check-ram:
  hosts: all
  reason: Wrong ram value
  lp: https://bugs.launchpad.net/tripleo/+bug/1
check-cpu:
  hosts: h1, h2
  reason: only these
check-disk:
  hosts: [h3]
''', 'skip.yaml')
        self.assertEqual({
            'check-ram': {'hosts': None, 'reason': 'Wrong ram value',
                          'lp': 'https://bugs.launchpad.net/tripleo/+bug/1'},
            'check-cpu': {'hosts': ['h1', 'h2'], 'reason': 'only these',
                          'lp': None},
            'check-disk': {'hosts': ['h3'], 'reason': None, 'lp': None}},
            found)
        self.assertEqual(
            'skipped (skiplist): Wrong ram value '
            '(https://bugs.launchpad.net/tripleo/+bug/1)',
            parameters.skipped(found['check-ram']))
        self.assertEqual({}, parameters.read_skiplist(b'', 'empty.yaml'))

    def test_a_bad_skiplist_is_refused_naming_the_entry(self):
        for data, message in (
                (b'- a\n', 'map validation ids'),
                (b'x: 1\n', 'x: map a validation id'),
                (b'../x: {hosts: all}\n', 'map a validation id'),
                (b'x: {hosts: "h1,!h2"}\n', 'x: !h2: not a host name'),
                (b'x: {hosts: "h:1"}\n', 'not a host name'),
                (b'x: {hosts: []}\n', 'hosts must be'),
                (b'x: {reason: [1]}\n', 'reason and lp must be text')):
            with self.assertRaisesRegex(exceptions.CommandError, message):
                parameters.read_skiplist(data, 'skip.yaml')

    def test_skipped_hosts_are_excluded_from_the_limit(self):
        self.assertEqual('h1', parameters.host_limit('h1', None))
        self.assertIsNone(parameters.host_limit(None, []))
        self.assertEqual('all,localhost,!h2,!h3',
                         parameters.host_limit(None, ['h2', 'h3']))
        self.assertEqual('overcloud:&Compute,!h2',
                         parameters.host_limit('overcloud:&Compute', ['h2']))
        self.assertEqual('category a or product b', parameters.labels(
            [], ['a'], ['b']))
