"""A plan's parameters from Heat's template validation: flattened, shown,
checked as Heat checks them, and read from the command line.

The validation results are handmade the way Heat 27 builds them
(heat/engine/api.py format_validate_parameter, heat/engine/stack.py
get_nested_parameters): each nested stack's ``Type`` is the type its parent
gave the resource, a parameter set by parameter_defaults has that value as
its ``Default``, a value the parent passes shows as ``Value``.
"""

import copy
import datetime
import json
import math
import unittest

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import parameters

BASE = 'http://swift.test/v1/AUTH_t/overcloud/'
SECRET = 'Sw0rdfish-S3cret'
HEAT_TYPES = {'string': 'String', 'number': 'Number',
              'comma_delimited_list': 'CommaDelimitedList', 'json': 'Json',
              'boolean': 'Boolean'}
# HOT constraint -> the keys format_validate_parameter gives it.
HEAT_CONSTRAINTS = {'length': ('MinLength', 'MaxLength'),
                    'range': ('MinValue', 'MaxValue'),
                    'modulo': ('Step', 'Offset')}
KEYSTONE = 'OS::TripleO::Services::Keystone'
NTP = 'OS::TripleO::Services::Ntp'
CHAIN_OVERRIDE = 'user-files/home/stack/my templates/compute-services.yaml'


def param(kind, default=None, **extra):
    out = {'type': kind}
    if default is not None:
        out['default'] = default
    out.update(extra)
    return out


def hot(params, resources=None):
    return {'heat_template_version': 'wallaby', 'parameters': params,
            'resources': resources or {}}


COMMON = {'ServiceData': param('json'),
          'ServiceNetMap': param('json', {}),
          'EndpointMap': param('json', {}),
          'RoleName': param('string', ''),
          'RoleParameters': param('json', {})}
NODE = {'ServiceNetMap': param('json', {}), 'Hostname': param('string'),
        'NodeIndex': param('number', 0)}
FROM_ROLE = {'ServiceData': {'get_param': 'ServiceData'},
             'ServiceNetMap': {'get_param': 'ServiceNetMap'},
             'EndpointMap': {'get_param': 'EndpointMap'},
             'RoleName': {'get_param': 'RoleName'},
             'RoleParameters': {'get_param': 'RoleParameters'}}


def group(role, resource_def=None):
    return {'type': 'OS::Heat::ResourceGroup', 'properties': {
        'count': {'get_param': role + 'Count'},
        'resource_def': resource_def or {
            'type': 'OS::TripleO::' + role,
            'properties': {'ServiceNetMap': {}, 'Hostname': role + '-%index%',
                           'NodeIndex': '%index%'}}}}


def chain(role):
    return {'type': 'OS::TripleO::%sServices' % role, 'properties': {
        'Services': {'get_param': role + 'Services'}, 'ServiceData': {},
        'ServiceNetMap': {},
        'EndpointMap': {'get_attr': ['EndpointMapData', 'value']},
        'RoleName': role, 'RoleParameters': {}}}


CHAIN_TEMPLATE = hot(dict(COMMON, Services=param('comma_delimited_list')), {
    'ServiceChain': {'type': 'OS::Heat::ResourceChain', 'properties': {
        'resources': {'get_param': 'Services'},
        'resource_properties': FROM_ROLE}}})

