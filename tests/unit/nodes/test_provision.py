"""nodes/provision.py, baremetal_file.py and deployed_environment.py on
the fake Ironic: the file checked with every problem named, allocation
by resource class, profile and capabilities, nothing allocated when too
few match or a race is lost, the same file again changing nothing, a
larger count adding only new nodes, and the environment of THT 18."""

import unittest

from keystoneauth1 import noauth
from keystoneauth1 import session as ksa_session

from tests.unit.nodes import fake_ironic
from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import baremetal_file
from tripleoplanclient.nodes import deployed_environment
from tripleoplanclient.nodes import ironic
from tripleoplanclient.nodes import provision


def roles(controllers=1, computes=1, **compute):
    return baremetal_file.read([
        {'name': 'Controller', 'count': controllers,
         'defaults': {'profile': 'control'}},
        dict({'name': 'Compute', 'count': computes,
              'defaults': {'profile': 'compute'}}, **compute)])


class TestFile(unittest.TestCase):

    def test_every_problem_named_at_once(self):
        with self.assertRaises(exceptions.CommandError) as cm:
            baremetal_file.read([
                {'name': 'Controller', 'count': -1, 'colour': 'red'},
                {'name': 'Compute', 'defaults': {
                    'profile': 3, 'capabilities': {'node': 'a,b'}},
                 'instances': [{'hostname': 'h', 'provisioned': 'no'},
                               {'networks': [{'network': 'ctlplane',
                                              'fixed_ip': 'x'}]}]},
                {'name': 'Controller'}])
        text = str(cm.exception)
        for part in ('role Controller: unknown field(s) colour',
                     'role Controller: count must be a whole number',
                     'role Compute defaults: profile must be text',
                     'instance h: provisioned must be true or false',
                     "fixed_ip 'x' is no IP address",
                     'give a hostname or a name',
                     'role Controller is listed twice',
                     "role Compute defaults capabilities: capabilities: "
                     "'node: a,b' is not key:value",
                     'nothing was provisioned'):
            self.assertIn(part, text)

    def test_defaults_as_tht(self):
        found = baremetal_file.read([
            {'name': 'Compute'},
            {'name': 'Controller', 'instances': [
                {'hostname': 'a'}, {'hostname': 'b'}]}])
        self.assertEqual(('%stackname%-novacompute-%index%', 1,
                          'baremetal'),
                         (found[0]['hostname_format'], found[0]['count'],
                          found[0]['resource_class']))
        self.assertEqual(2, found[1]['count'])


class ProvisionTestCase(fake_ironic.TestCase):

    def setUp(self):
        super().setUp()
        self.ironic = ironic.Ironic(
            ksa_session.Session(auth=noauth.NoAuth()), fake_ironic.URL)

    def add(self, name, profile, state='available', **fields):
        fields.setdefault('resource_class', 'baremetal')
        return self.fake.add_node(
            name=name, provision_state=state,
            properties={'capabilities': 'profile:%s,boot_mode:uefi'
                        % profile}, **fields)['uuid']

    def ours(self):
        return {n['name']: provision.record(n).get('hostname')
                for n in self.fake.nodes.values() if n.get('instance_uuid')}


