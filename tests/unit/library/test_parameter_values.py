"""Parameter values an operator gives: checked as Heat checks them against
the schema of tests/unit/library/validated_plan.py, read from NAME=VALUE
assignments and from files, and the names no template declares.
"""

import datetime
import json
import math
import unittest

from tests.unit.library import validated_plan as plan
from tripleoplanclient.common import exceptions
from tripleoplanclient.library import parameter_types
from tripleoplanclient.library import parameter_values


class TestUndeclared(unittest.TestCase):

    def setUp(self):
        self.schema = plan.make_schema()
        self.values = dict(plan.ENVIRONMENT['parameter_defaults'])

    def test_undeclared(self):
        self.assertEqual(['NtpServers'], parameter_values.undeclared(
            self.schema, dict(self.values, NtpServers=['x'])))


class TestCheck(unittest.TestCase):

    def setUp(self):
        self.schema = plan.make_schema()

    def ok(self, name, value):
        return parameter_values.check(self.schema, {name: value})[name]

    def refused(self, name, value, *patterns):
        with self.assertRaises(exceptions.CommandError) as ctx:
            parameter_values.check(self.schema, {name: value})
        message = str(ctx.exception)
        self.assertIn(name, message)
        for pattern in patterns:
            self.assertRegex(message, pattern)
        return message

    def test_number(self):
        self.assertEqual(3, self.ok('ComputeCount', 3))
        self.assertEqual(3, self.ok('ComputeCount', '3'))
        self.assertEqual(3, self.ok('ComputeCount', ' 3 '))
        self.assertEqual(2.5, self.ok('ComputeCount', 2.5))
        self.assertEqual(100.0, self.ok('ComputeCount', '1e2'))
        self.assertEqual(1000, self.ok('ComputeHCICount', '1_000'))
        self.assertEqual(1, self.ok('ComputeCount', True))
        self.assertEqual('nan', self.ok('ComputeHCICount', 'nan'))
        self.refused('ComputeCount', 'three', 'is not a number')
        self.refused('ComputeCount', [1], 'is not a number')
        self.refused('ComputeCount', {'a': 1}, 'is not a number')

    def test_range(self):
        self.assertEqual(100, self.ok('ComputeCount', 100))
        self.assertEqual(0, self.ok('ComputeCount', '0'))
        self.refused('ComputeCount', 101,
                     r'101 is out of range \(min: 0, max: 100\)')
        self.refused('ComputeCount', -1, 'out of range')
        self.refused('ControllerCount', '-2', r'max: None')

    def test_modulo(self):
        self.assertEqual(15, self.ok('NodeCreateBatchSize', 15))
        self.refused('NodeCreateBatchSize', 12,
                     'not a multiple of 5 with an offset of 0')
        self.assertEqual(7, self.ok('KeystoneFernetMaxActiveKeys', '7'))
        # Python's modulo, as Heat's: -1 % 2 == 1.
        self.assertEqual(-1, self.ok('KeystoneFernetMaxActiveKeys', -1))
        self.refused('KeystoneFernetMaxActiveKeys', 4, 'offset of 1')

    def test_number_allowed_values(self):
        # Each allowed value read as a number too: '8' allows 8.
        self.assertEqual(8, self.ok('ApiWorkers', 8))
        self.assertEqual(4, self.ok('ApiWorkers', '4'))
        self.assertEqual(2.0, self.ok('ApiWorkers', 2.0))
        self.refused('ApiWorkers', 3, r'not an allowed value \[1, 2, 4, "8"\]')

    def test_boolean(self):
        for text in ('yes', 'Y', 'on', 'true', 'T', '1', 1, True, ' yes '):
            self.assertIs(True, self.ok('EnableDebug', text), text)
        for text in ('no', 'OFF', 'false', 'f', '0', 0, False):
            self.assertIs(False, self.ok('EnableDebug', text), text)
        for value in ('maybe', 2, 1.0, '', [True], {'a': 1}):
            self.refused('EnableDebug', value, 'is not a boolean')

    def test_boolean_allowed_values(self):
        self.assertIs(False, self.ok('EnableFips', 'no'))
        self.refused('EnableFips', True, r'not an allowed value \["false"\]')

    def test_string(self):
        self.assertEqual('16.1', self.ok('ImageTag', 16.1))
        self.assertEqual('3', self.ok('ImageTag', 3))
        self.assertEqual('True', self.ok('ImageTag', True))
        self.assertEqual('2024-01-02',
                         self.ok('ImageTag', datetime.date(2024, 1, 2)))
        self.refused('ImageTag', ['a'], 'is a list, not a string')
        self.refused('ImageTag', {'a': 1}, 'is a mapping, not a string')

    def test_string_allowed_values(self):
        self.assertEqual('uuid', self.ok('KeystoneTokenProvider', 'uuid'))
        self.refused('KeystoneTokenProvider', 'pki',
                     r'"pki" is not an allowed value \["fernet", "uuid"\]')

    def test_pattern_matched_as_heat_does(self):
        self.assertEqual('overcloud.example.com',
                         self.ok('CloudName', 'overcloud.example.com'))
        self.refused('CloudName', 'Overcloud',
                     r'does not match pattern "\[a-z0-9.-\]\+" '
                     r'\(A lower-case DNS name\.\)$')
        # The template's words go with its constraints, not with the type.
        message = self.refused('CloudName', ['x'], 'not a string')
        self.assertNotIn('DNS', message)
        # Heat: re.match must end at the end: "east" matches first.
        self.assertEqual('east', self.ok('Region', 'east'))
        self.refused('Region', 'east-2', 'does not match pattern')
        self.refused('Region', 'east2', 'does not match pattern')

    def test_string_length(self):
        self.assertEqual('a' * 64, self.ok('CloudName', 'a' * 64))
        self.refused('CloudName', 'a' * 65,
                     r'length out of range \(65; min: None, max: 64\)')

    def test_comma_delimited_list(self):
        self.assertEqual(['a', ' b'], self.ok('ComputeServices', 'a, b'))
        self.assertEqual([], self.ok('ComputeServices', ''))
        self.assertEqual(['x', '1', 'True'],
                         self.ok('ComputeServices', ['x', 1, True]))
        self.refused('ComputeServices', 3,
                     'not a comma-delimited string or a list')
        self.refused('ComputeServices', {'a': 1},
                     'not a comma-delimited string or a list')
        self.refused('ComputeServices', [['a']], 'holds a list or a mapping')

    def test_list_allowed_values_and_length(self):
        self.assertEqual([plan.KEYSTONE],
                         self.ok('ControllerServices', plan.KEYSTONE))
        self.refused('ControllerServices', [plan.KEYSTONE, 'OS::Bogus'],
                     'not an allowed value')
        self.refused('ControllerServices', '',
                     r'length out of range \(0; min: 1')
        # Items are text, compared with the allowed values as given.
        self.assertEqual(['noop'], self.ok('KeystoneNotificationDrivers',
                                           ['noop']))
        self.refused('KeystoneNotificationDrivers', [1],
                     'not an allowed value')

    def test_json(self):
        self.assertEqual({'a': 1}, self.ok('ExtraConfig', {'a': 1}))
        self.assertEqual({'a': 1}, self.ok('ExtraConfig', '{"a": 1}'))
        self.assertEqual([1, 2], self.ok('ExtraConfig', [1, 2]))
        self.assertEqual({'1': 'x'}, self.ok('ExtraConfig', {1: 'x'}))
        # Heat takes any JSON value, and '' as it is.
        self.assertEqual(3, self.ok('ExtraConfig', 3))
        self.assertEqual('', self.ok('ExtraConfig', ''))
        self.refused('ExtraConfig', '{a: 1}', 'is not JSON text')
        self.refused('ExtraConfig', {'d': datetime.date(2024, 1, 2)},
                     'a value JSON cannot carry')

    def test_json_length(self):
        self.assertEqual({'a': 1, 'b': 2},
                         self.ok('KeystoneEnabledOptions', {'a': 1, 'b': 2}))
        self.refused('KeystoneEnabledOptions', {'a': 1, 'b': 2, 'c': 3},
                     r'length out of range \(3; min: None, max: 2\)')
        self.refused('KeystoneEnabledOptions', 3, r'has no length')

    def test_custom_constraint_not_checked(self):
        self.assertEqual('anything', self.ok('OvercloudControllerFlavor',
                                             'anything'))

    def test_every_declaration_holds(self):
        self.assertEqual(40, self.ok('ServiceTimeout', 40))
        self.refused('ServiceTimeout', 70,
                     r'out of range \(min: None, max: 50\) \(as declared in '
                     r'deployment/timesync/timesync.yaml\)')

    def test_unknown_name(self):
        self.refused('KeystoneWorker', 1, 'no template of the plan declares '
                     'it; did you mean KeystoneWorkers\\?')
        self.refused('keystoneworkers', 1, 'did you mean KeystoneWorkers\\?')
        message = self.refused('Zzzzzz', 1, 'declares it$')
        self.assertNotIn('did you mean', message)

    def test_none_passes(self):
        self.assertEqual({'ControllerCount': None},
                         parameter_values.check(self.schema,
                                                {'ControllerCount': None}))

    def test_every_problem_at_once(self):
        with self.assertRaises(exceptions.CommandError) as ctx:
            parameter_values.check(self.schema, {
                'ComputeCount': 'many', 'EnableDebug': 'maybe',
                'KeystoneWorker': 1, 'ImageTag': 'fine',
                'NodeCreateBatchSize': 7})
        message = str(ctx.exception)
        self.assertTrue(message.startswith('Nothing was set: 4 problems'),
                        message)
        lines = message.splitlines()[1:]
        self.assertEqual(['ComputeCount', 'EnableDebug', 'KeystoneWorker',
                          'NodeCreateBatchSize'],
                         [line.split()[0].rstrip(':') for line in lines])
        self.assertNotIn('ImageTag', message)

    def test_hidden_value_never_shown(self):
        for value in ('short', ['short'], {'k': 'short'}):
            message = self.refused('AdminPassword', value)
            self.assertNotIn('short', message)
            self.assertIn(parameter_types.MASK, message)
        # Not even its length.
        message = self.refused('AdminPassword', 'short', 'length out of')
        self.assertNotIn('5', message)
        self.assertEqual(plan.SECRET, self.ok('AdminPassword', plan.SECRET))

    def test_result_serialisable(self):
        result = parameter_values.check(self.schema, {
            'ComputeHCICount': 'inf', 'ImageTag': datetime.date(2024, 1, 2),
            'ExtraConfig': '{"a": [1]}', 'ComputeServices': 'a,b'})
        self.assertEqual(result, json.loads(json.dumps(result,
                                                       allow_nan=False)))
        self.assertTrue(math.isinf(float(result['ComputeHCICount'])))


