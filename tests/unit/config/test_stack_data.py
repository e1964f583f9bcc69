"""stack_data.read: what it reads from Heat, in how many requests (counted
from the fake Heat's log: every HTTP request, redirects too), and its
refusals."""

import unittest
from unittest import mock

from tests.unit.config import fake_heat
from tests.unit.config import reference
from tests.unit.config import stacks
from tripleoplanclient.common import exceptions
from tripleoplanclient.config import stack_data

# The stack (a name: Heat's redirect, then name/id), its environment,
# one listing of the deployments' resources, one of the software
# deployments, one metadata (every config on fake_server_id).
CONSTANT = 6


def read(cloud, stack=fake_heat.STACK):
    with reference.heat_of(cloud) as (heat, fake):
        return stack_data.read(heat, stack), fake.kinds()


class TestRequests(unittest.TestCase):

    def test_constant_whatever_the_deployments(self):
        for roles, per_role in ((1, 2), (2, 10), (3, 50)):
            with self.subTest(deployments=roles * per_role):
                cloud = stacks.many(roles, per_role)
                data, kinds = read(cloud)
                self.assertEqual(roles * per_role, len(data['deployments']))
                self.assertEqual(CONSTANT, sum(kinds.values()), kinds)
                self.assertEqual({'redirect': 1, 'stack': 1,
                                  'environment': 1, 'resources': 1,
                                  'deployments': 1, 'metadata': 1}, kinds)
                # its own count: the calls (Heat's redirect not seen)
                self.assertEqual(CONSTANT - 1, data['requests']['heat'])

    def test_tripleo_common_asks_twice_per_deployment(self):
        cloud = stacks.many(3, 50)
        _, kinds = reference.tripleo_common(cloud)
        self.assertEqual(150, kinds['deployment'])
        self.assertEqual(150, kinds['config'])

    def test_paths_and_numbers_cost_one_listing_each(self):
        data, kinds = read(stacks.overcloud())
        # + one listing for the path-valued references, two for the
        # integer-named group members, whatever their number
        self.assertEqual(CONSTANT + 3, sum(kinds.values()), kinds)
        self.assertEqual(4, kinds['resources'])
        names = sorted(set(d['name'] for d in data['deployments']))
        self.assertIn('ComputeSwapDeployments', names)
        self.assertIn('ComputeUpgradeInitDeployment', names)
        self.assertFalse([n for n in names if n.isdigit()])

    def test_metadata_of_a_crowded_server_id(self):
        # fake_server_id also holds another stack's 200 deployments: the
        # configs are asked one by one (one request per deployment)
        cloud = stacks.many(1, 10)
        for index in range(200):
            sd_id = 'other-%03d' % index
            cloud.deployments[sd_id] = dict(
                next(iter(cloud.deployments.values())), id=sd_id,
                config_id='other-config')
        data, kinds = read(cloud)
        self.assertNotIn('metadata', kinds)
        self.assertEqual(10, kinds['config'])
        self.assertEqual(CONSTANT - 1 + 10, sum(kinds.values()))
        self.assertEqual(10, len(data['deployments']))


