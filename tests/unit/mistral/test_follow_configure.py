"""The follow task when the servers are configured after Heat
(``mistral.follow``): Heat's end recorded not final and the configure
task told to go on; without config-download outputs, as before."""

import yaml

from tests.unit import fakes
from tests.unit import small_plan
from tripleoplanclient.mistral import follow
from tripleoplanclient import protocol
from tripleoplanclient.record import log

HEAT = fakes.HEAT
STARTED = {'stack_id': fakes.STACK_ID, 'operation': 'UPDATE',
           'fingerprint': 'f', 'swift_gets': 0, 'files': 3}


class TestFollowConfigure(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.swift = fakes.FakeSwift(self.m)
        self.store = fakes.plan_store()

    def look(self, outputs, started=STARTED, **fields):
        body = small_plan.stack('UPDATE_COMPLETE')
        body['stack']['outputs'] = outputs
        fakes.stack_is(self.m, body, fakes.STACK_ID)
        req = protocol.read('deploy', protocol.request(
            'deploy', container='p', environments=[], step='abc',
            heat_url=HEAT, **fields))
        return follow.follow(self.store, fakes.heat_client(), req, started)

    def found(self, final=True):
        data = self.swift.objects.get(log.outcome_path('abc', final))
        return data and yaml.safe_load(data[0])

    def test_heat_s_end_is_not_the_step_s_when_it_configures(self):
        answer = self.look([{'output_key': 'RoleConfig',
                             'output_value': {}}])
        self.assertEqual({'done': True, 'configure': True,
                          'stack_status': 'UPDATE_COMPLETE'}, answer)
        self.assertIsNone(self.found())
        partial = self.found(final=False)
        self.assertEqual(('IN_PROGRESS', True, 'UPDATE_COMPLETE'), (
            partial['outcome']['status'], partial['outcome']['configuring'],
            partial['outcome']['stack_status']))

    def test_other_outputs_end_the_step_as_before(self):
        answer = self.look([{'output_key': 'ServerIdData',
                             'output_value': {}}])
        self.assertEqual({'done': True, 'status': 'SUCCESS'}, answer)
        self.assertEqual('SUCCESS', self.found()['outcome']['status'])

    def test_stack_only_ends_the_step(self):
        answer = self.look([{'output_key': 'RoleData', 'output_value': {}}],
                           config='none')
        self.assertEqual('SUCCESS', answer['status'])
        self.assertIsNone(self.found(final=False))

    def test_what_the_deploy_task_left_to_configure_costs_no_request(self):
        started = dict(STARTED, operation='NONE', configure=True)
        self.assertEqual({'done': True, 'configure': True},
                         self.look([], started=started))
        self.assertEqual([], [r for r in self.m.request_history
                              if r.method != 'GET' or 'heat' in r.netloc])
