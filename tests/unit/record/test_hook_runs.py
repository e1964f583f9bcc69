"""A post hook's validation runs in the record (``record.hook_runs``):
objects of their own, each written once, merged into their step's row
by the readers; against a stateful fake Swift."""

from osc_lib import exceptions

from tests.unit import fakes
from tripleoplanclient.record import hook_runs
from tripleoplanclient.record import log

RUN = '5d0c5a34-7a55-4f39-9d34-0e0a3ac5b1a2'


def found(status, run=RUN):
    return {'hook': 'post', 'group': 'post-update', 'run': run,
            'status': status}


class TestHookRuns(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.swift = fakes.FakeSwift(self.m)
        self.store = fakes.plan_store()
        step = log.make_step('create', {'environments': {'set': [
            'base.yaml']}}, argv=[])
        self.store.writer.write_step(
            'p', step, self.store.reader.head('p', required=False))
        self.step_id = step['id']

    def rows(self):
        rows, _ = self.store.reader.history('p')
        return hook_runs.merge(self.store.container, 'p', rows)

    def test_its_start_then_its_end_each_written_once(self):
        writer = self.store.writer
        self.assertTrue(writer.write_hook_run('p', self.step_id,
                                              found('RUNNING'), final=False))
        self.assertEqual([found('RUNNING')], self.rows()[0]['validations'])
        self.assertTrue(writer.write_hook_run('p', self.step_id,
                                              found('FAILED')))
        self.assertEqual([found('FAILED')], self.rows()[0]['validations'])
        # never overwritten: the first writer of the end keeps it
        self.assertFalse(writer.write_hook_run('p', self.step_id,
                                               found('PASSED')))
        self.assertEqual([found('FAILED')], self.rows()[0]['validations'])
        # the step object itself is never written again
        step_name, = [n for n in self.swift.objects if log.id_of(n)]
        self.assertNotIn(b'validations', self.swift.objects[step_name][0])

    def test_after_the_steps_own_pre_hook_run(self):
        pre = {'hook': 'pre', 'group': 'pre-update', 'run': 'r1',
               'status': 'PASSED'}
        self.store.writer.write_hook_run('p', self.step_id, found('PASSED'))
        rows, _ = self.store.reader.history('p')
        rows[0]['validations'] = [pre]
        hook_runs.merge(self.store.container, 'p', rows)
        self.assertEqual([pre, found('PASSED')], rows[0]['validations'])

    def test_objects_of_no_step_and_other_names_are_left_out(self):
        self.swift.store(hook_runs.path('0' * 12, RUN), log.dump(
            found('PASSED')))
        self.swift.store(hook_runs.PREFIX + 'notes.txt', b'x')
        self.assertNotIn('validations', self.rows()[0])

    def test_a_damaged_object_is_named(self):
        name = hook_runs.path(self.step_id, RUN)
        self.swift.store(name, b'hook: post\n')
        with self.assertRaisesRegex(exceptions.CommandError, name):
            self.rows()

    def test_a_run_id_that_is_no_object_name_is_refused(self):
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'no request was sent for object name'):
            self.store.writer.write_hook_run(
                'p', self.step_id, found('PASSED', run='../../x'))
        self.assertEqual([], [n for n in self.swift.objects
                              if 'validations' in n or '..' in n])

    def test_a_read_only_reader_writes_nothing(self):
        store = fakes.plan_store(read_only=True)
        self.assertIsNone(store.writer.write_hook_run(
            'p', self.step_id, found('PASSED')))
        self.assertNotIn('validations', self.rows()[0])