TEMPLATES = {
    'overcloud.yaml': hot({
        'ControllerCount': param('number', 1, constraints=[
            {'range': {'min': 0}}]),
        'ComputeCount': param('number', 1, constraints=[
            {'range': {'min': 0, 'max': 100}}]),
        'ComputeHCICount': param('number', 0),
        'ControllerServices': param(
            'comma_delimited_list', [KEYSTONE, NTP], constraints=[
                {'length': {'min': 1}},
                {'allowed_values': [KEYSTONE, NTP]}]),
        'ComputeServices': param('comma_delimited_list', [NTP]),
        'NtpServer': param('comma_delimited_list', '',
                           description='NTP servers'),
        'AdminPassword': param('string', hidden=True, constraints=[
            {'length': {'min': 8}}]),
        'CloudName': param('string', 'overcloud.localdomain', constraints=[
            {'allowed_pattern': '[a-z0-9.-]+',
             'description': 'A lower-case DNS name.'},
            {'length': {'max': 64}}]),
        'Region': param('string', 'east', constraints=[
            {'allowed_pattern': 'east|east-2'}]),
        'EnableDebug': param('boolean', False),
        'EnableFips': param('boolean', False, constraints=[
            {'allowed_values': ['false']}]),
        'ApiWorkers': param('number', 1, constraints=[
            {'allowed_values': [1, 2, 4, '8']}]),
        'NodeCreateBatchSize': param('number', 30, constraints=[
            {'modulo': {'step': 5, 'offset': 0}}]),
        'ImageTag': param('string', 'latest'),
        'ExtraConfig': param('json', {}),
        'OvercloudControllerFlavor': param('string', 'baremetal',
                                           constraints=[
                                               {'custom_constraint':
                                                'nova.flavor'}]),
    }, {
        'Controller': group('Controller'),
        'Compute': group('Compute'),
        # Its members' properties are a function: only Heat's Values tell.
        'ComputeHCI': group('ComputeHCI', {
            'get_param': 'ComputeHCIResourceDef'}),
        'ControllerServiceChain': chain('Controller'),
        'ComputeServiceChain': chain('Compute'),
        'Networks': {'type': 'OS::TripleO::Net::Ctlplane',
                     'properties': {'NetworkName': 'ctlplane'}},
    }),
    'roles/controller.yaml': hot(dict(NODE, ControllerSchedulerHints=param(
        'json', {}, description='Scheduler hints of the controllers'))),
    'roles/compute.yaml': hot(dict(NODE, NovaComputeOption=param(
        'string', 'y'))),
    'user-files/custom-compute.yaml': hot(dict(NODE, CustomComputeOption=param(
        'string', 'x'))),
    'common/services/controller-role.yaml': CHAIN_TEMPLATE,
    CHAIN_OVERRIDE: CHAIN_TEMPLATE,
    'deployment/keystone/keystone.yaml': hot(dict(
        COMMON,
        KeystoneWorkers=param('number', 0, description='Keystone workers',
                              constraints=[{'range': {'min': 0, 'max': 64}}]),
        KeystoneDebug=param('boolean', False),
        AdminPassword=param('string', hidden=True,
                            description='The admin password'),
        KeystoneTokenProvider=param('string', 'fernet', constraints=[
            {'allowed_values': ['fernet', 'uuid']}]),
        KeystoneFernetMaxActiveKeys=param('number', 5, constraints=[
            {'modulo': {'step': 2, 'offset': 1}}]),
        ServiceTimeout=param('number', 30, constraints=[
            {'range': {'max': 100}}]),
        KeystoneNotificationDrivers=param(
            'comma_delimited_list', ['messagingv2'], constraints=[
                {'allowed_values': ['messagingv2', 'noop', 1]}]),
        KeystoneEnabledOptions=param('json', {}, constraints=[
            {'length': {'max': 2}}]),
    ), {'KeystoneBase': {
        'type': BASE + 'deployment/keystone/keystone-base.yaml',
        'properties': {'ServiceData': {'get_param': 'ServiceData'},
                       'EndpointMap': {'get_param': 'EndpointMap'}}}}),
    'deployment/keystone/keystone-base.yaml': hot({
        'ServiceData': param('json'), 'EndpointMap': param('json', {}),
        'KeystoneBaseOption': param('string', 'x')}),
    'deployment/timesync/timesync.yaml': hot(dict(
        COMMON,
        NtpServer=param('comma_delimited_list', ['pool.ntp.org']),
        ServiceTimeout=param('number', 30, constraints=[
            {'range': {'max': 50}}]))),
    'network/ctlplane.yaml': hot({
        'NetworkName': param('string'),
        'ControlPlaneSubnetCidr': param('string', '24')}),
}

