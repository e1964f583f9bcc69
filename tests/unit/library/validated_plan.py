"""A small THT-like plan and Heat's validation of it: what the tests of
parameters (schema, rows) and parameter_values (check, parse_*) read.

The validation results are handmade the way Heat 27 builds them
(heat/engine/api.py format_validate_parameter, heat/engine/stack.py
get_nested_parameters): each nested stack's ``Type`` is the type its parent
gave the resource, a parameter set by parameter_defaults has that value as
its ``Default``, a value the parent passes shows as ``Value``.
"""

import copy
import json

from tripleoplanclient.library import parameters

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
