"""Roles: the plan's and those its templates offer (counts, networks,
tags), one role in detail, malformed input; THT 18.0.0 when THT_DIR is
set."""

import glob
import json
import os
import unittest

from osc_lib import exceptions

from tripleoplanclient.library import roles

ROLES = b"""\
- name: Controller
  description: |
    Runs the control plane:
    databases, messaging.
  CountDefault: 1
  tags: [primary, controller]
  networks:
    External: {subnet: external_subnet}
    InternalApi: {subnet: internal_api_leaf1}
  default_route_networks: [External]
  HostnameFormatDefault: '%stackname%-ctl-%index%'
  ServicesDefault:
    - OS::TripleO::Services::Keystone
    - OS::TripleO::Services::MySQL
  update_serial: 1
- name: ComputeEdge
  description: Compute nodes at the edge
  networks: [InternalApi, Tenant]
  uses_deprecated_params: true
  deprecated_param_ips: EdgeIPs
  built: 2024-05-01
"""
# Offered: Controller (unlike the plan's), and two roles the plan lacks.
OFFERED = {
    'roles/Controller.yaml': b'- name: Controller\n  CountDefault: 1\n',
    'roles/Storage.yaml': (b'- name: Storage\n  CountDefault: 3\n'
                           b'  tags: [storage]\n'
                           b'  networks: [Storage]\n'),
    'roles/alpha.yaml': b'- name: alpha\n  description: " first "\n',
}
NETWORKS = b"""\
- name: External
  name_lower: external
  subnets: {external_subnet: {}}
- name: InternalApi
  name_lower: internal_api
  subnets: {internal_api_subnet: {}}
- name: Tenant
  enabled: false
"""
DATA = ('roles_data.yaml', ROLES)
NET = ('network_data.yaml', NETWORKS)


def by_name(rows):
    return {row['name']: row for row in rows}