ENVIRONMENT = {
    'parameter_defaults': {'AdminPassword': SECRET, 'KeystoneWorkers': 8,
                           'ControllerCount': 3,
                           'NtpServer': ['time.example.com']},
    'parameters': {},
    'resource_registry': {
        'OS::TripleO::Controller': BASE + 'roles/controller.yaml',
        'OS::TripleO::Compute': BASE + 'user-files/custom-compute.yaml',
        # a type mapped to a type
        'OS::TripleO::ComputeHCI': 'OS::TripleO::HCI',
        'OS::TripleO::HCI': BASE + 'roles/compute.yaml',
        'OS::TripleO::ControllerServices':
            BASE + 'common/services/controller-role.yaml',
        'OS::TripleO::ComputeServices':
            BASE + 'common/services/controller-role.yaml',
        KEYSTONE: BASE + 'deployment/keystone/keystone.yaml',
        NTP: 'OS::TripleO::Services::Timesync',
        'OS::TripleO::Services::Timesync':
            BASE + 'deployment/timesync/timesync.yaml',
        # a wildcard mapping
        'OS::TripleO::Net::*': 'OS::TripleO::Network::*',
        'OS::TripleO::Network::Ctlplane': BASE + 'network/ctlplane.yaml',
        'resources': {
            # a top-level resource's own mapping (the path quoted, as
            # heatclient makes URLs)
            'ComputeServiceChain': {
                'OS::TripleO::ComputeServices': BASE + CHAIN_OVERRIDE.replace(
                    ' ', '%20')},
            # A top-level resource's only: the members 0 of the service
            # chains do not see it. (Heat 27 cannot validate a type mapped
            # for a nested resource: get_child_environment's remove_item
            # walks the mapping's path in the narrowed registry.)
            '0': {KEYSTONE: BASE + 'unused.yaml'},
            '*': {'hooks': 'pre-create'},
        }}}


def heat_parameter(name, schema, value=None):
    """A parameter as format_validate_parameter shows it."""
    out = {'Type': HEAT_TYPES[schema['type']],
           'Description': schema.get('description', ''),
           'NoEcho': 'true' if schema.get('hidden') else 'false',
           'Label': name}
    default = ENVIRONMENT['parameter_defaults'].get(name,
                                                    schema.get('default'))
    if default is not None:
        out['Default'] = default
    if value:
        out['Value'] = value
    notes = []
    for constraint in schema.get('constraints', ()):
        for key, data in constraint.items():
            if key == 'description':
                notes.append(data)
            elif key in HEAT_CONSTRAINTS:
                for heat_key, part in zip(HEAT_CONSTRAINTS[key],
                                          ('min', 'max') if key != 'modulo'
                                          else ('step', 'offset')):
                    if part in data:
                        out[heat_key] = data[part]
            else:
                out[''.join(w.title() for w in key.split('_'))] = data
    if notes:
        out['ConstraintDescription'] = ' '.join(notes)
    return out


def node(kind, path, values=None, nested=None):
    out = {'Type': kind, 'Description': '', 'Parameters': {
        name: heat_parameter(name, schema, (values or {}).get(name))
        for name, schema in TEMPLATES[path]['parameters'].items()}}
    if nested:
        out['NestedParameters'] = nested
    return out


def generated(kind, nested):
    return {'Type': kind, 'Description': '', 'Parameters': {},
            'NestedParameters': nested}


def services(role):
    passed = {'ServiceData': {'net_cidr_map': None},
              'ServiceNetMap': {'KeystoneAdminApiNetwork': 'ctlplane'},
              'RoleName': role}
    keystone = node(KEYSTONE, 'deployment/keystone/keystone.yaml', passed, {
        'KeystoneBase': node(BASE + 'deployment/keystone/keystone-base.yaml',
                             'deployment/keystone/keystone-base.yaml',
                             {'ServiceData': {'net_cidr_map': None}})})
    ntp = node(NTP, 'deployment/timesync/timesync.yaml', passed)
    return {'0': keystone, '1': ntp} if role == 'Controller' else {'0': ntp}