class TestProvision(ProvisionTestCase):

    def test_allocates_by_profile_and_deploys(self):
        self.add('c0', 'control')
        self.add('busy', 'compute', instance_uuid='someone-else')
        self.add('maint', 'compute', maintenance=True)
        self.add('on', 'compute', power_state='power on')
        self.add('other-rc', 'compute', resource_class='gpu')
        self.add('k0', 'compute')
        answer = provision.provision(self.ironic, 'oc', roles())
        self.assertEqual({'c0': 'oc-controller-0', 'k0': 'oc-novacompute-0',
                          'busy': None}, self.ours())
        for name in ('c0', 'k0'):
            node = self.fake.node(name)
            self.assertEqual('active', node['provision_state'])
            self.assertEqual('oc', node['extra']['tripleoplan']['plan'])
        self.assertEqual(['192.168.24.10', '192.168.24.11'],
                         [i['ctlplane_ip'] for i in answer['instances']])
        self.assertTrue(answer['changed'])

    def test_the_servers_recorded_for_a_plan_and_project(self):
        # what a validation run may reach: only an administrator writes
        # Ironic, and the record names the provisioning caller's project
        self.add('c0', 'control')
        self.add('k0', 'compute')
        self.add('x0', 'control', instance_uuid='other', extra={
            'tripleoplan': {'plan': 'oc', 'hostname': 'x', 'project': 'p2',
                            'ctlplane_ip': '192.168.24.99'}})
        self.add('y0', 'control', instance_uuid='old', extra={
            'tripleoplan': {'plan': 'oc', 'hostname': 'y',
                            'ctlplane_ip': '192.168.24.98'}})
        provision.provision(self.ironic, 'oc', roles(), project='p1')
        self.assertEqual('p1', self.fake.node('c0')['extra']['tripleoplan'][
            'project'])
        self.assertEqual(['192.168.24.10', '192.168.24.11'],
                         provision.recorded_addresses(self.ironic, 'oc', 'p1'))
        self.assertEqual(['192.168.24.99'],
                         provision.recorded_addresses(self.ironic, 'oc', 'p2'))
        # a record without a project, or no project known: nobody's
        self.assertEqual([], provision.recorded_addresses(self.ironic, 'oc',
                                                          None))
        self.assertEqual([], provision.recorded_addresses(self.ironic,
                                                          'other', 'p1'))

    def test_too_few_nodes_nothing_allocated(self):
        self.add('c0', 'control')
        self.add('k0', 'compute')
        with self.assertRaises(exceptions.CommandError) as cm:
            provision.provision(self.ironic, 'oc', roles(2, 3))
        text = str(cm.exception)
        self.assertIn('role Controller: 1 more available node(s) needed '
                      'with resource_class baremetal, profile control', text)
        self.assertIn('role Compute: 2 more', text)
        self.assertIn('nothing was allocated', text)
        self.assertEqual([], self.fake.writes())

    def test_same_file_again_changes_nothing_larger_count_adds(self):
        self.add('c0', 'control')
        self.add('k0', 'compute')
        self.add('k1', 'compute')
        first = provision.provision(self.ironic, 'oc', roles())
        before = len(self.fake.writes())
        again = provision.provision(self.ironic, 'oc', roles())
        self.assertEqual(before, len(self.fake.writes()))
        self.assertFalse(again['changed'])
        self.assertEqual(first['instances'], [
            dict(i, new=True) for i in again['instances']])
        more = provision.provision(self.ironic, 'oc', roles(computes=2))
        self.assertEqual(['oc-novacompute-1'], [
            i['hostname'] for i in more['instances'] if i['new']])
        self.assertEqual('192.168.24.12', more['instances'][-1][
            'ctlplane_ip'])
        self.assertEqual(3, len([n for n in self.ours().values() if n]))

    def test_lower_count_refused_provisioned_false_released(self):
        self.add('c0', 'control')
        self.add('k0', 'compute')
        self.add('k1', 'compute')
        provision.provision(self.ironic, 'oc', roles(computes=2))
        with self.assertRaises(exceptions.CommandError) as cm:
            provision.provision(self.ironic, 'oc', roles())
        self.assertIn('oc-novacompute-1 provisioned in plan oc but no '
                      'longer wanted', str(cm.exception))
        answer = provision.provision(self.ironic, 'oc', roles(
            instances=[{'hostname': 'oc-novacompute-1',
                        'provisioned': False}]))
        self.assertEqual(['oc-novacompute-1'],
                         [r['hostname'] for r in answer['released']])
        self.assertEqual('available', self.fake.node('k1')[
            'provision_state'])

    def test_race_lost_releases_what_was_taken(self):
        self.add('c0', 'control')
        k0 = self.add('k0', 'compute')
        self.fake.refuse('PATCH', '/nodes/%s' % k0, 409,
                         'Node %s is associated with instance x.' % k0)
        with self.assertRaises(exceptions.CommandError) as cm:
            provision.provision(self.ironic, 'oc', roles())
        self.assertIn('allocation lost to another client', str(cm.exception))
        self.assertEqual({}, self.ours())
        self.assertEqual({}, self.fake.node('c0')['extra'])
        self.assertEqual(0, self.fake.count('PUT'))

    def test_named_node_and_fixed_address(self):
        self.add('c0', 'control')
        self.add('special', 'none')
        answer = provision.provision(self.ironic, 'oc', roles(
            instances=[{'hostname': 'edge', 'name': 'special',
                        'networks': [{'network': 'ctlplane',
                                      'fixed_ip': '192.168.24.10'}]}]))
        self.assertEqual({'oc-controller-0': '192.168.24.11',
                          'edge': '192.168.24.10'},
                         {i['hostname']: i['ctlplane_ip']
                          for i in answer['instances']})
        self.assertEqual('edge', self.ours()['special'])


class TestEnvironment(unittest.TestCase):

    def test_tht18_deployed_server_values(self):
        env = deployed_environment.environment(
            'oc', {'Controller': '%stackname%-controller-%index%',
                   'Compute': '%stackname%-novacompute-%index%'},
            [{'role': 'Controller', 'hostname': 'oc-controller-10',
              'ctlplane_ip': '192.168.24.12'},
             {'role': 'Controller', 'hostname': 'oc-controller-2',
              'ctlplane_ip': '192.168.24.11'}])['parameter_defaults']
        self.assertEqual((2, 0), (env['ControllerCount'],
                                  env['ComputeCount']))
        self.assertEqual({'oc-controller-0': 'oc-controller-2',
                          'oc-controller-1': 'oc-controller-10'},
                         env['HostnameMap'])
        self.assertEqual({'ip_address': '192.168.24.12',
                          'ip_address_uri': '192.168.24.12',
                          'ip_subnet': '192.168.24.12/24'},
                         env['NodePortMap']['oc-controller-10']['ctlplane'])
        self.assertEqual([{'ip_address': '192.168.24.11'}],
                         env['DeployedServerPortMap'][
                             'oc-controller-2-ctlplane']['fixed_ips'])
        self.assertEqual('%stackname%-novacompute-%index%',
                         env['ComputeHostnameFormat'])