class TestListing(unittest.TestCase):

    def test_plan_roles_in_their_order_then_offered_ones_by_name(self):
        rows = roles.listing(DATA, OFFERED)
        self.assertEqual(['Controller', 'ComputeEdge', 'alpha', 'Storage'],
                         [r['name'] for r in rows])
        self.assertEqual([True, True, False, False],
                         [r['in_plan'] for r in rows])
        self.assertEqual(list(roles.FIELDS), list(rows[0]))

    def test_count_from_count_default_else_zero(self):
        rows = by_name(roles.listing(DATA, OFFERED))
        self.assertEqual((1, 'CountDefault', 'ControllerCount'), (
            rows['Controller']['count'], rows['Controller']['count_from'],
            rows['Controller']['count_parameter']))
        self.assertEqual((0, 'default'), (rows['ComputeEdge']['count'],
                                          rows['ComputeEdge']['count_from']))

    def test_a_parameter_wins_even_zero_or_digits_in_a_string(self):
        rows = by_name(roles.listing(DATA, OFFERED, {
            'ControllerCount': 0, 'ComputeEdgeCount': ' 12 '}))
        self.assertEqual((0, 'parameter'), (rows['Controller']['count'],
                                            rows['Controller']['count_from']))
        self.assertEqual(12, rows['ComputeEdge']['count'])

    def test_offered_only_roles_have_no_count(self):
        rows = by_name(roles.listing(DATA, OFFERED, {'StorageCount': 2}))
        storage = rows['Storage']
        self.assertIsNone(storage['count'])
        self.assertIsNone(storage['count_from'])
        self.assertEqual('StorageCount', storage['count_parameter'])
        self.assertEqual('roles/Storage.yaml', storage['source'])
        self.assertEqual(
            ["StorageCount is set (2) but the role is not in the plan's "
             "roles data (roles_data.yaml): Heat ignores it."],
            storage['notes'])

    def test_source_is_the_offered_file_of_that_name(self):
        rows = by_name(roles.listing(DATA, OFFERED))
        self.assertEqual('roles/Controller.yaml',
                         rows['Controller']['source'])
        self.assertIsNone(rows['ComputeEdge']['source'])

    def test_networks_from_a_mapping_or_a_list(self):
        rows = by_name(roles.listing(DATA, OFFERED))
        self.assertEqual(['External', 'InternalApi'],
                         rows['Controller']['networks'])
        self.assertEqual(['InternalApi', 'Tenant'],
                         rows['ComputeEdge']['networks'])
        self.assertEqual([], rows['alpha']['networks'])

    def test_tags_with_those_rendering_adds_by_name(self):
        rows = by_name(roles.listing(DATA, OFFERED))
        self.assertEqual(['primary', 'controller'],
                         rows['Controller']['tags'])
        # Like THT's templates: a Compute* role is a compute role.
        self.assertEqual(['compute'], rows['ComputeEdge']['tags'])
        self.assertEqual([], rows['alpha']['tags'])

    def test_description_on_one_line(self):
        rows = by_name(roles.listing(DATA, OFFERED))
        self.assertEqual('Runs the control plane: databases, messaging.',
                         rows['Controller']['description'])
        self.assertEqual('first', rows['alpha']['description'])

    def test_networks_checked_against_the_network_data(self):
        rows = by_name(roles.listing(DATA, OFFERED, network_data=NET))
        self.assertEqual(
            ["subnet internal_api_leaf1 of network InternalApi is not in "
             "the plan's network data (network_data.yaml)."],
            rows['Controller']['notes'])
        self.assertEqual(
            ["network Tenant is not enabled in the plan's network data "
             "(network_data.yaml): its nodes are not attached to it."],
            rows['ComputeEdge']['notes'])
        # Offered only: nothing is deployed, nothing to warn about.
        self.assertEqual([], rows['Storage']['notes'])

    def test_no_network_data_object_means_no_networks(self):
        rows = by_name(roles.listing(
            DATA, OFFERED, network_data=('network_data_default.yaml', None)))
        self.assertEqual(
            ["the plan's network data (network_data_default.yaml) enables "
             "no network: its nodes are on the control plane only."],
            rows['ComputeEdge']['notes'])

    def test_results_are_json_data(self):
        rows = roles.listing(DATA, OFFERED, network_data=NET)
        self.assertEqual(rows, json.loads(json.dumps(rows)))
        detail = roles.show(DATA, OFFERED, 'ComputeEdge')
        self.assertEqual({'built': '2024-05-01'}, detail['other'])
        self.assertEqual(detail, json.loads(json.dumps(detail)))

    def test_other_keys_of_any_kind(self):
        data = ('r.yaml', b'- name: A\n  1: one\n  ImageDefault: img\n'
                          b'  labels: !!set {x: null}\n')
        role = roles.show(data, {}, 'A')
        self.assertEqual({'1': 'one', 'ImageDefault': 'img',
                          'labels': ['x']}, role['other'])
        self.assertEqual({}, role['deprecated'])

    def test_an_offered_file_named_after_another_role(self):
        offered = dict(OFFERED)
        offered['roles/Old.yaml'] = offered.pop('roles/Storage.yaml')
        rows = by_name(roles.listing(DATA, offered))
        self.assertEqual('roles/Old.yaml', rows['Storage']['source'])
        self.assertEqual(['offered by roles/Old.yaml (a file named after '
                          'another role).'], rows['Storage']['notes'])


