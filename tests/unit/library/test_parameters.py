"""A plan's parameters from Heat's template validation: flattened into one
entry per name (``schema``, on tests/unit/library/validated_plan.py's
handmade validation and a THT-sized synthetic one) and shown (``rows``).
"""

import json
import unittest

from tests.unit.library import validated_plan as plan
from tripleoplanclient.common import exceptions
from tripleoplanclient.library import parameter_types
from tripleoplanclient.library import parameters


class TestSchema(unittest.TestCase):

    def setUp(self):
        self.schema = plan.make_schema()
        self.params = plan.expand(self.schema)

    def test_compact(self):
        place = [t['path'] for t in self.schema['templates']].index(
            'deployment/keystone/keystone.yaml')
        self.assertEqual({'path': 'deployment/keystone/keystone.yaml',
                          'resources': ['ControllerServiceChain']},
                         self.schema['templates'][place])
        self.assertEqual(
            {'type': 'Number', 'description': 'Keystone workers',
             'templates': [place], 'default': 0,
             'constraints': {'MinValue': 0, 'MaxValue': 64}},
            self.schema['parameters']['KeystoneWorkers'])
        self.assertEqual(sorted(t['path'] for t in self.schema['templates']),
                         [t['path'] for t in self.schema['templates']])

    def test_one_entry_per_name(self):
        self.assertEqual(plan.SETTABLE | plan.FED, set(self.params))
        # Declared by five templates, under four stacks of each chain.
        self.assertEqual(
            ['common/services/controller-role.yaml',
             'deployment/keystone/keystone-base.yaml',
             'deployment/keystone/keystone.yaml',
             'deployment/timesync/timesync.yaml', plan.CHAIN_OVERRIDE],
            self.params['ServiceData']['templates'])
        self.assertEqual(['ComputeServiceChain', 'ControllerServiceChain'],
                         self.params['ServiceData']['resources'])
        self.assertEqual(['ComputeServiceChain', 'ControllerServiceChain'],
                         self.params['NtpServer']['resources'])

    def test_templates_found_as_heat_finds_them(self):
        def templates(name):
            return self.params[name]['templates']
        # registry mapping
        self.assertEqual(['deployment/keystone/keystone.yaml'],
                         templates('KeystoneWorkers'))
        # a type mapped to a type mapped to a template, plus the root
        self.assertEqual(['deployment/timesync/timesync.yaml',
                          'overcloud.yaml'], templates('NtpServer'))
        # a user's template for a role, another role's type mapped to a
        # type mapped to a template
        self.assertEqual(['user-files/custom-compute.yaml'],
                         templates('CustomComputeOption'))
        self.assertEqual(['Compute'],
                         self.params['CustomComputeOption']['resources'])
        self.assertEqual(['roles/compute.yaml'],
                         templates('NovaComputeOption'))
        self.assertEqual(['ComputeHCI'],
                         self.params['NovaComputeOption']['resources'])
        # a top-level resource's own mapping, its URL unquoted; another
        # one (resource 0) not seen by the nested resources named 0
        self.assertIn(plan.CHAIN_OVERRIDE, templates('Services'))
        self.assertEqual(['deployment/keystone/keystone.yaml'],
                         templates('KeystoneDebug'))
        self.assertNotIn('unused.yaml', json.dumps(self.schema))
        # a Type that is a template URL
        self.assertEqual(['deployment/keystone/keystone-base.yaml'],
                         templates('KeystoneBaseOption'))
        # a wildcard mapping
        self.assertEqual(['network/ctlplane.yaml'],
                         templates('ControlPlaneSubnetCidr'))

    def test_root_declaration_wins_and_others_are_variants(self):
        ntp = self.params['NtpServer']
        self.assertTrue(ntp['top'])
        self.assertEqual('CommaDelimitedList', ntp['type'])
        self.assertEqual('', ntp['default'])
        self.assertEqual('NTP servers', ntp['description'])
        self.assertEqual([{'templates': ['deployment/timesync/timesync.yaml'],
                           'type': 'CommaDelimitedList',
                           'default': ['pool.ntp.org']}], ntp['variants'])
        # Not on the root: the first declaring template by path.
        timeout = self.params['ServiceTimeout']
        self.assertFalse(timeout['top'])
        self.assertEqual({'MaxValue': 100}, timeout['constraints'])
        self.assertEqual(
            [{'templates': ['deployment/timesync/timesync.yaml'],
              'type': 'Number', 'default': 30,
              'constraints': {'MaxValue': 50}}], timeout['variants'])
        self.assertEqual([], self.params['KeystoneWorkers']['variants'])

    def test_description_of_another_declaration_when_the_first_has_none(self):
        # The root declares AdminPassword without a description.
        self.assertEqual('The admin password',
                         self.params['AdminPassword']['description'])

    def test_default_is_the_templates_not_the_plans(self):
        # Heat reports parameter_defaults as the Default.
        self.assertEqual(8, plan.validation()['NestedParameters'][
            'ControllerServiceChain']['NestedParameters']['ServiceChain'][
            'NestedParameters']['0']['Parameters']['KeystoneWorkers'][
            'Default'])
        self.assertEqual(0, self.params['KeystoneWorkers']['default'])
        self.assertEqual(1, self.params['ControllerCount']['default'])
        self.assertEqual(30, self.params['NodeCreateBatchSize']['default'])
        self.assertIsNone(self.params['ServiceData']['default'])

    def test_constraints_as_heat_gives_them(self):
        self.assertEqual(
            {'AllowedPattern': '[a-z0-9.-]+', 'MaxLength': 64,
             'ConstraintDescription': 'A lower-case DNS name.'},
            self.params['CloudName']['constraints'])
        self.assertEqual({'Step': 5, 'Offset': 0},
                         self.params['NodeCreateBatchSize']['constraints'])
        self.assertNotIn('constraints', self.params['ImageTag'])

    def test_hidden_holds_no_secret(self):
        admin = self.params['AdminPassword']
        self.assertTrue(admin['hidden'])
        # Neither the root nor keystone.yaml gives it a default.
        self.assertIsNone(admin['default'])
        self.assertFalse(self.params['KeystoneWorkers']['hidden'])
        self.assertNotIn(plan.SECRET, json.dumps(self.schema))

    def test_hidden_default_masked_even_when_the_template_has_one(self):
        data = plan.validation()
        data['Parameters']['AdminPassword']['Default'] = 'guest'
        data['Environment']['parameter_defaults'].pop('AdminPassword')
        schema = parameters.schema(data, plan.fields(), plan.BASE)
        self.assertEqual(parameter_types.MASK,
                         schema['parameters']['AdminPassword']['default'])
        self.assertIs(True, schema['parameters']['AdminPassword']['hidden'])
        self.assertNotIn('guest', json.dumps(schema))

    def test_fed_by_the_parent(self):
        self.assertEqual(plan.FED, {n for n, e in self.params.items()
                                    if e['fed']})
        # EndpointMap has no Value anywhere (a get_attr when Heat
        # validates): the parents' templates pass it.
        declared = [p['EndpointMap']
                    for p in _all_parameters(plan.validation())
                    if 'EndpointMap' in p]
        self.assertEqual(6, len(declared))
        self.assertFalse([p for p in declared if 'Value' in p])

    def test_fed_from_values_when_the_parent_is_a_function(self):
        # ComputeHCI's members get a function: Hostname is known passed
        # there only from Heat's Value.
        data = plan.validation()
        hci = data['NestedParameters']['ComputeHCI']['NestedParameters']['0']
        del hci['Parameters']['Hostname']['Value']
        schema = parameters.schema(data, plan.fields(), plan.BASE)
        self.assertFalse(plan.expand(schema)['Hostname']['fed'])

    def test_declared_by_no_template(self):
        # A stack Heat generates (no template) declaring parameters: they
        # keep the top-level resource they are under.
        data = plan.validation()
        data['NestedParameters']['Storage'] = plan.generated(
            'OS::Heat::Thing', {})
        data['NestedParameters']['Storage']['Parameters'] = {
            'ControllerThing': {'Type': 'String', 'NoEcho': 'false',
                                'Description': 'made by Heat'}}
        schema = parameters.schema(data, plan.fields(), plan.BASE,
                                   roles=['Storage', 'Controller'])
        self.assertEqual({'type': 'String', 'description': 'made by Heat',
                          'templates': [], 'resources': ['Storage']},
                         schema['parameters']['ControllerThing'])
        self.assertEqual(['ControllerThing'], [
            r['name'] for r in parameters.rows(schema, {}, role='Storage')])

    def test_without_fields(self):
        params = plan.expand(parameters.schema(plan.validation(), None,
                                               plan.BASE))
        self.assertIsNone(params['KeystoneWorkers']['default'])
        self.assertEqual(30, params['NodeCreateBatchSize']['default'])
        self.assertFalse(params['EndpointMap']['fed'])
        self.assertTrue(params['RoleName']['fed'])
        self.assertEqual(self.params['KeystoneWorkers']['templates'],
                         params['KeystoneWorkers']['templates'])

    def test_roles(self):
        self.assertEqual(['Compute', 'ComputeHCI', 'Controller'],
                         self.schema['roles'])
        self.assertEqual(['Controller'],
                         plan.make_schema(roles=['Controller'])['roles'])

    def test_json_round_trip(self):
        self.assertEqual(self.schema, json.loads(json.dumps(self.schema)))
        self.assertEqual('overcloud.yaml', self.schema['template'])

    def test_heat_error(self):
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'could not validate.*Property error'):
            parameters.schema({'Error': 'Property error: x'}, plan.fields(),
                              plan.BASE)

    def test_a_wrapped_type_is_the_builtin_inside_its_wrapper(self):
        # The mapping a template came from is not seen inside it
        # (environment.get_child_environment's item_to_remove): the group
        # inside the wrapper is Heat's own, whose members get its
        # resource_def properties.
        templates = {
            'group-wrapper.yaml': plan.hot(
                {'GroupSize': plan.param('number', 1)}, {
                    'Group': {'type': 'OS::Heat::ResourceGroup',
                              'properties': {'resource_def': {
                                  'type': 'OS::TripleO::Member',
                                  'properties': {'Given': 1}}}}}),
            'member.yaml': plan.hot({
                'Given': plan.param('number'),
                'MemberOption': plan.param('string', 'm')}),
            'root.yaml': plan.hot({}, {'Pool': {
                'type': 'OS::Heat::ResourceGroup', 'properties': {}}}),
        }
        heat = {'Parameters': {}, 'Environment': {'resource_registry': {
            'OS::Heat::ResourceGroup': plan.BASE + 'group-wrapper.yaml',
            'OS::TripleO::Member': plan.BASE + 'member.yaml'}},
            'NestedParameters': {'Pool': {
                'Type': 'OS::Heat::ResourceGroup',
                'Parameters': {'GroupSize': {'Type': 'Number',
                                             'Default': 1}},
                'NestedParameters': {'Group': {
                    'Type': 'OS::Heat::ResourceGroup', 'Parameters': {},
                    'NestedParameters': {'0': {
                        'Type': 'OS::TripleO::Member', 'Parameters': {
                            'Given': {'Type': 'Number'},
                            'MemberOption': {'Type': 'String',
                                             'Default': 'm'}}}}}}}}}
        files = {plan.BASE + k: json.dumps(v) for k, v in templates.items()
                 if k != 'root.yaml'}
        schema = plan.expand(parameters.schema(
            heat, {'template': templates['root.yaml'], 'files': files},
            plan.BASE, template='root.yaml'))
        self.assertEqual(['group-wrapper.yaml'],
                         schema['GroupSize']['templates'])
        self.assertTrue(schema['Given']['fed'])
        self.assertFalse(schema['MemberOption']['fed'])


