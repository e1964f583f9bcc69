"""nodes/stack_servers.py on a requests-mock Heat: a role's members and
their hostnames as THT names them (the format, then HostnameMap), one
listing of groups and one per role; names resolved by hostname, node
and Role/index, each once; every unknown name refused with the servers
there are."""

import re

from tests.unit import fakes
from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import stack_servers

NESTED = 'p-Compute-abc/4d1c0a52-0000-4000-8000-0000000000aa'


def stack_body(**params):
    return {'stack': {
        'id': fakes.STACK_ID, 'stack_name': 'p',
        'stack_status': 'UPDATE_COMPLETE',
        'parameters': dict({
            'ComputeCount': '3',
            'ComputeHostnameFormat': '%stackname%-novacompute-%index%',
            'ControllerCount': '1',
            'ControllerHostnameFormat': '%stackname%-controller-%index%',
            'HostnameMap': '{"p-novacompute-2": "edge"}'}, **params)}}


def resource(name, status='CREATE_COMPLETE', nested=None, rtype='x'):
    links = [{'rel': 'nested', 'href': fakes.HEAT + '/stacks/' + nested}] \
        if nested else []
    return {'resource_name': name, 'resource_status': status,
            'physical_resource_id': 'id-%s' % name, 'links': links,
            'resource_type': rtype}


class TestMembers(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        fakes.stack_is(self.m, stack_body())
        self.groups = self.on_heat(
            'GET', '/stacks/p/%s/resources' % fakes.STACK_ID, {'resources': [
                resource('Compute', nested=NESTED),
                resource('Controller', nested='p-Controller-x/1'),
                resource('NotARole', nested='p-NotARole-x/2')]})
        self.on_heat('GET', '/stacks/%s/resources' % NESTED, {'resources': [
            resource('0'), resource('2'), resource('3'),
            resource('1', status='DELETE_COMPLETE')]})
        self.on_heat('GET', '/stacks/p-Controller-x/1/resources',
                     {'resources': [resource('0')]})
        self.heat = fakes.heat_client()

    def test_members_by_index_with_thts_hostnames(self):
        stack = self.heat.stacks.get('p')
        before = self.m.call_count
        found = stack_servers.members(self.heat, 'p', stack)
        self.assertEqual({'Compute': {0: 'p-novacompute-0', 2: 'edge',
                                      3: 'p-novacompute-3'},
                          'Controller': {0: 'p-controller-0'}}, found)
        # the groups, then one listing per role (NotARole has no
        # parameters of a role: not listed)
        self.assertEqual(3, self.m.call_count - before)
        self.assertIn('type=OS%3A%3AHeat%3A%3AResourceGroup',
                      self.groups.last_request.url)


class TestResolve(fakes.HttpTestCase):

    SERVERS = {'Compute': {0: 'p-novacompute-0', 2: 'edge'},
               'Controller': {0: 'p-controller-0'}}
    NODES = {'edge': {'uuid': 'u-edge', 'name': 'rack1-7'}}

    def test_hostname_node_and_role_index_each_once(self):
        self.assertEqual([('Compute', 2, 'edge'),
                          ('Controller', 0, 'p-controller-0'),
                          ('Compute', 0, 'p-novacompute-0')],
                         stack_servers.resolve('p', [
                             'rack1-7', 'Controller/0', 'edge', 'u-edge',
                             'p-novacompute-0'], self.SERVERS, self.NODES))

    def test_every_unknown_name_refused_with_the_servers(self):
        with self.assertRaises(exceptions.CommandError) as cm:
            stack_servers.resolve('p', ['Compute/1', 'nope', 'edge'],
                                  self.SERVERS, self.NODES)
        text = str(cm.exception)
        self.assertIn('no server Compute/1, nope.', text)
        self.assertIn('Compute/0 (p-novacompute-0), Compute/2 (edge), '
                      'Controller/0 (p-controller-0)', text)
        self.assertIn('Nothing was changed', text)

    def test_names_checked(self):
        for bad in ([], 'edge', [''], ['x' * 300], [3]):
            self.assertRaisesRegex(exceptions.CommandError, re.escape(
                'nodes must list'), stack_servers.check_names, bad)
        self.assertEqual(['a'], stack_servers.check_names(['a']))