class TestShow(unittest.TestCase):

    def test_a_plan_role_in_detail(self):
        role = roles.show(DATA, OFFERED, 'Controller', network_data=NET)
        self.assertTrue(role['in_plan'])
        self.assertEqual('Runs the control plane:\ndatabases, messaging.',
                         role['description'])
        self.assertEqual(['OS::TripleO::Services::Keystone',
                          'OS::TripleO::Services::MySQL'], role['services'])
        self.assertEqual('ServicesDefault', role['services_from'])
        self.assertEqual(('%stackname%-ctl-%index%', 'HostnameFormatDefault'),
                         (role['hostname_format'],
                          role['hostname_format_from']))
        self.assertEqual({'External': 'external_subnet',
                          'InternalApi': 'internal_api_leaf1'},
                         role['subnets'])
        self.assertEqual(['External'], role['default_route_networks'])
        self.assertEqual({'update_serial': 1}, role['other'])
        self.assertEqual({}, role['deprecated'])
        # The plan's Controller is not the one the templates offer.
        self.assertIs(True, role['customized'])

    def test_defaults_and_list_networks(self):
        role = roles.show(DATA, OFFERED, 'ComputeEdge', network_data=NET)
        self.assertEqual(([], 'default'),
                         (role['services'], role['services_from']))
        self.assertEqual('%stackname%-computeedge-%index%',
                         role['hostname_format'])
        # A listed network takes <name_lower>_subnet; a disabled one none.
        self.assertEqual({'InternalApi': 'internal_api_subnet',
                          'Tenant': None}, role['subnets'])
        self.assertEqual(['ControlPlane'], role['default_route_networks'])
        self.assertEqual(['compute'], role['tags_implied'])
        self.assertEqual({'uses_deprecated_params': True,
                          'deprecated_param_ips': 'EdgeIPs'},
                         role['deprecated'])
        self.assertIsNone(role['customized'])

    def test_parameters_override_services_and_hostname_format(self):
        role = roles.show(DATA, OFFERED, 'Controller', {
            'ControllerServices': 'OS::A, OS::B',
            'ControllerHostnameFormat': 'ctl-%index%',
            'ControllerCount': 3})
        self.assertEqual((['OS::A', 'OS::B'], 'parameter'),
                         (role['services'], role['services_from']))
        self.assertEqual(('ctl-%index%', 'parameter'),
                         (role['hostname_format'],
                          role['hostname_format_from']))
        self.assertEqual(3, role['count'])

    def test_an_offered_role_ignores_the_parameters(self):
        role = roles.show(DATA, OFFERED, 'Storage',
                          {'StorageHostnameFormat': 'x-%index%'})
        self.assertFalse(role['in_plan'])
        self.assertIsNone(role['count'])
        self.assertEqual(('%stackname%-storage-%index%', 'default'),
                         (role['hostname_format'],
                          role['hostname_format_from']))
        self.assertEqual(1, len(role['notes']))
        self.assertIn('StorageHostnameFormat is set', role['notes'][0])

    def test_unknown_role(self):
        with self.assertRaises(exceptions.CommandError) as ctx:
            roles.show(DATA, OFFERED, 'ComputeEgde', plan='overcloud')
        message = str(ctx.exception)
        self.assertTrue(message.startswith(
            "Plan overcloud: Role 'ComputeEgde' is neither in the plan's "
            "roles data (roles_data.yaml) nor offered by its templates "
            "(roles/*.yaml). Did you mean ComputeEdge?"), message)
        self.assertIn("The plan's roles: Controller, ComputeEdge. The "
                      "templates also offer: alpha, Storage.", message)

    def test_unknown_role_in_another_case(self):
        with self.assertRaisesRegex(exceptions.CommandError,
                                    r"'storage' .* Did you mean Storage\?"):
            roles.show(DATA, OFFERED, 'storage')


