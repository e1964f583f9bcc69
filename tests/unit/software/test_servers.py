"""``--server`` resolution: an id, a top-level resource, or a THT node of
the nested stacks by server name or resource path (Heat over
requests-mock)."""

import re

from tests.unit import fakes
from tripleoplanclient.common import exceptions
from tripleoplanclient.software import resolve

TOP = 'overcloud/top1'
LIST = '/stacks/%s/resources' % TOP


def resource(stack, name, rtype, physical='', nested=None, attrs=None):
    """A resource as Heat lists it: the holding stack and any nested stack
    only as links."""
    base = fakes.HEAT + '/stacks/' + stack
    links = [{'rel': 'self', 'href': base + '/resources/' + name},
             {'rel': 'stack', 'href': base}]
    if nested:
        links.append({'rel': 'nested', 'href': fakes.HEAT + '/stacks/' +
                      nested})
        physical = nested.split('/')[1]
    body = {'resource_name': name, 'resource_type': rtype,
            'physical_resource_id': physical, 'links': links,
            'resource_status': 'CREATE_COMPLETE'}
    if attrs is not None:
        body['attributes'] = attrs
    return body


# overcloud -> Controller group -> 0, 1 -> Controller (Nova-like server);
# Compute group -> 0 -> NovaCompute, a deployed-server template holding
# the OS::Heat::DeployedServer; Solo, a top-level Nova server.
SERVERS = [
    ('ctl0/m0', 'Controller', 'OS::TripleO::ControllerServer', 'srv-c0',
     'overcloud-controller-0'),
    ('ctl1/m1', 'Controller', 'OS::TripleO::ControllerServer', 'srv-c1',
     'overcloud-controller-1'),
    ('ds0/d0', 'deployed-server', 'OS::Heat::DeployedServer', 'srv-n0',
     'overcloud-novacompute-0'),
    (TOP, 'Solo', 'OS::Nova::Server', 'srv-top', 'solo-0'),
]
TREE = [
    resource(TOP, 'Controller', 'OS::Heat::ResourceGroup',
             nested='grp-ctl/g1'),
    resource(TOP, 'Compute', 'OS::Heat::ResourceGroup',
             nested='grp-cmp/g2'),
    resource('grp-ctl/g1', '0', 'OS::TripleO::Controller', nested='ctl0/m0'),
    resource('grp-ctl/g1', '1', 'OS::TripleO::Controller', nested='ctl1/m1'),
    resource('grp-cmp/g2', '0', 'OS::TripleO::Compute', nested='cmp0/m2'),
    resource('cmp0/m2', 'NovaCompute', 'OS::TripleO::ComputeServer',
             nested='ds0/d0'),
    resource('ctl0/m0', 'NetworkConfig', 'OS::TripleO::Net', 'sc1'),
] + [resource(s, n, t, p) for s, n, t, p, _ in SERVERS]
# Heat's DeployedServer resolves no name attribute: THT's deployed-server
# template outputs it.
DETAILED = [resource(s, n, t, p, attrs={'name': name})
            for s, n, t, p, name in SERVERS[:2]] + [
    resource('cmp0/m2', 'NovaCompute', 'OS::TripleO::ComputeServer',
             nested='ds0/d0', attrs={'name': 'overcloud-novacompute-0'}),
    resource('ds0/d0', 'deployed-server', 'OS::Heat::DeployedServer',
             'srv-n0', attrs={'name': None}),
    resource(TOP, 'Solo', 'OS::Nova::Server', 'srv-top',
             attrs={'name': 'solo-0'})]


class ServerTest(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.lines = []
        self.resolver = resolve.Resolver(fakes.heat_client(),
                                         self.lines.append)
        # no top-level resource but those registered below
        self.m.register_uri('GET', re.compile(
            re.escape(fakes.HEAT + LIST + '/') + '.*'), status_code=404,
            headers=fakes.JSON, json={'code': 404, 'title': 'Not Found'})
        self.on_heat('GET', LIST + '/Solo', {'resource': TREE[-1]})
        self.on_heat('GET', LIST + '/Controller', {'resource': TREE[0]})
        self.on_heat('GET', '/software_deployments',
                     {'software_deployments': []})
        self.on_heat('GET', '/software_deployments?server_id=srv-c0',
                     {'software_deployments': [
                         {'id': 'sd1', 'server_id': 'srv-c0'}]})
        self.listing = self.on_heat('GET', LIST + '?nested_depth=5',
                                    {'resources': TREE})
        self.detailed = self.on_heat(
            'GET', LIST + '?nested_depth=5&with_detail=True&type=Server',
            {'resources': DETAILED})

    def server(self, name):
        return self.resolver.server(name, TOP)

    def refused(self, name):
        with self.assertRaises(exceptions.CommandError) as caught:
            self.server(name)
        self.assertFalse([r for r in self.m.request_history
                          if r.method != 'GET'])
        return str(caught.exception)

    def test_a_server_id_heat_deploys_to(self):
        self.assertEqual('srv-c0', self.server('srv-c0'))
        self.assertEqual(0, self.listing.call_count)

    def test_a_top_level_server_resource(self):
        self.assertEqual('srv-top', self.server('Solo'))
        self.assertEqual(0, self.listing.call_count)

    def test_a_nested_server_by_its_name_says_which(self):
        self.assertEqual('srv-c1', self.server('overcloud-controller-1'))
        self.assertEqual(['--server overcloud-controller-1: '
                          'Controller/1/Controller (stack ctl1, resource '
                          'Controller, server overcloud-controller-1 '
                          'srv-c1).'], self.lines)
        # one listing of all nested resources, one of the servers' names
        self.assertEqual((1, 1), (self.listing.call_count,
                                  self.detailed.call_count))

    def test_a_nested_server_by_its_path(self):
        self.assertEqual('srv-c0', self.server('Controller/0'))
        self.assertEqual('srv-c0', self.server('Controller/0/Controller'))
        # the server inside a deployed-server template, not the template
        self.assertEqual('srv-n0', self.server('Compute/0'))
        self.assertIn('Compute/0/NovaCompute/deployed-server', self.lines[-1])

    def test_a_server_in_a_template_by_the_template_name_output(self):
        self.assertEqual('srv-n0', self.server('overcloud-novacompute-0'))
        self.assertIn('server overcloud-novacompute-0 srv-n0', self.lines[-1])

    def test_an_ambiguous_name_lists_the_candidates(self):
        for name in ('Controller', 'Controller/', '/Controller'):
            error = self.refused(name)
            self.assertIn('--server %s: 2 servers of stack overcloud match'
                          % name, error)
            self.assertIn('Controller/0/Controller (stack ctl0, resource '
                          'Controller, server overcloud-controller-0 '
                          'srv-c0)', error)
            self.assertIn('Controller/1/Controller', error)
            self.assertIn('Nothing was changed.', error)
        self.assertEqual([], self.lines)

    def test_no_match_lists_the_servers_and_the_forms(self):
        for name in ('overcloud-controller-7', 'Controller/7', '0'):
            error = self.refused(name)
            self.assertIn('--server %s: no such server in stack overcloud'
                          % name, error)
            self.assertIn('overcloud-novacompute-0 (Compute/0/NovaCompute/'
                          'deployed-server)', error)
            self.assertIn('solo-0 (Solo)', error)
            self.assertIn('a resource path such as Controller/0', error)

    def test_without_stack_only_ids(self):
        with self.assertRaises(exceptions.CommandError) as caught:
            self.resolver.server('overcloud-controller-0')
        self.assertIn('with --stack, its name or resource name',
                      str(caught.exception))
        self.assertEqual(0, self.listing.call_count)
