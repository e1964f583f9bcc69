"""A stack step whose servers are configured after Heat
(``mistral.stack_step`` with the deploy request's ``config``): Heat's end
recorded not final, the step's end left to the configure task; a
redeploy with nothing changed still configures; --config-download-only
asks no Heat and says so in its step; --stack-only is as before."""

from tests.unit import fakes
from tests.unit.mistral import stack_step_base
from tests.unit import small_plan
from tripleoplanclient.common import exceptions
from tripleoplanclient.record import log

STACK_ID = fakes.STACK_ID
UPDATED = '2024-05-01T10:00:00Z'
ROLE_DATA = [{'output_key': 'RoleData', 'output_value': {'Controller': {}}}]


class TestConfigure(stack_step_base.StackStepTestCase):

    def deployed(self, outputs=None):
        fakes.stack_is(self.m, None)
        first = self.ask('deploy', container='p')
        self.store.writer.write_outcome('p', first['step']['id'], {
            'status': 'SUCCESS', 'stack_id': STACK_ID,
            'stack_status': 'CREATE_COMPLETE'}, {
                'id': STACK_ID, 'operation': 'CREATE', 'updated': UPDATED,
                'fingerprint': first['fingerprint']})
        body = small_plan.stack('CREATE_COMPLETE', None)
        if outputs is not None:
            body['stack']['outputs'] = outputs
        fakes.stack_is(self.m, body, STACK_ID)
        return first

    def partial(self, step_id):
        import yaml
        data = self.swift.objects.get(log.outcome_path(step_id, False))
        return data and yaml.safe_load(data[0])

    def test_a_redeploy_with_nothing_changed_configures_again(self):
        self.deployed(ROLE_DATA)
        answer = self.ask('deploy', container='p', tags=['step1'])
        step = answer['step']
        self.assertEqual(('NONE', True, 'IN_PROGRESS'), (
            answer['operation'], answer['configure'],
            step['outcome']['status']))
        # Heat's part on record, not final: the configure task ends it
        self.assertIsNone(self.outcome(step['id']))
        self.assertTrue(self.partial(step['id'])['outcome']['configuring'])
        self.assertEqual({'mode': 'auto', 'tags': ['step1'],
                          'config_timeout': 240}, step['config'])
        self.assertEqual(1, self.create.call_count)

    def test_without_config_download_outputs_it_is_done_as_before(self):
        self.deployed([{'output_key': 'RoleNetIpMap', 'output_value': {}}])
        answer = self.ask('deploy', container='p')
        self.assertNotIn('configure', answer)
        self.assertEqual('SUCCESS', self.outcome(answer['step']['id'])[
            'outcome']['status'])
        self.assertNotIn('config', answer['step'])

    def test_stack_only_never_configures(self):
        self.deployed(ROLE_DATA)
        answer = self.ask('deploy', container='p', config='none')
        self.assertNotIn('configure', answer)
        self.assertEqual('SUCCESS', self.outcome(answer['step']['id'])[
            'outcome']['status'])
        self.assertEqual({'mode': 'none', 'config_timeout': 240},
                         answer['step']['config'])

    def test_config_download_only_asks_no_heat(self):
        self.deployed()
        update = self.m.put(fakes.HEAT + '/stacks/' + STACK_ID,
                            status_code=202)
        answer = self.ask('deploy', container='p', config='only',
                          force=True)
        step = answer['step']
        self.assertTrue(answer['configure'])
        self.assertEqual(('NONE', True, STACK_ID), (
            step['stack']['operation'], step['stack']['config_only'],
            step['stack']['id']))
        self.assertEqual((0, 1), (update.call_count, self.create.call_count))
        self.assertEqual('only', step['config']['mode'])
        self.assertIsNone(self.outcome(step['id']))
        # the step is on record as the stack step, still open
        rows, head = self.store.reader.history('p')
        self.assertEqual((step['id'], 'IN_PROGRESS'), (
            head.state['stack'], rows[-1]['outcome']['status']))

    def test_config_download_only_with_changes_is_refused(self):
        self.deployed()
        before = len(self.steps())
        with self.assertRaises(exceptions.CommandError) as ctx:
            self.ask('deploy', container='p', config='only',
                     add=['old.yaml'])
        self.assertIn('--config-download-only', str(ctx.exception))
        self.assertEqual(before, len(self.steps()))

    def test_config_download_only_needs_a_complete_stack(self):
        fakes.stack_is(self.m, None)
        self.assertRaises(exceptions.CommandError, self.ask, 'deploy',
                          container='p', config='only')

    def test_an_unknown_mode_is_refused(self):
        with self.assertRaises(exceptions.CommandError) as ctx:
            self.ask('deploy', container='p', config='sometimes')
        self.assertIn('config must be one of', str(ctx.exception))