class TestParse(unittest.TestCase):

    def test_yaml_values(self):
        self.assertEqual(
            {'Count': 3, 'Flag': True, 'List': ['a', 'b'],
             'Map': {'a': 1}, 'Text': '3', 'Empty': None,
             'Url': 'http://x/y?a=b'},
            parameter_values.parse_assignments([
                'Count=3', 'Flag=true', 'List=[a,b]', 'Map={a: 1}',
                'Text="3"', 'Empty=', 'Url=http://x/y?a=b']))

    def test_null_and_comment(self):
        self.assertEqual({'A': None, 'B': None, 'C': None},
                         parameter_values.parse_assignments(
                             ['A=', 'B=~', 'C= null ']))
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'value given for A is not valid YAML'):
            parameter_values.parse_assignments(['A=#blue'])

    def test_malformed(self):
        # A value is never shown: it may be a hidden parameter's.
        for item, shown in (('NoEquals', 'NoEquals'), ('=3', '=***'),
                            (' HashSuffix=s3cr3t', ' HashSuffix=***')):
            with self.assertRaises(exceptions.CommandError) as ctx:
                parameter_values.parse_assignments(['A=1', item])
            self.assertIn('assignment 2 (%r)' % shown, str(ctx.exception))

    def test_malformed_secret_not_shown(self):
        with self.assertRaises(exceptions.CommandError) as ctx:
            parameter_values.parse_assignments(['AdminPassword:hunter2'])
        self.assertNotIn('hunter2', str(ctx.exception))
        self.assertIn('assignment 1', str(ctx.exception))

    def test_twice(self):
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Count is given twice'):
            parameter_values.parse_assignments(['Count=1', 'Count=2'])

    def test_bad_yaml(self):
        with self.assertRaises(exceptions.CommandError) as ctx:
            parameter_values.parse_assignments(['Map={a: s3cr3t'])
        self.assertIn('value given for Map is not valid YAML',
                      str(ctx.exception))
        self.assertNotIn('s3cr3t', str(ctx.exception))

    def test_string_parameters_keep_their_text(self):
        schema = plan.make_schema()
        self.assertEqual(
            {'ImageTag': '16.10', 'Region': 'yes', 'CloudName': '0755',
             'KeystoneTokenProvider': 'uuid', 'ComputeCount': 493,
             'EnableDebug': True, 'NtpServer': 1.5},
            parameter_values.parse_assignments([
                'ImageTag=16.10', 'Region= yes', 'CloudName=0755',
                'KeystoneTokenProvider="uuid"', 'ComputeCount=0755',
                'EnableDebug=yes', 'NtpServer=1.50'], schema))
        # Then checked as given.
        self.assertEqual({'ImageTag': '16.10'}, parameter_values.check(
            schema, parameter_values.parse_assignments(['ImageTag=16.10'],
                                                       schema)))

    def test_file(self):
        self.assertEqual({'A': 1, 'B': [1]},
                         parameter_values.parse_file(b'A: 1\nB: [1]\n',
                                                     'f.yaml'))
        self.assertEqual({'A': 1, 'B': 2}, parameter_values.parse_file(
            b'parameter_defaults: {A: 1}\nparameters: {B: 2}\n', 'f.yaml'))
        self.assertEqual({}, parameter_values.parse_file(b'', 'f.yaml'))
        for data, pattern in (
                (b'resource_registry: {}\nparameter_defaults: {A: 1}\n',
                 r'f.yaml is an environment file \(it has '
                 r'resource_registry\)'),
                (b'parameter_defaults: {A: 1}\nparameters: {A: 2}\n',
                 'sets A in both'),
                (b'- A\n', 'not a mapping'),
                (b'parameter_defaults: [A]\n', 'parameter_defaults is not a '
                 'mapping'),
                (b'A: [1\n', 'f.yaml is not valid YAML')):
            with self.assertRaisesRegex(exceptions.CommandError, pattern):
                parameter_values.parse_file(data, 'f.yaml')