class TestMalformed(unittest.TestCase):

    def assertRefused(self, fragments, roles_data=ROLES, offered=None,
                      parameters=None, path='roles_data.yaml',
                      network_data=None):
        with self.assertRaises(exceptions.CommandError) as ctx:
            roles.listing((path, roles_data),
                          OFFERED if offered is None else offered,
                          parameters, network_data, plan='p1')
        message = str(ctx.exception)
        for fragment in fragments:
            self.assertIn(fragment, message)
        return message

    def test_roles_data_not_a_list(self):
        self.assertRefused(['Plan p1, my-roles.yaml: it must hold a YAML '
                            'list of roles.', 'plan amend'],
                           b'name: Controller\n', path='my-roles.yaml')

    def test_no_roles_data(self):
        self.assertRefused(['Plan p1, roles_data.yaml: the plan has no such '
                            'object', 'plan amend -r'], None)

    def test_not_yaml(self):
        self.assertRefused(['Plan p1, roles_data.yaml is not valid YAML '
                            '(line 2)'], b'- name: [a\n- x: }\n')

    def test_a_role_without_a_name(self):
        self.assertRefused(['roles_data.yaml: role #2 has no "name"'],
                           b'- name: A\n- CountDefault: 1\n')

    def test_a_role_that_is_not_a_mapping(self):
        self.assertRefused(['roles_data.yaml: item #1 is not a mapping'],
                           b'- Controller\n')

    def test_a_name_that_would_name_files_elsewhere(self):
        self.assertRefused(["role #1 has the name '../x', not a plain name"],
                           b'- name: ../x\n')

    def test_duplicate_names(self):
        self.assertRefused(['roles_data.yaml: role Compute appears twice '
                            '(items #1 and #3)'],
                           b'- name: Compute\n- name: B\n- name: Compute\n')

    def test_count_default_not_a_whole_number(self):
        for value in (b"'2'", b'two', b'true', b'-1', b'1.5', b''):
            self.assertRefused(['roles_data.yaml: role A has CountDefault',
                                'not a whole number'],
                               b'- name: A\n  CountDefault: %s\n' % value)

    def test_count_parameter_not_a_whole_number(self):
        for value in ('many', True, -2, None, 2.5, [1]):
            message = self.assertRefused(
                ['Plan p1, parameter ComputeEdgeCount: it is',
                 'not a whole number of ComputeEdge nodes'],
                parameters={'ComputeEdgeCount': value})
            self.assertIn(repr(value), message)

    def test_networks_of_the_wrong_shape(self):
        self.assertRefused(['role A: network Tenant gives no subnet'],
                           b'- name: A\n  networks:\n    Tenant: {}\n')
        self.assertRefused(['role A: networks must be a list of network '
                            'names or a mapping'],
                           b'- name: A\n  networks: Tenant\n')
        self.assertRefused(['role A: networks must be'],
                           b'- name: A\n  networks: [Tenant, {x: 1}]\n')

    def test_tags_and_services_are_lists_of_strings(self):
        self.assertRefused(['role A: tags must be a list of strings.'],
                           b'- name: A\n  tags: compute\n')
        self.assertRefused(['role A: ServicesDefault must be a list'],
                           b'- name: A\n  ServicesDefault: [1]\n')

    def test_an_offered_file_with_two_roles(self):
        offered = {'roles/Two.yaml': b'- name: A\n- name: B\n'}
        self.assertRefused(['Plan p1, roles/Two.yaml: a role file must hold '
                            'a list of one role; it holds 2.',
                            'deploy --templates'], offered=offered)

    def test_two_offered_files_with_one_role(self):
        offered = {'roles/A.yaml': b'- name: A\n',
                   'roles/B.yaml': b'- name: A\n'}
        self.assertRefused(['roles/B.yaml: role A is also offered by '
                            'roles/A.yaml.'], offered=offered)

    def test_a_malformed_offered_role(self):
        offered = {'roles/A.yaml': b'- name: A\n  CountDefault: x\n'}
        self.assertRefused(['roles/A.yaml: role A has CountDefault'],
                           offered=offered)

    def test_parameters_not_a_mapping(self):
        self.assertRefused(['Plan p1, parameters: they must be a mapping'],
                           parameters=['ComputeCount'])

    def test_network_data_not_a_list_of_named_networks(self):
        self.assertRefused(['Plan p1, network_data.yaml: it must hold a '
                            'YAML list of networks'],
                           network_data=('network_data.yaml',
                                         b'- vip: true\n'))


class TestPaths(unittest.TestCase):

    LISTING = {'roles_data.yaml': {}, 'network_data_default.yaml': {},
               'roles/Compute.yaml': {}, 'roles/README.rst': {},
               'roles/old/Compute.yaml': {}, 'other/roles/X.yaml': {},
               'roles/Controller.yaml': {}, 'my/roles.yaml': {}}

    def test_the_render_data_and_the_offered_role_files(self):
        self.assertEqual(
            ('roles_data.yaml', 'network_data_default.yaml',
             ['roles/Compute.yaml', 'roles/Controller.yaml']),
            roles.paths(self.LISTING))

    def test_the_recorded_inputs_win(self):
        self.assertEqual(
            ('my/roles.yaml', 'my/networks.yaml'),
            roles.paths(self.LISTING, {'roles_data': 'my/roles.yaml',
                                       'network_data': 'my/networks.yaml'}
                        )[:2])


