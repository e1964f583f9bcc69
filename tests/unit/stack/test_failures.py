"""``overcloud failures`` through the real client wrapper on a faked Heat
(requests-mock): failed resources of nested stacks with their paths, a
failed software deployment's stderr, no such stack."""

import io
import json

from tests.unit import fakes
from tests.unit.software import server_tree
from tripleoplanclient.osc import failures as failures_command
from tripleoplanclient.stack import failures

TOP = 'overcloud/top1'
# GET /stacks/overcloud/resources answers a redirect to the stack's id;
# keystoneauth follows it
BY_NAME = '/stacks/overcloud/resources?nested_depth=5'
LIST = '/stacks/%s/resources?nested_depth=5' % TOP


def failed(resource, reason, status='CREATE_FAILED'):
    return dict(resource, resource_status=status,
                resource_status_reason=reason)


# overcloud -> Controller group -> 0 -> ControllerExtraConfigPre (a
# template) -> Deployment (the software deployment that failed); Compute
# complete; a top-level TestResource failed on its own.
TREE = [
    failed(server_tree.resource(TOP, 'Controller',
                                'OS::Heat::ResourceGroup',
                                nested='grp-ctl/g1'),
           'Error: resources.Controller.resources[0]: ...'),
    server_tree.resource(TOP, 'Compute', 'OS::Heat::ResourceGroup',
                         nested='grp-cmp/g2'),
    failed(server_tree.resource(TOP, 'Canary', 'OS::Heat::TestResource',
                                'tr-1'), 'Error: Test Resource failed'),
    failed(server_tree.resource('grp-ctl/g1', '0',
                                'OS::TripleO::Controller',
                                nested='ctl0/m0'),
           'Error: resources[0].resources.ControllerExtraConfigPre: ...'),
    server_tree.resource('ctl0/m0', 'Controller',
                         'OS::TripleO::ControllerServer', 'srv-c0'),
    failed(server_tree.resource('ctl0/m0', 'ControllerExtraConfigPre',
                                'OS::TripleO::ControllerExtraConfigPre',
                                nested='pre0/p0'),
           'Error: resources.Deployment: Deployment to server failed'),
    failed(server_tree.resource('pre0/p0', 'Deployment',
                                'OS::Heat::SoftwareDeployment', 'sd-1'),
           'Error: resources.Deployment: Deployment to server failed: '
           'deploy_status_code : Deployment exited with non-zero status '
           'code: 2'),
    server_tree.resource('pre0/p0', 'Config', 'OS::Heat::SoftwareConfig',
                         'cfg-1'),
]
DEPLOYMENT = {'id': 'sd-1', 'server_id': 'srv-c0', 'status': 'FAILED',
              'config_id': 'cfg-d1', 'action': 'CREATE',
              'output_values': {'deploy_status_code': 2,
                                'deploy_stdout': 'checking\n',
                                'deploy_stderr': 'disk /dev/sdz missing\n'}}


class TestFailures(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.m.get(fakes.HEAT + BY_NAME, status_code=302, headers={
            'Location': fakes.HEAT + LIST})
        self.listing = self.on_heat('GET', LIST, {'resources': TREE})
        self.deployment = self.on_heat(
            'GET', '/software_deployments/sd-1',
            {'software_deployment': DEPLOYMENT})

    def run_command(self, *argv):
        app = fakes.make_app({'orchestration': fakes.HEAT})
        app.stdout = io.StringIO()
        cmd = failures_command.ShowFailures(app, None)
        parsed = cmd.get_parser('openstack').parse_args(
            list(argv) + ['-f', 'json'])
        code = cmd.run(parsed)
        return code, json.loads(app.stdout.getvalue()), \
            app.stderr.getvalue()

    def test_nested_failures_with_the_deployments_stderr(self):
        code, rows, err = self.run_command()
        self.assertEqual(0, code)
        self.assertEqual(['Canary', 'Controller', 'Controller/0',
                          'Controller/0/ControllerExtraConfigPre',
                          'Controller/0/ControllerExtraConfigPre/'
                          'Deployment'], [r['path'] for r in rows])
        for row in rows:
            self.assertEqual(list(failures.COLUMNS), list(row))
        deployment = rows[-1]
        self.assertEqual(
            ('OS::Heat::SoftwareDeployment', 'CREATE_FAILED', 'sd-1',
             'srv-c0', 2, 'disk /dev/sdz missing\n'),
            tuple(deployment[c] for c in (
                'type', 'status', 'deployment_id', 'server_id',
                'deploy_status_code', 'deploy_stderr')))
        self.assertIn('non-zero status code: 2', deployment['status_reason'])
        # what is not a deployment has no deployment columns
        self.assertEqual([None] * 4, [rows[0][c] for c in (
            'deployment_id', 'server_id', 'deploy_status_code',
            'deploy_stderr')])
        self.assertIn('5 failed resource(s) in stack overcloud', err)
        # one listing (by name: Heat's redirect, then the stack's id), one
        # request per failed deployment; nothing else
        self.assertEqual(
            [('GET', BY_NAME), ('GET', LIST),
             ('GET', '/software_deployments/sd-1')],
            [(r.method, r.url[len(fakes.HEAT):])
             for r in self.m.request_history])

    def test_plan_is_tripleoclients_form_of_stack(self):
        self.m.get(fakes.HEAT + '/stacks/other/resources?nested_depth=5',
                   status_code=302, headers={'Location': fakes.HEAT + LIST})
        code, rows, _ = self.run_command('--plan', 'other')
        self.assertEqual((0, 5), (code, len(rows)))

    def test_a_stack_without_failures_is_an_empty_list(self):
        self.on_heat('GET', LIST, {'resources': [TREE[1], TREE[4]]})
        code, rows, err = self.run_command('--stack', 'overcloud')
        self.assertEqual((0, []), (code, rows))
        self.assertEqual(0, self.deployment.call_count)

    def test_a_deployment_deleted_since_keeps_its_row(self):
        self.on_heat('GET', '/software_deployments/sd-1',
                     {'code': 404, 'title': 'Not Found'}, status=404)
        code, rows, _ = self.run_command()
        self.assertEqual(0, code)
        self.assertEqual(('sd-1', None), (rows[-1]['deployment_id'],
                                          rows[-1]['deploy_stderr']))

    def test_no_such_stack_is_refused_with_exit_3(self):
        self.on_heat('GET', '/stacks/nope/resources?nested_depth=5',
                     {'code': 404, 'title': 'Not Found'}, status=404)
        code, rows, err = self.run_command('--stack', 'nope')
        self.assertEqual((3, []), (code, rows))
        self.assertIn('Stack nope not found (openstack stack list)', err)