def validation():
    def chain_values(role):
        # What the root passes that Heat knows while validating: not the
        # EndpointMap (a get_attr), not an empty RoleParameters.
        return {'Services': [KEYSTONE], 'ServiceData': {'a': None},
                'ServiceNetMap': {'a': 'b'}, 'RoleName': role}
    return {
        'Description': 'overcloud',
        'Parameters': node('', 'overcloud.yaml')['Parameters'],
        'NestedParameters': {
            'Controller': generated('OS::Heat::ResourceGroup', {'0': node(
                'OS::TripleO::Controller', 'roles/controller.yaml',
                {'Hostname': 'Controller-0', 'NodeIndex': '0'})}),
            'Compute': generated('OS::Heat::ResourceGroup', {'0': node(
                'OS::TripleO::Compute', 'user-files/custom-compute.yaml',
                {'Hostname': 'Compute-0', 'NodeIndex': '0'})}),
            'ComputeHCI': generated('OS::Heat::ResourceGroup', {'0': node(
                'OS::TripleO::ComputeHCI', 'roles/compute.yaml',
                {'Hostname': 'hci-0', 'NodeIndex': '0',
                 'ServiceNetMap': {'a': 'b'}})}),
            'ControllerServiceChain': node(
                'OS::TripleO::ControllerServices',
                'common/services/controller-role.yaml',
                chain_values('Controller'),
                {'ServiceChain': generated('OS::Heat::ResourceChain',
                                           services('Controller'))}),
            'ComputeServiceChain': node(
                'OS::TripleO::ComputeServices', CHAIN_OVERRIDE,
                chain_values('Compute'),
                {'ServiceChain': generated('OS::Heat::ResourceChain',
                                           services('Compute'))}),
            'Networks': node('OS::TripleO::Net::Ctlplane',
                             'network/ctlplane.yaml',
                             {'NetworkName': 'ctlplane'}),
        },
        'Environment': copy.deepcopy(ENVIRONMENT),
    }


def fields():
    files = {BASE + path.replace(' ', '%20'): json.dumps(template)
             for path, template in TEMPLATES.items()
             if path != 'overcloud.yaml'}
    files[BASE + 'plan-environment.yaml'] = json.dumps(
        {'parameter_defaults': {'AdminPassword': SECRET}})
    return {'template': copy.deepcopy(TEMPLATES['overcloud.yaml']),
            'files': files,
            'environment_files': [BASE + 'plan-environment.yaml']}


def make_schema(**kwargs):
    return parameters.schema(validation(), fields(), BASE, **kwargs)


SETTABLE = {
    'AdminPassword', 'ApiWorkers', 'CloudName', 'ComputeCount',
    'ComputeHCICount', 'ComputeServices', 'ControlPlaneSubnetCidr',
    'ControllerCount', 'ControllerSchedulerHints', 'ControllerServices',
    'CustomComputeOption', 'EnableDebug', 'EnableFips', 'ExtraConfig',
    'ImageTag', 'KeystoneBaseOption', 'KeystoneDebug',
    'KeystoneEnabledOptions', 'KeystoneFernetMaxActiveKeys',
    'KeystoneNotificationDrivers', 'KeystoneTokenProvider',
    'KeystoneWorkers', 'NodeCreateBatchSize', 'NovaComputeOption',
    'NtpServer', 'OvercloudControllerFlavor', 'Region', 'ServiceTimeout'}
FED = {'EndpointMap', 'Hostname', 'NetworkName', 'NodeIndex', 'RoleName',
       'RoleParameters', 'ServiceData', 'ServiceNetMap', 'Services'}


def expand(schema):
    """The schema's entries with paths for places and every key there."""
    paths = [t['path'] for t in schema['templates']]
    out = {}
    for name, entry in schema['parameters'].items():
        entry = dict({'default': None, 'hidden': False, 'top': False,
                      'fed': False, 'resources': []}, **entry)
        entry['resources'] = sorted(set(entry['resources']).union(
            *(schema['templates'][i]['resources']
              for i in entry['templates'])))
        entry['templates'] = [paths[i] for i in entry['templates']]
        entry['variants'] = [dict(v, templates=[paths[i] for i in
                                                v['templates']])
                             for v in entry.get('variants', ())]
        out[name] = entry
    return out