@unittest.skipUnless(os.environ.get('THT_DIR'), 'THT_DIR is not set')
class TestTripleoHeatTemplates(unittest.TestCase):
    """tripleo-heat-templates 18.0.0 (facts checked by hand)."""

    PLAN = ['Controller', 'Compute', 'BlockStorage', 'ObjectStorage',
            'CephStorage']

    def setUp(self):
        root = os.environ['THT_DIR']

        def read(path):
            with open(os.path.join(root, path), 'rb') as f:
                return f.read()

        listing = [os.path.relpath(p, root) for p in glob.glob(
            os.path.join(root, '**'), recursive=True) if os.path.isfile(p)]
        roles_path, networks_path, offered = roles.paths(listing)
        self.assertEqual(('roles_data.yaml', 'network_data_default.yaml'),
                         (roles_path, networks_path))
        self.data = (roles_path, read(roles_path))
        self.offered = {p: read(p) for p in offered}
        self.networks = (networks_path, read(networks_path))
        self.sample = ('network_data.yaml', read(
            'network-data-samples/default-network-isolation.yaml'))

    def test_listing(self):
        rows = roles.listing(self.data, self.offered, {'ComputeCount': 2},
                             self.networks)
        self.assertEqual(55, len(self.offered))
        self.assertEqual(55, len(rows))
        self.assertEqual(self.PLAN, [r['name'] for r in rows[:5]])
        self.assertFalse(any(r['in_plan'] for r in rows[5:]))
        self.assertEqual('CellController', rows[5]['name'])
        rows = by_name(rows)
        controller = rows['Controller']
        self.assertEqual((1, 'CountDefault'), (controller['count'],
                                               controller['count_from']))
        self.assertEqual(['External', 'InternalApi', 'Storage',
                          'StorageMgmt', 'Tenant'], controller['networks'])
        self.assertEqual(['primary', 'controller', 'external_bridge'],
                         controller['tags'])
        self.assertEqual('roles/Controller.yaml', controller['source'])
        # THT 18's default network data is empty: no isolated network.
        self.assertIn('enables no network', controller['notes'][0])
        self.assertEqual((2, 'parameter'), (rows['Compute']['count'],
                                            rows['Compute']['count_from']))
        self.assertEqual((0, 'default'),
                         (rows['CephStorage']['count'],
                          rows['CephStorage']['count_from']))
        self.assertEqual('Cinder Block Storage node role',
                         rows['BlockStorage']['description'])
        # Offered only; its networks are a list in the role file.
        dpdk = rows['ComputeOvsDpdkSriov']
        self.assertEqual((None, 'roles/ComputeOvsDpdkSriov.yaml'),
                         (dpdk['count'], dpdk['source']))
        self.assertEqual(['InternalApi', 'Tenant', 'Storage'],
                         dpdk['networks'])
        self.assertEqual(['compute', 'dpdk', 'ovsdpdk'], dpdk['tags'])

    def test_show(self):
        controller = roles.show(self.data, self.offered, 'Controller',
                                network_data=self.sample)
        self.assertEqual(142, len(controller['services']))
        self.assertIn('OS::TripleO::Services::Pacemaker',
                      controller['services'])
        self.assertEqual('%stackname%-controller-%index%',
                         controller['hostname_format'])
        self.assertEqual('internal_api_subnet',
                         controller['subnets']['InternalApi'])
        self.assertEqual({'uses_deprecated_params': True,
                          'deprecated_param_extraconfig':
                              'controllerExtraConfig'},
                         controller['deprecated'])
        self.assertIs(False, controller['customized'])
        self.assertEqual([], controller['notes'])
        dpdk = roles.show(self.data, self.offered, 'ComputeOvsDpdkSriov',
                          network_data=self.sample)
        self.assertEqual({'InternalApi': 'internal_api_subnet',
                          'Tenant': 'tenant_subnet',
                          'Storage': 'storage_subnet'}, dpdk['subnets'])
        self.assertEqual(['ovsdpdk'], dpdk['tags_implied'])
        self.assertEqual('%stackname%-computeovsdpdksriov-%index%',
                         dpdk['hostname_format'])
