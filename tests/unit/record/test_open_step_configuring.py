"""A stack step whose servers are being configured (Heat's end recorded,
not final): still running for whoever mends open steps, until far past
its time budget (``record.open_step``)."""

import calendar
import time
import types

from tests.unit import fakes
from tripleoplanclient.record import log
from tripleoplanclient.record import open_step

STARTED = '2026-11-23T11:00:00Z'


class TestConfiguring(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.swift = fakes.FakeSwift(self.m)
        self.store = fakes.plan_store()
        step = log.make_step('deploy', {}, argv=['overcloud', 'deploy'],
                             stack={'operation': 'UPDATE'},
                             config={'mode': 'auto', 'config_timeout': 10})
        step['time'] = STARTED
        step['outcome']['status'] = 'IN_PROGRESS'
        self.store.writer.write_step(
            'p', step, self.store.reader.head('p', required=False))
        self.store.writer.write_outcome('p', step['id'], {
            'status': 'IN_PROGRESS', 'configuring': True,
            'stack_status': 'UPDATE_COMPLETE'}, {}, final=False)
        self.step = step
        self.now = calendar.timegm(time.strptime(STARTED,
                                                 '%Y-%m-%dT%H:%M:%SZ'))
        # Heat's stack ended after the step began
        self.stack = types.SimpleNamespace(
            id='sid', stack_status='UPDATE_COMPLETE', stack_status_reason='',
            updated_time='2026-11-23T11:05:00Z',
            creation_time='2026-11-23T10:00:00Z')

    def mend(self, seconds):
        rows = self.store.reader.history('p')[0]
        return open_step.mend(self.store, 'p', rows, self.stack,
                              now=self.now + seconds)

    def test_heat_s_end_does_not_end_the_step(self):
        self.assertEqual(self.step['id'], self.mend(3600)['id'])
        self.assertIsNone(self.swift.objects.get(log.outcome_path(
            self.step['id'])))

    def test_far_past_its_budget_it_is_interrupted(self):
        # 10 minutes of configuration, 240 of Heat, the grace
        self.assertEqual(self.step['id'], self.mend(250 * 60)['id'])
        self.assertIsNone(self.mend(250 * 60 + open_step.GRACE + 1))
        rows = self.store.reader.history('p')[0]
        self.assertEqual('INTERRUPTED', rows[-1]['outcome']['status'])