def _all_parameters(node):
    yield node.get('Parameters', {})
    for child in node.get('NestedParameters', {}).values():
        yield from _all_parameters(child)


class TestRows(unittest.TestCase):

    def setUp(self):
        self.schema = plan.make_schema()
        self.values = dict(plan.ENVIRONMENT['parameter_defaults'])

    def names(self, **kwargs):
        return [r['name'] for r in parameters.rows(self.schema, self.values,
                                                   **kwargs)]

    def test_default_view_and_all(self):
        self.assertEqual(sorted(plan.SETTABLE), self.names())
        self.assertEqual(sorted(plan.SETTABLE | plan.FED),
                         self.names(show_all=True))

    def test_row(self):
        rows = {r['name']: r for r in parameters.rows(self.schema,
                                                      self.values)}
        self.assertEqual(
            {'name': 'KeystoneWorkers', 'type': 'Number', 'default': 0,
             'value': 8, 'description': 'Keystone workers',
             'templates': ['deployment/keystone/keystone.yaml']},
            rows['KeystoneWorkers'])
        self.assertIsNone(rows['ImageTag']['value'])
        self.assertEqual(['time.example.com'], rows['NtpServer']['value'])

    def test_hidden_masked(self):
        data = plan.validation()
        data['Parameters']['AdminPassword']['Default'] = 'guest'
        data['Environment']['parameter_defaults'].pop('AdminPassword')
        schema = parameters.schema(data, plan.fields(), plan.BASE)
        rows = parameters.rows(schema, self.values, show_all=True)
        admin = [r for r in rows if r['name'] == 'AdminPassword'][0]
        self.assertEqual(parameter_types.MASK, admin['value'])
        self.assertEqual(parameter_types.MASK, admin['default'])
        self.assertNotIn(plan.SECRET, json.dumps(rows))
        self.assertNotIn('guest', json.dumps(rows))
        # Nothing to hide: not set, no default.
        rows = parameters.rows(self.schema, {})
        admin = [r for r in rows if r['name'] == 'AdminPassword'][0]
        self.assertIsNone(admin['value'])
        self.assertIsNone(admin['default'])

    def test_role(self):
        self.assertEqual(
            ['AdminPassword', 'ControllerCount', 'ControllerSchedulerHints',
             'ControllerServices', 'KeystoneBaseOption', 'KeystoneDebug',
             'KeystoneEnabledOptions', 'KeystoneFernetMaxActiveKeys',
             'KeystoneNotificationDrivers', 'KeystoneTokenProvider',
             'KeystoneWorkers', 'NtpServer', 'ServiceTimeout'],
            self.names(role='Controller'))
        # ComputeHCI's count and template are not Compute's.
        self.assertEqual(
            ['ComputeCount', 'ComputeServices', 'CustomComputeOption',
             'NtpServer', 'ServiceTimeout'], self.names(role='Compute'))
        self.assertEqual(['ComputeHCICount', 'NovaComputeOption'],
                         self.names(role='computehci'))
        self.assertEqual(
            ['ComputeHCICount', 'Hostname', 'NodeIndex', 'NovaComputeOption',
             'ServiceNetMap'], self.names(role='ComputeHCI', show_all=True))

    def test_unknown_role(self):
        with self.assertRaisesRegex(
                exceptions.CommandError,
                r'no role Storage; its roles: Compute, ComputeHCI, '
                r'Controller\.'):
            parameters.rows(self.schema, self.values, role='Storage')


