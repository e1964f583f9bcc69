"""``overcloud plan show`` through the real client wrapper, on a fake Swift
with state and a faked Heat."""

import io
import json
import os
import shutil
import tempfile
from unittest import mock

from osc_lib import exceptions

from tests.unit import fakes
from tripleoplanclient.osc import plan as plan_commands
from tripleoplanclient.osc import plan_show
from tripleoplanclient.record import log

SWIFT = fakes.SWIFT
HEAT = fakes.HEAT
STACK_ID = '7f3c0a52-0000-4000-8000-0000000000c1'


class TestShowPlan(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.our_services()
        self.store = fakes.plan_store()
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        patcher = mock.patch.dict(os.environ, {
            'XDG_CACHE_HOME': os.path.join(self.dir, 'cache')})
        patcher.start()
        self.addCleanup(patcher.stop)
        self.tht = os.path.join(self.dir, 'tht')
        fakes.write_file(os.path.join(self.tht, 'overcloud.yaml'),
                         'heat_template_version: rocky\n')
        self.env = fakes.write_file(os.path.join(self.dir, 'env.yaml'),
                                    'parameter_defaults: {Debug: true}\n')
        self.other = fakes.write_file(os.path.join(self.dir, 'other.yaml'),
                                      'parameter_defaults: {A: 1}\n')
        self.run_command(plan_commands.CreatePlan, 'p', '--templates',
                         self.tht, '-e', self.env, '--no-render')
        self.run_command(plan_commands.AmendPlan, 'p', '-e', self.other,
                         '--no-render')

    def run_command(self, cls, *argv, endpoints=None):
        app = fakes.make_app(endpoints or {
            'object-store': SWIFT, 'orchestration': HEAT,
            'workflow': fakes.MISTRAL})
        app.stdout = io.StringIO()
        cmd = cls(app, None)
        parsed = cmd.get_parser('openstack').parse_args(list(argv))
        self.assertEqual(0, cmd.run(parsed))
        return app.stdout.getvalue(), app.stderr.getvalue()

    def show(self, endpoints=None):
        """``plan show p -f json``, parsed; its columns are always the
        same."""
        self.swift.requests.clear()
        self.m.reset_mock()
        out, _ = self.run_command(plan_show.ShowPlan, 'p', '-f', 'json',
                                  endpoints=endpoints)
        result = json.loads(out)
        self.assertEqual(list(plan_show.COLUMNS), list(result))
        return result

    def heat_requests(self):
        return [r for r in self.m.request_history
                if r.url.startswith(HEAT)]

    def deploy(self, status='SUCCESS'):
        step = log.make_step('deploy', {}, argv=[],
                             stack={'operation': 'CREATE'})
        step['outcome']['status'] = 'IN_PROGRESS'
        self.store.writer.write_step('p', step, self.store.reader.head('p'))
        if status != 'IN_PROGRESS':
            self.store.writer.write_outcome(
                'p', step['id'], {'status': status, 'stack_id': STACK_ID},
                {'id': STACK_ID, 'updated': '2026-11-25T10:00:00Z'})
        return step

    def heat_stack(self, status):
        self.m.get(HEAT + '/stacks/p/' + STACK_ID, headers=fakes.JSON,
                   json={'stack': {
                       'id': STACK_ID, 'stack_name': 'p',
                       'stack_status': status, 'stack_status_reason': '',
                       'creation_time': '2026-11-25T09:00:00Z',
                       'updated_time': '2026-11-25T10:00:00Z'}})

    def test_a_plan_never_deployed_from_its_index_alone(self):
        result = self.show()
        # The index, one GET; no listing, no step object, no Heat.
        self.assertEqual([('GET', log.PATH)], self.swift.requests)
        self.assertEqual([], self.heat_requests())
        self.assertEqual('p', result['plan'])
        self.assertEqual(self.tht, result['templates_source'])
        # A tree without a release version: its digest names it.
        self.assertTrue(result['templates'].startswith('digest '))
        envs = result['environments']
        self.assertEqual(['user-files' + self.env, 'user-files' +
                          self.other], envs[-2:])
        self.assertEqual(2, result['steps'])
        last = result['last_step']
        self.assertEqual(('amend', 2, 'SUCCESS'),
                         (last['action'], last['step'], last['status']))
        self.assertEqual(sorted(plan_show.STEP_FIELDS), sorted(last))
        self.assertIsNone(result['open_step'])
        self.assertEqual({'name': 'p', 'id': None, 'updated': None,
                          'status': 'NOT DEPLOYED (no deploy step in the '
                                    'plan)'}, result['stack'])

    def test_a_deployed_stack_is_one_heat_request_by_its_id(self):
        step = self.deploy()
        self.heat_stack('CREATE_COMPLETE')
        result = self.show()
        self.assertEqual([('GET', log.PATH)], self.swift.requests)
        self.assertEqual(['%s/stacks/p/%s' % (HEAT, STACK_ID)],
                         [r.url for r in self.heat_requests()])
        self.assertEqual({'name': 'p', 'id': STACK_ID,
                          'status': 'CREATE_COMPLETE',
                          'updated': '2026-11-25T10:00:00Z'},
                         result['stack'])
        self.assertEqual((step['id'], 'deploy', 'SUCCESS', 3),
                         tuple(result['last_step'][k] for k in (
                             'id', 'action', 'status', 'step')))
        self.assertIsNone(result['open_step'])

    def test_an_open_step_is_shown_and_nothing_is_written(self):
        step = self.deploy('IN_PROGRESS')
        self.m.get(HEAT + '/stacks/p', status_code=302,
                   headers={'Location': HEAT + '/stacks/p/' + STACK_ID})
        self.heat_stack('CREATE_IN_PROGRESS')
        before = dict(self.swift.objects)
        result = self.show()
        self.assertEqual(before, self.swift.objects)
        self.assertEqual((step['id'], 'IN_PROGRESS'), (
            result['open_step']['id'], result['open_step']['status']))
        self.assertEqual('CREATE_IN_PROGRESS', result['stack']['status'])

    def test_without_heat_the_field_says_so(self):
        self.deploy()
        result = self.show({'object-store': SWIFT})
        self.assertEqual([], self.heat_requests())
        self.assertIn('UNKNOWN (no orchestration endpoint',
                      result['stack']['status'])
        self.assertEqual('deploy', result['last_step']['action'])

    def test_a_stack_gone_from_heat_is_said_in_the_field(self):
        self.deploy()
        self.m.get(HEAT + '/stacks/p/' + STACK_ID, status_code=404)
        fakes.stack_is(self.m, None)
        result = self.show()
        self.assertIn('NOT FOUND', result['stack']['status'])

    def test_an_unknown_plan_is_a_clear_error(self):
        self.m.get(SWIFT + '/q', status_code=404)
        self.m.get(SWIFT + '/q/' + log.PATH, status_code=404)
        app = fakes.make_app({'object-store': SWIFT})
        app.stdout = io.StringIO()
        cmd = plan_show.ShowPlan(app, None)
        parsed = cmd.get_parser('openstack').parse_args(['q'])
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Plan q does not exist'):
            cmd.run(parsed)
        self.assertEqual('', app.stdout.getvalue())
