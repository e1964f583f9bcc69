"""``--server`` resolution: an id, a top-level resource, or a THT node of
the nested stacks by server name or resource path (Heat over
requests-mock)."""

import re

from tests.unit import fakes
from tests.unit.software import server_tree
from tripleoplanclient.common import exceptions
from tripleoplanclient.software import resolve

TOP = server_tree.TOP
LIST = server_tree.LIST
TREE = server_tree.TREE
DETAILED = server_tree.DETAILED


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