def synthetic(roles=12, services=150, own=10):
    """A THT-sized validation result and its fields: every role's service
    chain holds every service, each service template declares the five
    common parameters and ``own`` of its own."""
    registry = {}
    files = {}
    text = ('A parameter of this service, described in about as many words '
            'as THT describes its parameters.')
    common = {n: {'Type': 'Json', 'Description': text, 'NoEcho': 'false',
                  'Label': n, 'Default': {}} for n in plan.COMMON}

    def service(i):
        path = 'deployment/service%03d/service%03d.yaml' % (i, i)
        kind = 'OS::TripleO::Services::S%03d' % i
        registry[kind] = plan.BASE + path
        declared = dict(common)
        for j in range(own):
            name = 'Service%03dOption%02d' % (i, j)
            declared[name] = {'Type': 'String', 'Description': text,
                              'NoEcho': 'false', 'Label': name,
                              'Default': 'x' * 8}
        files[plan.BASE + path] = json.dumps(plan.hot({
            n: plan.param('string', 'x') for n in declared}))
        return kind, {'Type': kind, 'Description': '',
                      'Parameters': declared}

    chains = [service(i) for i in range(services)]
    nested = {}
    for r in range(roles):
        role = 'Role%02d' % r
        nested[role + 'ServiceChain'] = plan.generated(
            'OS::Heat::ResourceChain',
            {str(i): dict(stack) for i, (_, stack) in enumerate(chains)})
    root = {'Parameters': {}, 'NestedParameters': nested,
            'Environment': {'resource_registry': registry,
                            'parameter_defaults': {}}}
    return root, {'template': plan.hot({}), 'files': files}


class TestLargeTree(unittest.TestCase):

    def test_deduped(self):
        heat, given = synthetic(roles=4, services=30, own=3)
        schema = plan.expand(parameters.schema(heat, given, plan.BASE))
        self.assertEqual(5 + 30 * 3, len(schema))
        option = schema['Service007Option02']
        self.assertEqual(['deployment/service007/service007.yaml'],
                         option['templates'])
        self.assertEqual(['Role%02dServiceChain' % r for r in range(4)],
                         option['resources'])
        self.assertEqual(30, len(schema['ServiceData']['templates']))
