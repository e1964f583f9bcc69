"""Mending a stack step nobody saw end, from Heat's stack."""

import calendar
import time
import types

from tests.unit import fakes
from tripleoplanclient.common import exceptions
from tripleoplanclient.record import log
from tripleoplanclient.record import open_step

STARTED = '2026-11-23T11:00:00Z'


def stack(status, updated=None, created='2026-11-23T10:00:00Z'):
    return types.SimpleNamespace(
        id='sid', stack_status=status, stack_status_reason='because',
        updated_time=updated, creation_time=created)


class TestMend(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.swift = fakes.FakeSwift(self.m)
        self.store = fakes.plan_store()
        step = log.make_step('update', {}, argv=['overcloud', 'update'],
                             stack={'operation': 'UPDATE'})
        step['time'] = STARTED
        step['outcome']['status'] = 'IN_PROGRESS'
        self.store.writer.write_step(
            'p', step, self.store.reader.head('p', required=False))
        self.step = step
        self.now = calendar.timegm(time.strptime(STARTED,
                                                 '%Y-%m-%dT%H:%M:%SZ'))

    def rows(self):
        return self.store.reader.history('p')[0]

    def test_a_busy_stack_is_the_step_still_running(self):
        rows = self.rows()
        row = open_step.mend(self.store, 'p', rows,
                             stack('UPDATE_IN_PROGRESS', STARTED), self.now)
        self.assertIs(rows[-1], row)
        error = open_step.running(row)
        self.assertIsInstance(error, exceptions.CommandError)
        self.assertIn('in progress (step 1, update, started by', str(error))
        self.assertEqual('IN_PROGRESS',
                         self.rows()[-1]['outcome']['status'])

    def ended(self, status):
        rows = self.rows()
        self.assertIsNone(open_step.mend(
            self.store, 'p', rows, stack(status, '2026-11-23T11:05:00Z'),
            self.now))
        self.assertIsNone(open_step.find(rows))
        return self.rows()[-1]['outcome']

    def test_a_completed_operation_is_recorded_from_heat(self):
        outcome = self.ended('UPDATE_COMPLETE')
        self.assertEqual(('SUCCESS', 'UPDATE_COMPLETE'), (
            outcome['status'], outcome['stack_status']))
        self.assertIn('from Heat', outcome['mended'])

    def test_a_failed_operation_is_recorded_from_heat(self):
        outcome = self.ended('UPDATE_FAILED')
        self.assertEqual(('FAILED', 'because'), (outcome['status'],
                                                 outcome['reason']))

    def test_a_step_heat_never_heard_of_is_interrupted_after_a_while(self):
        old = stack('CREATE_COMPLETE')          # unchanged since before
        self.assertIsNotNone(open_step.mend(self.store, 'p', self.rows(), old,
                                            self.now + 60))
        self.assertIsNone(open_step.mend(self.store, 'p', self.rows(), old,
                                         self.now + open_step.GRACE + 1))
        self.assertEqual('INTERRUPTED',
                         self.rows()[-1]['outcome']['status'])

    def test_a_final_step_is_left_alone(self):
        self.store.writer.write_outcome('p', self.step['id'],
                                        {'status': 'SUCCESS'})
        self.assertIsNone(open_step.mend(self.store, 'p', self.rows(),
                                         stack('UPDATE_FAILED'), self.now))
        self.assertEqual('SUCCESS', self.rows()[-1]['outcome']['status'])

    def test_an_end_recorded_while_heat_was_asked_stands(self):
        # The rows were read before the follow task recorded the end.
        rows = self.rows()
        self.store.writer.write_outcome('p', self.step['id'], {
            'status': 'FAILED', 'recorded_by': 'mistral'})
        self.assertIsNone(open_step.mend(
            self.store, 'p', rows, stack('UPDATE_COMPLETE',
                                         '2026-11-23T11:05:00Z'), self.now))
        self.assertEqual(('FAILED', 'mistral'), (
            rows[-1]['outcome']['status'],
            rows[-1]['outcome']['recorded_by']))
        stored = self.rows()[-1]['outcome']
        self.assertEqual(('FAILED', 'mistral'), (stored['status'],
                                                 stored['recorded_by']))
