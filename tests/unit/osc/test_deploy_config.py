"""``overcloud deploy`` when its templates configure the servers
(config-download outputs): Heat followed as before, then Ansible's task
results per host on stderr as the deploy workflow writes them, and the
step's end as it records it; exit 1 when a task failed, 4 when the
configuration outlasts the wait; --stack-only runs none of it."""

import argparse
import io
import json
import os

from tests.unit import fakes
from tripleoplanclient.osc import deploy as deploy_commands
from tripleoplanclient.osc import exit_status
from tripleoplanclient.osc import plan as plan_commands
from tripleoplanclient.record import configs
from tripleoplanclient.record import log

STACK_ID = fakes.STACK_ID
STACK = '/stacks/p/' + STACK_ID
ROLE_DATA = [{'output_key': 'RoleData', 'output_value': {}}]


class TestDeployConfigures(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.temp_dir()
        self.clock = fakes.FakeClock()
        self.deploy_services()
        tht = os.path.join(self.dir, 'tht')
        fakes.write_file(os.path.join(tht, 'overcloud.yaml'),
                         'heat_template_version: rocky\nresources: {}\n')
        fakes.write_file(os.path.join(tht, 'roles_data.yaml'),
                         '- name: Controller\n')
        self.assertEqual(0, self.run_command(
            plan_commands.CreatePlan, 'p', '--templates', tht)[0])
        fakes.stack_is(self.m, None)
        self.m.get(fakes.HEAT + STACK + '/events', headers=fakes.JSON,
                   json={'events': [{
                       'id': 'e2', 'links': [], 'resource_name': 'p',
                       'physical_resource_id': STACK_ID,
                       'logical_resource_id': 'p',
                       'event_time': '2026-11-25T12:00:00Z',
                       'resource_status': 'CREATE_COMPLETE',
                       'resource_status_reason': 'done'}]})
        self.m.get(fakes.HEAT + STACK, headers=fakes.JSON, json={'stack': {
            'id': STACK_ID, 'stack_name': 'p',
            'stack_status': 'CREATE_COMPLETE', 'stack_status_reason': '',
            'creation_time': '2026-11-25T12:00:00Z', 'outputs': ROLE_DATA}})
        self.store = fakes.plan_store()
        # what the deploy workflow's configure task writes, once Heat's
        # end is on record
        self.mistral_writes = None

    def sleep(self, seconds):
        self.clock.sleep(seconds)
        step_id = self.store.reader.head('p').state.get('stack')
        if self.mistral_writes and step_id and self.store.container.get(
                'p', log.outcome_path(step_id, final=False)):
            writes, self.mistral_writes = self.mistral_writes, None
            writes(step_id)

    def run_command(self, cls, *argv, quiet=False):
        app = fakes.make_app(fakes.ENDPOINTS)
        app.stdout = io.StringIO()
        cmd = cls(app, argparse.Namespace(verbose_level=0 if quiet else 1))
        cmd.waiting = {'sleep': self.sleep, 'clock': self.clock}
        parsed = cmd.get_parser('openstack').parse_args(
            list(argv) + ['-f', 'json'])
        code = cmd.run(parsed)
        return code, app.stdout.getvalue(), app.stderr.getvalue()

    def configured(self, status, failures=()):
        def writes(step_id):
            self.store.container.request(
                'put_object', 'p', configs.progress_path(step_id, 1),
                configs.dump_events([
                    {'host': 'c-0', 'task': 'Write a file',
                     'status': 'failed' if failures else 'changed',
                     'message': 'denied' if failures else None}]))
            self.store.writer.write_outcome(
                'p', step_id, {'status': status, 'config_status': status,
                               'stack_status': 'CREATE_COMPLETE'}, {},
                config={'status': status, 'failures': list(failures),
                        'hosts': {'c-0': {'failed': len(failures)}}})
        self.mistral_writes = writes

    def test_the_step_ends_when_the_servers_are_configured(self):
        self.configured('SUCCESS')
        code, out, err = self.run_command(deploy_commands.Deploy,
                                          '--stack', 'p')
        self.assertEqual(exit_status.DONE, code, err)
        row = json.loads(out)
        self.assertEqual(('CREATE_COMPLETE', 'SUCCESS', 'SUCCESS', None), (
            row['stack_status'], row['config_status'], row['status'],
            row['reason']))
        self.assertIn('Ansible: c-0 | Write a file | CHANGED', err)

    def test_quiet_tells_no_task(self):
        self.configured('SUCCESS')
        code, _, err = self.run_command(deploy_commands.Deploy, '--stack',
                                        'p', quiet=True)
        self.assertEqual((exit_status.DONE, ''), (code, err))

    def test_a_failed_task_is_1_with_host_task_and_message(self):
        self.configured('FAILED', [{'host': 'c-0', 'task': 'Write a file',
                                    'message': 'denied'}])
        code, out, err = self.run_command(deploy_commands.Deploy,
                                          '--stack', 'p')
        self.assertEqual(exit_status.FAILED, code, err)
        self.assertEqual(('FAILED', 'FAILED', 'Ansible task Write a file '
                          'failed on c-0: denied'), (
            json.loads(out)['config_status'], json.loads(out)['status'],
            json.loads(out)['reason']))
        self.assertIn('Ansible: c-0 | Write a file | FAILED: denied', err)
        self.assertIn('failed on c-0: Write a file: denied', err)

    def test_a_configuration_that_outlasts_the_wait_is_4(self):
        code, out, err = self.run_command(
            deploy_commands.Deploy, '--stack', 'p',
            '--config-download-timeout', '1')
        self.assertEqual(exit_status.TIMEOUT, code, err)
        self.assertEqual(('TIMEOUT', 'Timed out after 120 s '
                          '(--config-download-timeout of 1 minutes): the '
                          'configuration goes on in Mistral'), (
            json.loads(out)['status'], json.loads(out)['reason']))
        # Heat's end is on record, the step still open for Mistral
        row = self.store.reader.history('p')[0][-1]
        self.assertEqual(('IN_PROGRESS', True), (
            row['outcome']['status'], row['outcome']['configuring']))

    def test_stack_only_ends_with_heat(self):
        code, out, err = self.run_command(deploy_commands.Deploy,
                                          '--stack', 'p', '--stack-only')
        self.assertEqual(exit_status.DONE, code, err)
        self.assertEqual(('SUCCESS', None), (
            json.loads(out)['status'], json.loads(out)['config_status']))
        self.assertNotIn('Ansible', err)
        row = self.store.reader.history('p')[0][-1]
        self.assertEqual('none', row['config']['mode'])

    def test_the_ansible_options_reach_the_request(self):
        self.configured('SUCCESS')
        self.run_command(deploy_commands.Deploy, '--stack', 'p', '--tags',
                         'step1,step2', '--skip-tags', 'opendev',
                         '--limit', 'Controller', '--ansible-forks', '5')
        row = self.store.reader.history('p')[0][-1]
        self.assertEqual(({'mode': 'auto', 'tags': ['step1', 'step2'],
                           'skip_tags': ['opendev'], 'limit': 'Controller',
                           'forks': 5, 'config_timeout': 240}), {
            k: v for k, v in row['config'].items()
            if k not in ('status', 'failures', 'hosts')})
