"""The plan record: applying steps, and what the deploy action compares."""

import copy
import unittest

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import record


def step(step_id, action='amend', environments=('a.yaml',),
         status='SUCCESS', **details):
    s = record.make_step(action, list(environments), argv=[], **details)
    s['id'] = step_id
    s['outcome']['status'] = status
    return s


def deployed(step_id, fingerprint, updated='2024-05-01T12:00:00Z',
             status='SUCCESS'):
    return step(step_id, action='deploy', status=status, stack={
        'id': 'sid', 'operation': 'UPDATE', 'fingerprint': fingerprint,
        'updated': updated})


class TestApply(unittest.TestCase):

    def test_a_successful_step_changes_the_current_state(self):
        rec = record.new('p', '/tht')
        record.apply(rec, step(
            1, 'create', ['a.yaml', 'b.yaml'], added=['a.yaml'],
            files={'a.yaml': {'source': '/h/a.yaml', 'md5': 'x'}},
            inputs={'roles_data': 'r.yaml'}, templates='/tht2'))
        self.assertEqual(['a.yaml', 'b.yaml'], rec['environments'])
        self.assertEqual({'a.yaml': {'source': '/h/a.yaml', 'md5': 'x'}},
                         rec['files'])
        self.assertEqual({'roles_data': 'r.yaml'}, rec['inputs'])
        self.assertEqual('/tht2', rec['templates'])
        # The history keeps a summary: the path lists live in the step
        # object only.
        self.assertEqual(1, len(rec['history']))
        self.assertNotIn('paths', rec['history'][0])
        self.assertNotIn('files', rec['history'][0])
        self.assertEqual({'added': 1, 'changed': 0, 'removed': 0},
                         rec['history'][0]['objects'])

    def test_a_failed_step_changes_history_only(self):
        rec = record.new('p', '/tht')
        record.apply(rec, step(1, 'create', ['a.yaml'],
                               files={'a.yaml': {'md5': 'x'}},
                               inputs={'roles_data': 'r.yaml'}))
        before = copy.deepcopy(rec)
        record.apply(rec, step(
            2, 'deploy', ['a.yaml', 'b.yaml'], status='FAILED',
            files={'a.yaml': {'md5': 'y'}, 'b.yaml': {'md5': 'z'}},
            inputs={'roles_data': 'other.yaml'}, templates='/elsewhere'))
        for key in ('environments', 'files', 'inputs', 'templates'):
            self.assertEqual(before[key], rec[key], key)
        self.assertEqual([1, 2], [s['id'] for s in rec['history']])
        self.assertEqual('FAILED', rec['history'][1]['outcome']['status'])

    def test_an_applied_record_survives_dump_and_load(self):
        rec = record.new('p')
        record.apply(rec, deployed(1, 'f1'))
        again = record.load(record.dump(rec), 'p')
        self.assertEqual(rec, again)
        self.assertEqual({'fingerprint': 'f1',
                          'updated': '2024-05-01T12:00:00Z'},
                         record.last_stack(again))


class TestLastSuccess(unittest.TestCase):

    def test_no_step_is_zero(self):
        self.assertEqual(0, record.last_success_id(record.new('p')))

    def test_failed_steps_are_skipped(self):
        rec = record.new('p')
        for s in (step(1), step(2), step(3, status='FAILED'),
                  step(4, status='TIMEOUT')):
            record.apply(rec, s)
        self.assertEqual(2, record.last_success_id(rec))
        self.assertEqual(4, record.last_id(rec))

    def test_only_failures_is_zero(self):
        rec = record.new('p')
        record.apply(rec, step(1, status='FAILED'))
        self.assertEqual(0, record.last_success_id(rec))
        self.assertFalse(record.succeeded(rec))


class TestLastStack(unittest.TestCase):

    def history(self, *steps):
        rec = record.new('p')
        for s in steps:
            record.apply(rec, s)
        return rec

    def test_no_stack_step(self):
        self.assertIsNone(record.last_stack(self.history(step(1), step(2))))

    def test_the_newest_stack_step_counts(self):
        rec = self.history(deployed(1, 'f1', '2024-01-01T00:00:00Z'),
                           deployed(2, 'f2', '2024-02-02T00:00:00Z'))
        self.assertEqual({'fingerprint': 'f2',
                          'updated': '2024-02-02T00:00:00Z'},
                         record.last_stack(rec))

    def test_steps_without_a_stack_do_not_hide_it(self):
        rec = self.history(deployed(1, 'f1'), step(2, 'amend'),
                           step(3, 'amend', status='FAILED'))
        self.assertEqual('f1', record.last_stack(rec)['fingerprint'])

    def test_a_failed_stack_step_after_a_good_one_is_none(self):
        rec = self.history(deployed(1, 'f1'),
                           deployed(2, 'f2', status='FAILED'))
        self.assertIsNone(record.last_stack(rec))

    def test_an_unfinished_stack_step_is_none(self):
        for status in ('IN_PROGRESS', 'TIMEOUT'):
            rec = self.history(deployed(1, 'f1'),
                               deployed(2, 'f2', status=status))
            self.assertIsNone(record.last_stack(rec), status)


class TestHeatEnvironments(unittest.TestCase):

    def test_the_lifecycle_file_of_the_step_goes_last(self):
        s = step(2, 'update', ['a.yaml', 'b.yaml'],
                 lifecycle='environments/lifecycle/update-prepare.yaml')
        self.assertEqual(['a.yaml', 'b.yaml',
                          'environments/lifecycle/update-prepare.yaml'],
                         record.heat_environments(s))
        self.assertEqual(['a.yaml', 'b.yaml'], s['environments'])

    def test_without_lifecycle_the_plan_list(self):
        self.assertEqual(['a.yaml'], record.heat_environments(step(1)))


class TestStepObjects(unittest.TestCase):

    def test_step_paths_sort_by_id(self):
        self.assertEqual('user-environments/steps/000007.yaml',
                         record.step_path(7))
        self.assertLess(record.step_path(99), record.step_path(100))

    def test_a_step_object_round_trips(self):
        s = step(3, 'deploy', ['a.yaml'], added=['b.yaml', 'a.yaml'])
        loaded = record.load_step(record.dump(s), 'p', 'x')
        self.assertEqual(s, loaded)
        self.assertEqual(['a.yaml', 'b.yaml'], loaded['paths']['added'])

    def test_a_missing_step_object_is_none(self):
        self.assertIsNone(record.load_step(None, 'p', 'x'))

    def test_a_damaged_step_object_is_named(self):
        for data in (b'id: [\n', b'- 1\n', b'id: "3"\n'):
            with self.assertRaisesRegex(exceptions.CommandError,
                                        'Step object s/1.yaml of plan p'):
                record.load_step(data, 'p', 's/1.yaml')


class TestLoadAndCommandLine(unittest.TestCase):

    def test_secrets_are_masked_in_the_command_line(self):
        line = record.sanitize_argv([
            '--os-password', 'hunter2', '--os-token=abc', 'overcloud',
            'plan', 'create', 'p', '--templates', '/t', '-e', 'x.yaml',
            '--os-application-credential-secret', 's3'])
        for secret in ('hunter2', 'abc', 's3'):
            self.assertNotIn(secret, line)
        self.assertIn('--templates /t -e x.yaml', line)
        self.assertIn('--os-token=***', line)

    def test_unknown_record_version_is_refused(self):
        with self.assertRaisesRegex(exceptions.CommandError, 'version 2'):
            record.load(b'version: 2\n', 'p')
