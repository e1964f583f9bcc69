"""``software deployment watch --server``: a THT node's name (as trigger
--server takes it) chooses the server, and the newest of its deployments
is followed (Heat over requests-mock)."""

import re

from osc_lib import exceptions

from tests.unit import fakes
from tests.unit.software import server_tree
from tripleoplanclient.osc import software

LIST = server_tree.LIST


def deployment(sd_id, created, status='COMPLETE', action='CREATE'):
    return {'id': sd_id, 'server_id': 'srv-c1', 'config_id': 'cfg-' + sd_id,
            'action': action, 'status': status, 'status_reason': 'done',
            'creation_time': created, 'updated_time': None,
            'output_values': {'deploy_status_code': 0}}


class TestWatchServer(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        fakes.stack_is(self.m, {'stack': {
            'id': 'top1', 'stack_name': 'overcloud',
            'stack_status': 'CREATE_COMPLETE'}}, 'top1', 'overcloud')
        # no top-level resource of that name, no deployments for the name
        self.m.register_uri('GET', re.compile(
            re.escape(fakes.HEAT + LIST + '/') + '.*'), status_code=404,
            headers=fakes.JSON, json={'code': 404, 'title': 'Not Found'})
        self.on_heat('GET', '/software_deployments?server_id=overcloud-'
                     'controller-1', {'software_deployments': []})
        self.on_heat('GET', LIST + '?nested_depth=5',
                     {'resources': server_tree.TREE})
        self.on_heat('GET', LIST + '?nested_depth=5&with_detail=True'
                     '&type=Server', {'resources': server_tree.DETAILED})
        # Heat lists them in no promised order: the newest is BACKUP
        self.on_heat('GET', '/software_deployments?server_id=srv-c1', {
            'software_deployments': [
                deployment('sd-old', '2026-11-25T10:00:00Z'),
                deployment('sd-new', '2026-11-25T12:00:00Z',
                           'IN_PROGRESS', 'BACKUP'),
                deployment('sd-mid', '2026-11-25T11:00:00Z')]})
        self.newest = self.on_heat(
            'GET', '/software_deployments/sd-new',
            {'software_deployment': deployment(
                'sd-new', '2026-11-25T12:00:00Z', action='BACKUP')})
        self.on_heat('GET', '/software_configs/cfg-sd-new', {
            'software_config': {'id': 'cfg-sd-new', 'name': 'backup',
                                'inputs': [], 'outputs': []}})
        self.app = fakes.make_app({'orchestration': fakes.HEAT})

    def watch(self, *argv):
        command = software.Watch(self.app, None)
        parsed = command.get_parser('x').parse_args(
            list(argv) + ['--interval', '0.1'])
        columns, values = command.take_action(parsed)
        return dict(zip(columns, values))

    def test_the_newest_deployment_of_a_node_by_its_name(self):
        row = self.watch('--server', 'overcloud-controller-1', '--stack',
                         'overcloud')
        self.assertEqual(('sd-new', 'BACKUP', 'COMPLETE'),
                         (row['id'], row['action'], row['status']))
        err = self.app.stderr.getvalue()
        # which server, and which of its deployments, on stderr
        self.assertIn('--server overcloud-controller-1: Controller/1/'
                      'Controller (stack ctl1, resource Controller, server '
                      'overcloud-controller-1 srv-c1).', err)
        self.assertIn('--server overcloud-controller-1: deployment sd-new '
                      '(BACKUP, IN_PROGRESS, created 2026-11-25T12:00:00Z), '
                      'the newest of 3.', err)
        fetched = [r.path.split('/admin')[-1] for r in self.m.request_history
                   if '/software_deployments/' in r.path]
        self.assertEqual(['/software_deployments/sd-new'], fetched)

    def test_a_server_id_without_stack(self):
        self.on_heat('GET', '/software_deployments?server_id=srv-c1', {
            'software_deployments': [
                deployment('sd-new', '2026-11-25T12:00:00Z')]})
        self.assertEqual('sd-new', self.watch('--server', 'srv-c1')['id'])

    def test_a_deployment_id_or_server_not_both_nor_neither(self):
        for argv in ((), ('sd-new', '--server', 'srv-c1'),
                     ('sd-new', '--stack', 'overcloud')):
            with self.assertRaises(exceptions.CommandError) as caught:
                self.watch(*argv)
            self.assertIn('Give the deployment to watch: its id, or '
                          '--server', str(caught.exception))
        self.assertEqual(0, self.m.call_count)

    def test_of_two_created_the_same_second_the_one_running(self):
        same = '2026-11-25T12:00:00Z'
        both = [deployment('sd-done', same),
                deployment('sd-new', same, 'IN_PROGRESS', 'BACKUP')]
        self.on_heat('GET', '/software_deployments?server_id=srv-c1',
                     {'software_deployments': both})
        self.assertEqual('sd-new', self.watch('--server', 'srv-c1')['id'])
        both[1]['status'] = 'COMPLETE'
        self.on_heat('GET', '/software_deployments?server_id=srv-c1',
                     {'software_deployments': both})
        with self.assertRaises(exceptions.CommandError) as caught:
            self.watch('--server', 'srv-c1')
        self.assertIn('2 deployments of server srv-c1 are the newest '
                      '(created 2026-11-25T12:00:00Z); give one of their '
                      'ids: sd-done (CREATE, COMPLETE), sd-new (BACKUP, '
                      'COMPLETE).', str(caught.exception))

    def test_a_server_without_deployments_is_a_clear_error(self):
        self.on_heat('GET', '/software_deployments?server_id=srv-c1',
                     {'software_deployments': []})
        self.on_heat('GET', '/software_deployments?server_id=Controller%2F1',
                     {'software_deployments': []})
        with self.assertRaises(exceptions.CommandError) as caught:
            self.watch('--server', 'Controller/1', '--stack', 'overcloud')
        self.assertIn('--server Controller/1: Heat has no software '
                      'deployment for server srv-c1', str(caught.exception))
