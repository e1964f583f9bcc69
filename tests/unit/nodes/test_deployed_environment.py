"""nodes/deployed_environment.py: one rule for a host's index (recorded,
else the plan's HostnameMap, else the lowest free in hostname order),
removal policies kept and merged, a scale down that drops exactly the
servers named and keeps every other's name, index and address."""

import unittest

from tripleoplanclient.nodes import deployed_environment as env

FMT = '%stackname%-novacompute-%index%'


def host(name, index=None, ip='192.168.24.10'):
    out = {'role': 'Compute', 'hostname': name, 'ctlplane_ip': ip}
    if index is not None:
        out['index'] = index
    return out


class TestIndexes(unittest.TestCase):

    def test_recorded_then_mapped_then_lowest_free(self):
        found = env.indexes('oc', FMT, [
            host('c', 0), host('b'), host('a'), host('mapped')],
            gone={1}, hostname_map={'oc-novacompute-7': 'mapped'})
        self.assertEqual({'c': 0, 'mapped': 7, 'a': 2, 'b': 3}, found)

    def test_legacy_hosts_in_natural_hostname_order(self):
        found = env.indexes('oc', FMT, [host('h-10'), host('h-2')])
        self.assertEqual({'h-2': 0, 'h-10': 1}, found)

    def test_removed_reads_only_indexes(self):
        self.assertEqual({'Compute': {1, 4}, 'Controller': {0}}, env.removed({
            'ComputeRemovalPolicies': [{'resource_list': ['1']},
                                       {'resource_list': [4, 'uuid-x']}],
            'ControllerRemovalPolicies': [{'resource_list': ['0']}],
            'OtherRemovalPolicies': 'not a list',
            'ComputeCount': 3}))

    def test_used_counts_holders_and_removed(self):
        self.assertEqual({'Compute': {0, 1, 2}}, env.used('oc', [
            {'role': 'Compute', 'hostname': 'a', 'index': 0},
            {'role': 'Compute', 'hostname': 'b',
             'hostname_format': FMT}], {
            'ComputeRemovalPolicies': [{'resource_list': ['1']}]}))

    def test_released_by_the_plan_s_hostname_map(self):
        self.assertEqual({'Compute': {2}}, env.released(
            'oc', {'Controller': '%stackname%-controller-%index%',
                   'Compute': FMT},
            {'oc-novacompute-2': 'gone', 'oc-controller-0': 'c'},
            ['gone', 'unknown']))


class TestEnvironment(unittest.TestCase):

    def test_middle_host_released_others_keep_index_and_address(self):
        values = env.environment('oc', {'Compute': FMT}, [
            host('oc-novacompute-0', 0, '192.168.24.10'),
            host('oc-novacompute-2', 2, '192.168.24.12')],
            gone={'Compute': {1}})['parameter_defaults']
        self.assertEqual(2, values['ComputeCount'])
        self.assertEqual([{'resource_list': ['1']}],
                         values['ComputeRemovalPolicies'])
        self.assertEqual({'oc-novacompute-0': 'oc-novacompute-0',
                          'oc-novacompute-2': 'oc-novacompute-2'},
                         values['HostnameMap'])
        self.assertEqual('192.168.24.12', values['NodePortMap'][
            'oc-novacompute-2']['ctlplane']['ip_address'])

    def test_no_removal_no_policy(self):
        values = env.environment('oc', {'Compute': FMT}, [
            host('x', 0)])['parameter_defaults']
        self.assertNotIn('ComputeRemovalPolicies', values)


class TestScaleDown(unittest.TestCase):

    SERVERS = {'Compute': {0: 'c0', 1: 'c1', 2: 'c2'},
               'Controller': {0: 'k0'}}

    def test_count_policies_and_maps(self):
        before = {
            'ComputeCount': 3, 'ControllerCount': 1, 'Other': 'kept',
            'HostnameMap': {'oc-novacompute-0': 'c0',
                            'oc-novacompute-1': 'c1'},
            'NodePortMap': {'c0': {'ctlplane': {}}, 'c1': {'ctlplane': {}}},
            'DeployedServerPortMap': {'c1-ctlplane': {}, 'c0-ctlplane': {}}}
        after = env.scale_down(before, self.SERVERS, [('Compute', 1, 'c1')])
        self.assertEqual(2, after['ComputeCount'])
        self.assertEqual(1, after['ControllerCount'])
        self.assertEqual('kept', after['Other'])
        self.assertEqual([{'resource_list': ['1']}],
                         after['ComputeRemovalPolicies'])
        self.assertNotIn('ControllerRemovalPolicies', after)
        self.assertEqual({'oc-novacompute-0': 'c0'}, after['HostnameMap'])
        self.assertEqual(['c0'], list(after['NodePortMap']))
        self.assertEqual(['c0-ctlplane'],
                         list(after['DeployedServerPortMap']))
        self.assertEqual(3, before['ComputeCount'])     # a new mapping

    def test_earlier_removals_kept(self):
        # index 1 went before (the stack has no member 1 any more)
        servers = {'Compute': {0: 'c0', 2: 'c2', 3: 'c3'}}
        after = env.scale_down(
            {'ComputeRemovalPolicies': [{'resource_list': ['1']}]},
            servers, [('Compute', 3, 'c3')])
        self.assertEqual(2, after['ComputeCount'])
        self.assertEqual([{'resource_list': ['1', '3']}],
                         after['ComputeRemovalPolicies'])

    def test_from_nothing(self):
        after = env.scale_down({}, self.SERVERS, [('Compute', 0, 'c0'),
                                                  ('Compute', 2, 'c2')])
        self.assertEqual({'ComputeCount': 1, 'ComputeRemovalPolicies': [
            {'resource_list': ['0', '2']}]}, after)