class TestSchema(unittest.TestCase):

    def setUp(self):
        self.schema = make_schema()
        self.params = expand(self.schema)

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
        self.assertEqual(SETTABLE | FED, set(self.params))
        # Declared by five templates, under four stacks of each chain.
        self.assertEqual(
            ['common/services/controller-role.yaml',
             'deployment/keystone/keystone-base.yaml',
             'deployment/keystone/keystone.yaml',
             'deployment/timesync/timesync.yaml', CHAIN_OVERRIDE],
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
        self.assertIn(CHAIN_OVERRIDE, templates('Services'))
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
        self.assertEqual(8, validation()['NestedParameters'][
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
        self.assertNotIn(SECRET, json.dumps(self.schema))

    def test_hidden_default_masked_even_when_the_template_has_one(self):
        data = validation()
        data['Parameters']['AdminPassword']['Default'] = 'guest'
        data['Environment']['parameter_defaults'].pop('AdminPassword')
        schema = parameters.schema(data, fields(), BASE)
        self.assertEqual(parameters.MASK,
                         schema['parameters']['AdminPassword']['default'])
        self.assertIs(True, schema['parameters']['AdminPassword']['hidden'])
        self.assertNotIn('guest', json.dumps(schema))

    def test_fed_by_the_parent(self):
        self.assertEqual(FED, {n for n, e in self.params.items()
                               if e['fed']})
        # EndpointMap has no Value anywhere (a get_attr when Heat
        # validates): the parents' templates pass it.
        declared = [p['EndpointMap'] for p in _all_parameters(validation())
                    if 'EndpointMap' in p]
        self.assertEqual(6, len(declared))
        self.assertFalse([p for p in declared if 'Value' in p])

    def test_fed_from_values_when_the_parent_is_a_function(self):
        # ComputeHCI's members get a function: Hostname is known passed
        # there only from Heat's Value.
        data = validation()
        hci = data['NestedParameters']['ComputeHCI']['NestedParameters']['0']
        del hci['Parameters']['Hostname']['Value']
        schema = parameters.schema(data, fields(), BASE)
        self.assertFalse(expand(schema)['Hostname']['fed'])

    def test_declared_by_no_template(self):
        # A stack Heat generates (no template) declaring parameters: they
        # keep the top-level resource they are under.
        data = validation()
        data['NestedParameters']['Storage'] = generated('OS::Heat::Thing', {})
        data['NestedParameters']['Storage']['Parameters'] = {
            'ControllerThing': {'Type': 'String', 'NoEcho': 'false',
                                'Description': 'made by Heat'}}
        schema = parameters.schema(data, fields(), BASE,
                                   roles=['Storage', 'Controller'])
        self.assertEqual({'type': 'String', 'description': 'made by Heat',
                          'templates': [], 'resources': ['Storage']},
                         schema['parameters']['ControllerThing'])
        self.assertEqual(['ControllerThing'], [
            r['name'] for r in parameters.rows(schema, {}, role='Storage')])

    def test_without_fields(self):
        params = expand(parameters.schema(validation(), None, BASE))
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
                         make_schema(roles=['Controller'])['roles'])

    def test_json_round_trip(self):
        self.assertEqual(self.schema, json.loads(json.dumps(self.schema)))
        self.assertEqual('overcloud.yaml', self.schema['template'])

    def test_heat_error(self):
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'could not validate.*Property error'):
            parameters.schema({'Error': 'Property error: x'}, fields(), BASE)

    def test_a_wrapped_type_is_the_builtin_inside_its_wrapper(self):
        # The mapping a template came from is not seen inside it
        # (environment.get_child_environment's item_to_remove): the group
        # inside the wrapper is Heat's own, whose members get its
        # resource_def properties.
        templates = {
            'group-wrapper.yaml': hot({'GroupSize': param('number', 1)}, {
                'Group': {'type': 'OS::Heat::ResourceGroup', 'properties': {
                    'resource_def': {'type': 'OS::TripleO::Member',
                                     'properties': {'Given': 1}}}}}),
            'member.yaml': hot({'Given': param('number'),
                                'MemberOption': param('string', 'm')}),
            'root.yaml': hot({}, {'Pool': {
                'type': 'OS::Heat::ResourceGroup', 'properties': {}}}),
        }
        heat = {'Parameters': {}, 'Environment': {'resource_registry': {
            'OS::Heat::ResourceGroup': BASE + 'group-wrapper.yaml',
            'OS::TripleO::Member': BASE + 'member.yaml'}},
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
        files = {BASE + k: json.dumps(v) for k, v in templates.items()
                 if k != 'root.yaml'}
        schema = expand(parameters.schema(
            heat, {'template': templates['root.yaml'], 'files': files}, BASE,
            template='root.yaml'))
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
        self.schema = make_schema()
        self.values = dict(ENVIRONMENT['parameter_defaults'])

    def names(self, **kwargs):
        return [r['name'] for r in parameters.rows(self.schema, self.values,
                                                   **kwargs)]

    def test_default_view_and_all(self):
        self.assertEqual(sorted(SETTABLE), self.names())
        self.assertEqual(sorted(SETTABLE | FED), self.names(show_all=True))

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
        data = validation()
        data['Parameters']['AdminPassword']['Default'] = 'guest'
        data['Environment']['parameter_defaults'].pop('AdminPassword')
        schema = parameters.schema(data, fields(), BASE)
        rows = parameters.rows(schema, self.values, show_all=True)
        admin = [r for r in rows if r['name'] == 'AdminPassword'][0]
        self.assertEqual(parameters.MASK, admin['value'])
        self.assertEqual(parameters.MASK, admin['default'])
        self.assertNotIn(SECRET, json.dumps(rows))
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

    def test_undeclared(self):
        self.assertEqual(['NtpServers'], parameters.undeclared(
            self.schema, dict(self.values, NtpServers=['x'])))


class TestCheck(unittest.TestCase):

    def setUp(self):
        self.schema = make_schema()

    def ok(self, name, value):
        return parameters.check(self.schema, {name: value})[name]

    def refused(self, name, value, *patterns):
        with self.assertRaises(exceptions.CommandError) as ctx:
            parameters.check(self.schema, {name: value})
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
        self.assertEqual([KEYSTONE], self.ok('ControllerServices', KEYSTONE))
        self.refused('ControllerServices', [KEYSTONE, 'OS::Bogus'],
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
                         parameters.check(self.schema,
                                          {'ControllerCount': None}))

    def test_every_problem_at_once(self):
        with self.assertRaises(exceptions.CommandError) as ctx:
            parameters.check(self.schema, {
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
            self.assertIn(parameters.MASK, message)
        # Not even its length.
        message = self.refused('AdminPassword', 'short', 'length out of')
        self.assertNotIn('5', message)
        self.assertEqual(SECRET, self.ok('AdminPassword', SECRET))

    def test_result_serialisable(self):
        result = parameters.check(self.schema, {
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
            parameters.parse_assignments([
                'Count=3', 'Flag=true', 'List=[a,b]', 'Map={a: 1}',
                'Text="3"', 'Empty=', 'Url=http://x/y?a=b']))

    def test_null_and_comment(self):
        self.assertEqual({'A': None, 'B': None, 'C': None},
                         parameters.parse_assignments(['A=', 'B=~',
                                                       'C= null ']))
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'value given for A is not valid YAML'):
            parameters.parse_assignments(['A=#blue'])

    def test_malformed(self):
        for item in ('NoEquals', '=3', ' Count=3'):
            with self.assertRaises(exceptions.CommandError) as ctx:
                parameters.parse_assignments(['A=1', item])
            self.assertIn('assignment 2 (%r)' % item, str(ctx.exception))

    def test_malformed_secret_not_shown(self):
        with self.assertRaises(exceptions.CommandError) as ctx:
            parameters.parse_assignments(['AdminPassword:hunter2'])
        self.assertNotIn('hunter2', str(ctx.exception))
        self.assertIn('assignment 1', str(ctx.exception))

    def test_twice(self):
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Count is given twice'):
            parameters.parse_assignments(['Count=1', 'Count=2'])

    def test_bad_yaml(self):
        with self.assertRaises(exceptions.CommandError) as ctx:
            parameters.parse_assignments(['Map={a: s3cr3t'])
        self.assertIn('value given for Map is not valid YAML',
                      str(ctx.exception))
        self.assertNotIn('s3cr3t', str(ctx.exception))

    def test_string_parameters_keep_their_text(self):
        schema = make_schema()
        self.assertEqual(
            {'ImageTag': '16.10', 'Region': 'yes', 'CloudName': '0755',
             'KeystoneTokenProvider': 'uuid', 'ComputeCount': 493,
             'EnableDebug': True, 'NtpServer': 1.5},
            parameters.parse_assignments([
                'ImageTag=16.10', 'Region= yes', 'CloudName=0755',
                'KeystoneTokenProvider="uuid"', 'ComputeCount=0755',
                'EnableDebug=yes', 'NtpServer=1.50'], schema))
        # Then checked as given.
        self.assertEqual({'ImageTag': '16.10'}, parameters.check(
            schema, parameters.parse_assignments(['ImageTag=16.10'],
                                                 schema)))

    def test_file(self):
        self.assertEqual({'A': 1, 'B': [1]},
                         parameters.parse_file(b'A: 1\nB: [1]\n', 'f.yaml'))
        self.assertEqual({'A': 1, 'B': 2}, parameters.parse_file(
            b'parameter_defaults: {A: 1}\nparameters: {B: 2}\n', 'f.yaml'))
        self.assertEqual({}, parameters.parse_file(b'', 'f.yaml'))
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
                parameters.parse_file(data, 'f.yaml')


def synthetic(roles=12, services=150, own=10):
    """A THT-sized validation result and its fields: every role's service
    chain holds every service, each service template declares the five
    common parameters and ``own`` of its own."""
    registry = {}
    files = {}
    text = ('A parameter of this service, described in about as many words '
            'as THT describes its parameters.')
    common = {n: {'Type': 'Json', 'Description': text, 'NoEcho': 'false',
                  'Label': n, 'Default': {}} for n in COMMON}

    def service(i):
        path = 'deployment/service%03d/service%03d.yaml' % (i, i)
        kind = 'OS::TripleO::Services::S%03d' % i
        registry[kind] = BASE + path
        declared = dict(common)
        for j in range(own):
            name = 'Service%03dOption%02d' % (i, j)
            declared[name] = {'Type': 'String', 'Description': text,
                              'NoEcho': 'false', 'Label': name,
                              'Default': 'x' * 8}
        files[BASE + path] = json.dumps(hot({n: param('string', 'x')
                                             for n in declared}))
        return kind, {'Type': kind, 'Description': '',
                      'Parameters': declared}

    chains = [service(i) for i in range(services)]
    nested = {}
    for r in range(roles):
        role = 'Role%02d' % r
        nested[role + 'ServiceChain'] = generated(
            'OS::Heat::ResourceChain',
            {str(i): dict(stack) for i, (_, stack) in enumerate(chains)})
    root = {'Parameters': {}, 'NestedParameters': nested,
            'Environment': {'resource_registry': registry,
                            'parameter_defaults': {}}}
    return root, {'template': hot({}), 'files': files}


class TestLargeTree(unittest.TestCase):

    def test_deduped(self):
        heat, given = synthetic(roles=4, services=30, own=3)
        schema = expand(parameters.schema(heat, given, BASE))
        self.assertEqual(5 + 30 * 3, len(schema))
        option = schema['Service007Option02']
        self.assertEqual(['deployment/service007/service007.yaml'],
                         option['templates'])
        self.assertEqual(['Role%02dServiceChain' % r for r in range(4)],
                         option['resources'])
        self.assertEqual(30, len(schema['ServiceData']['templates']))