class TestData(unittest.TestCase):

    def refused(self, heat, stack):
        with self.assertRaises(exceptions.CommandError) as caught:
            stack_data.read(heat, stack)
        return caught.exception

    def test_shape(self):
        cloud = stacks.overcloud()
        data, _ = read(cloud)
        self.assertEqual('overcloud', data['stack_name'])
        self.assertEqual(cloud.root, data['stack_id'])
        self.assertEqual(cloud.outputs, data['outputs'])
        # only what the inventory reads of the environment
        self.assertEqual({'parameter_defaults': {
            'ContainerCli': 'podman', 'AdminPassword': 'secret-admin-pw'}},
            data['environment'])
        self.assertEqual(
            ['no software deployment', 'server %s not in the outputs' %
             fake_heat.uuid_of('server/excluded')],
            [s['reason'] for s in data['skipped']])
        by_server = {}
        for dep in data['deployments']:
            by_server.setdefault(dep['server'], []).append(dep['name'])
            config = cloud.configs[dep['config']['id']]
            self.assertEqual(config, dep['config'])
        self.assertEqual(['ControllerDeployment',
                          'ControllerPreNetworkDeployment',
                          'ControllerUpgradeInitDeployment',
                          'ControllerPostConfigDeployment'],
                         by_server['overcloud-controller-0'])
        self.assertEqual(5, len(by_server['overcloud-novacompute-1']))
        roles = set((d['server'], d['role']) for d in data['deployments'])
        self.assertIn(('overcloud-novacompute-0', 'Compute'), roles)

    def test_order_is_heat_creation_time(self):
        cloud = stacks.many(1, 6)
        # the last one created first: read first
        cloud.resources[-1]['created'] = '2000-01-01T00:00:00Z'
        data, _ = read(cloud)
        self.assertEqual('Role0Deployment5', data['deployments'][0]['name'])

    def test_no_stack(self):
        with reference.heat_of(stacks.overcloud()) as (heat, _):
            error = self.refused(heat, 'nope')
        self.assertIn('Stack nope does not exist', str(error))

    def test_a_config_lost(self):
        cloud = stacks.many(1, 3)
        lost = sorted(cloud.configs)[0]
        del cloud.configs[lost]
        # metadata no longer has it; asked for alone, Heat says 404
        with reference.heat_of(cloud) as (heat, _):
            error = self.refused(heat, 'overcloud')
        self.assertIn('Heat lost part of stack overcloud', str(error))

    def test_outputs_too_large(self):
        cloud = stacks.overcloud()
        with reference.heat_of(cloud) as (heat, _), mock.patch.object(
                stack_data, 'MAX_OUTPUTS_BYTES', 4096):
            error = self.refused(heat, 'overcloud')
        self.assertIn('larger than', str(error))

    def test_a_config_too_large(self):
        cloud = stacks.many(1, 2)
        config = cloud.configs[sorted(cloud.configs)[0]]
        config['config'] = 'x' * 5000
        with reference.heat_of(cloud) as (heat, _), mock.patch.object(
                stack_data, 'MAX_CONFIG_BYTES', 4096):
            error = self.refused(heat, 'overcloud')
        self.assertIn('is larger than', str(error))

    def test_heat_refuses(self):
        with reference.heat_of(stacks.many(1, 2)) as (heat, fake):
            fake.errors['resources'] = 500
            error = self.refused(heat, 'overcloud')
        self.assertIn('Heat refused to show the configuration of stack '
                      'overcloud (resources): Internal error', str(error))

    def test_names_not_found(self):
        cloud = stacks.overcloud()
        # the group holding the members named 0 and 1 is gone from Heat
        cloud.resources = [r for r in cloud.resources
                           if r['name'] != 'ComputeSwapDeployments']
        with reference.heat_of(cloud) as (heat, _):
            error = self.refused(heat, 'overcloud')
        self.assertIn("Deployment 0 of server overcloud-novacompute-0: its "
                      "group's name cannot be found", str(error))
        cloud = stacks.overcloud()
        # a path whose stack holds no TripleOSoftwareDeployment
        cloud.resources = [
            r for r in cloud.resources
            if not (r['name'] == 'TripleOSoftwareDeployment' and
                    r['nested'] is None and 'UpgradeInit' in
                    cloud.stacks[r['stack']]['name'])]
        with reference.heat_of(cloud) as (heat, _):
            error = self.refused(heat, 'overcloud')
        self.assertIn('Heat shows no TripleOSoftwareDeployment',
                      str(error))

    def test_no_name(self):
        cloud = stacks.many(1, 2)
        for res in cloud.resources:
            if res['name'] == 'TripleODeployment':
                res['attributes']['value']['name'] = ''
        for stack in cloud.stacks.values():
            stack['parent_resource'] = None
        with reference.heat_of(cloud) as (heat, _):
            error = self.refused(heat, 'overcloud')
        self.assertIn('has no name: set the name property', str(error))

    def test_servers(self):
        outputs = stacks.outputs()
        found = stack_data.servers(outputs)
        self.assertEqual(3, len(found))
        self.assertEqual(
            {'name': 'overcloud-novacompute-1', 'role': 'Compute'},
            found[outputs['ServerIdData']['server_ids']['Compute'][1]])
        self.assertEqual({}, stack_data.servers({}))
