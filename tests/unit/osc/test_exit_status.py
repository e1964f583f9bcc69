"""A result row whatever the outcome, and an exit status that tells it
(issue 28): 0 done, 1 failed, 3 refused (nothing done), 4 timed out with
the operation still running, 130 interrupted; ``-q`` keeps stderr for
warnings and errors. The commands run as cliff runs them (``run``), the
deploy action behind the fake Mistral, Heat and Swift at the HTTP level.
"""

import argparse
import io
import json
import os
import re

from tests.unit import fakes
from tripleoplanclient.osc import deploy as deploy_commands
from tripleoplanclient.osc import exit_status
from tripleoplanclient.osc import library
from tripleoplanclient.osc import plan as plan_commands
from tripleoplanclient.osc import software

STACK_ID = fakes.STACK_ID
STACK = '/stacks/p/' + STACK_ID
ENDPOINTS = fakes.ENDPOINTS


class OutcomeTestCase(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.temp_dir()
        self.clock = fakes.FakeClock()

    def run_command(self, cls, *argv, quiet=False):
        """``(exit status, stdout, stderr)`` of ``cls`` run on ``argv``
        as ``-f json`` (with OSC's ``-q`` when ``quiet``)."""
        app = fakes.make_app(ENDPOINTS)
        app.stdout = io.StringIO()
        cmd = cls(app, argparse.Namespace(verbose_level=0 if quiet else 1))
        cmd.waiting = {'sleep': self.clock.sleep, 'clock': self.clock}
        parsed = cmd.get_parser('openstack').parse_args(
            list(argv) + ['-f', 'json'])
        code = cmd.run(parsed)
        return code, app.stdout.getvalue(), app.stderr.getvalue()

    def row(self, out):
        """The row printed: it must parse."""
        return json.loads(out)


class TestStackOutcomes(OutcomeTestCase):
    """``overcloud deploy`` of a plan whose stack Heat creates (its end as
    each test has Heat tell it)."""

    def setUp(self):
        super().setUp()
        self.deploy_services()
        tht = os.path.join(self.dir, 'tht')
        fakes.write_file(os.path.join(tht, 'overcloud.yaml'),
                         'heat_template_version: rocky\nresources: {}\n')
        fakes.write_file(os.path.join(tht, 'roles_data.yaml'),
                         '- name: Controller\n')
        self.tht = tht
        code, _, err = self.run_command(plan_commands.CreatePlan, 'p',
                                        '--templates', tht)
        self.assertEqual(0, code, err)
        fakes.stack_is(self.m, None)

    def heat_ends(self, status, reason):
        """Heat's events end the stack's CREATE with ``status``."""
        self.m.get(fakes.HEAT + STACK + '/events', headers=fakes.JSON,
                   json={'events': [{
                       'id': 'e2', 'links': [], 'resource_name': 'p',
                       'physical_resource_id': STACK_ID,
                       'logical_resource_id': 'p',
                       'event_time': '2026-11-25T12:00:00Z',
                       'resource_status': status,
                       'resource_status_reason': reason}]})
        self.stack_status(status, reason)

    def stack_status(self, status, reason=''):
        self.m.get(fakes.HEAT + STACK, headers=fakes.JSON, json={'stack': {
            'id': STACK_ID, 'stack_name': 'p', 'stack_status': status,
            'stack_status_reason': reason,
            'creation_time': '2026-11-25T12:00:00Z'}})

    def last_step(self):
        return fakes.plan_store().reader.history('p')[0][-1]

    def test_a_failed_stack_is_1_with_its_row(self):
        self.heat_ends('CREATE_FAILED', 'Resource CREATE failed: boom')
        self.m.get(fakes.HEAT + STACK + '/resources', headers=fakes.JSON,
                   json={'resources': [{
                       'resource_name': 'server', 'links': [{
                           'rel': 'stack', 'href': fakes.HEAT + STACK}],
                       'resource_status': 'CREATE_FAILED',
                       'resource_status_reason': 'boom'}]})
        code, out, err = self.run_command(deploy_commands.Deploy,
                                          '--stack', 'p')
        self.assertEqual(exit_status.FAILED, code, err)
        row = self.row(out)
        self.assertEqual(('p', 'deploy', 'CREATE', STACK_ID, 'CREATE_FAILED',
                          'FAILED'), (
            row['plan'], row['action'], row['operation'], row['stack_id'],
            row['stack_status'], row['status']))
        self.assertEqual(self.last_step()['id'], row['id'])
        self.assertIn('recorded as FAILED', err)
        self.assertIn('failed: p:server: boom', err)
        # why, in the row: Heat's reason and the first failed resource
        self.assertEqual('Resource CREATE failed: boom; first failed '
                         'resource: p:server: boom', row['reason'])
        # and in the record, for show-history
        self.assertEqual('Resource CREATE failed: boom',
                         self.last_step()['outcome']['reason'])

    def test_success_is_0_and_quiet_leaves_stderr_empty(self):
        self.heat_ends('CREATE_COMPLETE', 'done')
        code, out, err = self.run_command(deploy_commands.Deploy,
                                          '--stack', 'p', quiet=True)
        self.assertEqual((exit_status.DONE, ''), (code, err))
        self.assertEqual(('SUCCESS', None), (self.row(out)['status'],
                                             self.row(out)['reason']))

    def test_still_running_at_timeout_is_4_with_its_row(self):
        self.m.get(fakes.HEAT + STACK + '/events', headers=fakes.JSON,
                   json={'events': []})
        self.stack_status('CREATE_IN_PROGRESS', 'Stack CREATE started')
        code, out, err = self.run_command(deploy_commands.Deploy,
                                          '--stack', 'p', '--timeout', '1')
        self.assertEqual(exit_status.TIMEOUT, code, err)
        row = self.row(out)
        self.assertEqual(('TIMEOUT', 'CREATE_IN_PROGRESS', STACK_ID), (
            row['status'], row['stack_status'], row['stack_id']))
        # a minute and the grace, in the follower's time, not the test's
        self.assertGreaterEqual(self.clock.now, 60)
        reason = ('Timed out after 70 s (--timeout of 1 minutes): CREATE '
                  'goes on in Heat')
        self.assertEqual(reason, row['reason'])
        self.assertEqual(('TIMEOUT', reason), (
            self.last_step()['outcome']['status'],
            self.last_step()['outcome']['reason']))

    def test_ctrl_c_while_following_is_130_with_its_row(self):
        def interrupted(request, context):
            raise KeyboardInterrupt()
        self.m.get(fakes.HEAT + STACK + '/events', json=interrupted)
        code, out, err = self.run_command(deploy_commands.Deploy,
                                          '--stack', 'p')
        self.assertEqual(exit_status.INTERRUPTED, code, err)
        row = self.row(out)
        step = self.last_step()
        self.assertEqual(('INTERRUPTED', step['id'], STACK_ID, 'CREATE'), (
            row['status'], row['id'], row['stack_id'], row['operation']))
        self.assertIn('Interrupted: what Heat was asked goes on', err)
        self.assertTrue(row['reason'].startswith(
            'Interrupted: what Heat was asked goes on'), row['reason'])
        # Heat's end is still to be learnt: the record keeps it open.
        self.assertEqual('UNKNOWN', step['outcome']['status'])

    def test_mistral_lost_after_the_start_is_1_not_a_refusal(self):
        # The deploy action ran (its step recorded, the stack asked for);
        # then Mistral no longer answers the client.
        self.m.get(re.compile(re.escape(fakes.MISTRAL) +
                              '/executions/[^/]+/tasks'), status_code=500)
        code, out, err = self.run_command(deploy_commands.Deploy,
                                          '--stack', 'p')
        self.assertEqual(exit_status.FAILED, code, err)
        row = self.row(out)
        self.assertIn('lost sight of Mistral execution', row.pop('reason'))
        self.assertEqual(dict.fromkeys(deploy_commands.RESULT_COLUMNS) | {
            'plan': 'p', 'action': 'deploy', 'status': 'FAILED'},
            dict(row, reason=None))
        self.assertIn('Deploying p: lost sight of Mistral execution', err)

    def test_a_busy_stack_is_refused_3_with_a_row_and_nothing_recorded(self):
        fakes.stack_is(self.m, {'stack': {
            'id': STACK_ID, 'stack_name': 'p',
            'stack_status': 'CREATE_IN_PROGRESS',
            'creation_time': '2026-11-25T12:00:00Z'}}, STACK_ID)
        steps = len(fakes.plan_store().reader.history('p')[0])
        code, out, err = self.run_command(deploy_commands.Deploy,
                                          '--stack', 'p')
        self.assertEqual(exit_status.REFUSED, code, err)
        self.assertIn('CREATE_IN_PROGRESS', err)
        row = self.row(out)
        self.assertIn('CREATE_IN_PROGRESS', row['reason'])
        self.assertNotIn('\n', row['reason'])
        self.assertEqual(dict.fromkeys(deploy_commands.RESULT_COLUMNS) | {
            'plan': 'p', 'action': 'deploy', 'status': 'REFUSED'},
            dict(row, reason=None))
        self.assertEqual(steps, len(fakes.plan_store().reader.history('p')[0]))


class TestPlanOutcomes(OutcomeTestCase):

    def setUp(self):
        super().setUp()
        self.our_services()
        self.tht = os.path.join(self.dir, 'tht')
        fakes.write_file(os.path.join(self.tht, 'overcloud.yaml'),
                         'heat_template_version: rocky\nresources: {}\n')
        fakes.write_file(os.path.join(self.tht, 'roles_data.yaml'),
                         '- name: Controller\n')

    def test_amend_of_a_missing_plan_is_refused_3_with_a_row(self):
        env = fakes.write_file(os.path.join(self.dir, 'e.yaml'))
        code, out, err = self.run_command(plan_commands.AmendPlan, 'p',
                                          '-e', env)
        self.assertEqual(exit_status.REFUSED, code, err)
        self.assertEqual(dict.fromkeys(plan_commands.STEP_COLUMNS) | {
            'plan': 'p', 'action': 'amend', 'status': 'REFUSED'},
            self.row(out))
        self.assertIn('p', err)
        self.assertEqual({}, self.swift.objects)

    def test_a_failed_render_is_1_with_the_step_row(self):
        fakes.write_file(os.path.join(self.tht, 'broken.j2.yaml'),
                         'a: {{ nothing(\n')
        code, out, err = self.run_command(plan_commands.CreatePlan, 'p',
                                          '--templates', self.tht)
        self.assertEqual(exit_status.FAILED, code, err)
        row = self.row(out)
        self.assertEqual(('p', 'create', 'FAILED'), (
            row['plan'], row['action'], row['status']))
        self.assertIsNotNone(row['id'])
        self.assertIn('recorded as FAILED', err)

    def test_quiet_keeps_errors_and_warnings_only(self):
        code, out, err = self.run_command(plan_commands.CreatePlan, 'p',
                                          '--templates', self.tht,
                                          quiet=True)
        self.assertEqual((exit_status.DONE, ''), (code, err))
        self.assertEqual('SUCCESS', self.row(out)['status'])
        code, _, err = self.run_command(plan_commands.CreatePlan, 'p',
                                        '--templates', self.tht, quiet=True)
        self.assertEqual(exit_status.REFUSED, code)
        self.assertIn('p', err)

    def test_a_refused_setting_is_3_with_a_row(self):
        code, out, err = self.run_command(library.SetCapabilities, 'p')
        self.assertEqual(exit_status.REFUSED, code, err)
        self.assertEqual(('p', 'capabilities', 'REFUSED'), tuple(
            self.row(out)[c] for c in ('plan', 'action', 'status')))


class TestReasonLine(fakes.HttpTestCase):

    def test_one_line_bounded_secrets_masked(self):
        text = ('Failed:\n  url: https://admin:s3cret@127.0.0.9/x\n'
                '  AdminPassword: hunter2\n\tnext\x01 line ' + 'x' * 600)
        found = exit_status.reason(text)
        self.assertEqual(exit_status.REASON_MAX, len(found))
        self.assertTrue(found.startswith(
            'Failed: url: https://***@127.0.0.9/x AdminPassword: *** next'),
            found)
        self.assertTrue(found.endswith('x...'))
        for secret in ('s3cret', 'hunter2', '\n', '\t'):
            self.assertNotIn(secret, found)
        self.assertEqual('short', exit_status.reason(' short\n'))
        self.assertIsNone(exit_status.reason(None))
        self.assertIsNone(exit_status.reason(''))


class TestDeploymentOutcomes(OutcomeTestCase):
    """``software deployment watch`` / ``cancel`` of a HEAT_SIGNAL
    deployment (Heat applies the server's answer itself)."""

    def deployment_is(self, status):
        self.on_heat('GET', '/software_deployments/sd1', {
            'software_deployment': {
                'id': 'sd1', 'config_id': 'c9', 'server_id': 's1',
                'action': 'BACKUP', 'status': status,
                'status_reason': 'why', 'output_values': {}}})
        self.on_heat('GET', '/software_configs/c9', {'software_config': {
            'id': 'c9', 'name': 'deployment-BACKUP', 'outputs': [],
            'inputs': [
                {'name': 'deploy_signal_transport', 'value': 'HEAT_SIGNAL'},
                {'name': 'deploy_stack_id', 'value': 'n/st1'},
                {'name': 'deploy_resource_name', 'value': 'deployment'}]}})

    def test_watch_codes(self):
        for status, code in (('COMPLETE', exit_status.DONE),
                             ('FAILED', exit_status.FAILED)):
            self.deployment_is(status)
            got, out, err = self.run_command(software.Watch, 'sd1')
            self.assertEqual((code, status), (got, self.row(out)['status']))

    def test_watch_still_in_progress_at_timeout_is_4(self):
        self.deployment_is('IN_PROGRESS')
        code, out, err = self.run_command(
            software.Watch, 'sd1', '--timeout', '0.001', '--interval', '0.1')
        self.assertEqual(exit_status.TIMEOUT, code, err)
        self.assertEqual(('sd1', 'IN_PROGRESS'), (
            self.row(out)['id'], self.row(out)['status']))

    def test_watch_of_an_unknown_deployment_is_refused_3(self):
        self.m.get(fakes.HEAT + '/software_deployments/nope',
                   status_code=404, headers=fakes.JSON,
                   json={'code': 404, 'title': 'Not Found', 'error': {
                       'message': 'not found', 'type': 'NotFound'}})
        code, out, err = self.run_command(software.Watch, 'nope')
        self.assertEqual(exit_status.REFUSED, code, err)
        self.assertEqual(('nope', 'REFUSED'), (
            self.row(out)['id'], self.row(out)['status']))
