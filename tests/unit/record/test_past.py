"""Past steps shown, exported and restored, on a stateful fake Swift."""

import os

from tests.unit import fakes
from tests.unit.record import past_base
from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import builder
from tripleoplanclient.plan import files as files_mod
from tripleoplanclient.plan import tree
from tripleoplanclient.record import log
from tripleoplanclient.record import past
from tripleoplanclient.record import steps


class TestShowAndExport(past_base.PastTestCase):

    def test_each_step_lists_the_files_it_left(self):
        self.story()
        env = 'user-files' + os.path.join(self.dir, 'env.yaml')
        first = {p: (m, e) for p, m, e, _ in
                 past.files(self.store, past.at(self.store, 'p', '1'))}
        third = {p: (m, e) for p, m, e, _ in
                 past.files(self.store, past.at(self.store, 'p', '3'))}
        self.assertEqual((content.md5(b'parameters: {a: 1}\n'), 1),
                         first[env])
        self.assertEqual((content.md5(b'parameters: {a: 2}\n'), 1),
                         third[env])
        self.assertEqual(content.md5(b'heat: 1\n'), first['overcloud.yaml'][0])
        self.assertEqual(content.md5(b'heat: 2\n'), third['overcloud.yaml'][0])
        self.assertEqual(2, third['user-files' + os.path.join(
            self.dir, 'b.yaml')][1])
        self.assertNotIn('user-files' + os.path.join(self.dir, 'b.yaml'),
                         first)
        # A step is found by its id as well as its number.
        rows, _ = self.store.reader.history('p')
        self.assertEqual(
            past.files(self.store, past.at(self.store, 'p', '1')),
            past.files(self.store, past.at(self.store, 'p', rows[0]['id'])))

    def test_replaced_content_is_kept_once_inside_swift(self):
        self.story()
        kept = sorted(n for n in self.swift.objects
                      if n.startswith(tree.KEPT_PREFIX))
        self.assertEqual(sorted(tree.kept_name(content.md5(d)) for d in (
            b'parameters: {a: 1}\n', b'heat: 1\n')), kept)
        copies = [r for r in self.swift.requests if r[0] == 'COPY']
        self.assertEqual(2, len(copies))

    def test_an_export_of_a_step_is_the_same_bytes_later(self):
        self.create()
        self.amend([self.write('env.yaml', b'parameters: {a: 2}\n')])
        right_after = self.exported('2')
        self.amend([self.write('env.yaml', b'parameters: {a: 3}\n')],
                   [self.write('x', b'heat: 9\n') + '=overcloud.yaml'])
        self.amend(remove=[os.path.join(self.dir, 'env.yaml')])
        self.assertEqual(right_after, self.exported('2'))
        members = self.members(right_after)
        self.assertEqual(b'parameters: {a: 2}\n', members[
            'user-files' + os.path.join(self.dir, 'env.yaml')])
        self.assertEqual(b'heat: 1\n', members['overcloud.yaml'])
        # The record up to step 2, and nothing after it.
        steps_in = [n for n in members if n.startswith(log.LOG_PREFIX)]
        self.assertEqual(2, len(steps_in))

    def test_unknown_and_future_steps_are_refused(self):
        self.create()
        for which, message in (('0', 'has no step 0: its history has steps '
                                     '1 to 1'),
                               ('2', 'has no step 2'),
                               ('abc', "no step with id 'abc'")):
            with self.assertRaisesRegex(exceptions.CommandError, message):
                past.at(self.store, 'p', which)

    def test_content_changed_outside_a_step_is_named(self):
        self.story()
        self.swift.store('overcloud.yaml', b'edited by hand\n')
        self.swift.objects.pop(tree.kept_name(content.md5(b'heat: 1\n')))
        with self.assertRaisesRegex(exceptions.CommandError,
                                    r'1 file\(s\) as of step 1 was not kept '
                                    r'\(overcloud.yaml\)'):
            self.exported('1')

    def test_steps_of_an_older_client_have_no_content(self):
        self.create()
        # A step written before trees were recorded.
        step = log.make_step('amend', {}, argv=[])
        head = self.store.reader.head('p')
        head = head._replace(state=dict(head.state, tree=None))
        self.store.writer.write_step('p', step, head)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'never recorded'):
            self.exported('2')


class TestRestore(past_base.PastTestCase):
    """The plan_restore action's body (``mistral.restore``), on a plan
    with no stack."""

    def setUp(self):
        super().setUp()
        fakes.stack_is(self.m, None)

    def test_restore_puts_files_and_list_back_as_a_new_step(self):
        self.story()
        before = self.exported('1')
        self.swift.requests.clear()
        step = fakes.restore(self.store, '1')
        self.assertEqual('restore', step['action'])
        self.assertEqual(1, step['restored']['step'])
        # Content goes back by copies inside Swift: no file is uploaded.
        self.assertEqual([], [r for r in self.swift.requests
                              if r[0] == 'PUT' and not r[1].startswith(
                                  log.LOG_PREFIX)])
        rows, head = self.store.reader.history('p')
        self.assertEqual('restore', rows[-1]['action'])
        self.assertEqual(['user-files' + os.path.join(self.dir, 'env.yaml')],
                         head.state['environments'])
        env = 'user-files' + os.path.join(self.dir, 'env.yaml')
        self.assertEqual(b'parameters: {a: 1}\n', self.swift.objects[env][0])
        self.assertEqual(b'heat: 1\n',
                         self.swift.objects['overcloud.yaml'][0])
        self.assertNotIn('user-files' + os.path.join(self.dir, 'b.yaml'),
                         self.swift.objects)
        # The plan's files are those of step 1 again.
        files = {n: d for n, d in self.members(before).items()
                 if tree.in_tree(n)}
        self.assertEqual(files, {n: d for n, d in self.members(
            self.exported(str(len(rows)))).items() if tree.in_tree(n)})
        # And step 3 can still be had back.
        again = fakes.restore(self.store, '3')
        self.assertEqual(b'heat: 2\n',
                         self.swift.objects['overcloud.yaml'][0])
        self.assertEqual('restore', again['action'])

    def test_restoring_the_present_records_nothing(self):
        self.story()
        # The plan_restore action answers UNCHANGED: no step.
        self.assertEqual('UNCHANGED', fakes.restore(self.store, '3')[
            'status'])

    def test_a_restore_refused_for_lost_content_changes_nothing(self):
        self.story()
        self.swift.objects.pop(tree.kept_name(content.md5(b'heat: 1\n')))
        past.at(self.store, 'p', '1')      # mends the cache
        before = dict(self.swift.objects)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'overcloud.yaml.*Nothing was changed'):
            fakes.restore(self.store, '1')
        self.assertEqual(before, self.swift.objects)


class TestTreeState(past_base.PastTestCase):

    def test_an_amend_of_a_new_file_sends_it_once_and_reads_no_tree(self):
        self.create()
        self.swift.requests.clear()
        self.amend([self.write('one.yaml', b'{}\n')])
        # The client: the index (the head), the file. The action: the index
        # again (a step builds on the newest), one archive: the step and
        # the index after it.
        self.assertEqual([('GET', log.PATH), 'PUT', ('GET', log.PATH),
                          'ARCHIVE'], [r if r[0] == 'GET' else r[0]
                                       for r in self.swift.requests])

    def test_a_file_a_stopped_command_left_is_recorded_not_sent(self):
        self.create()
        head = self.store.reader.head('p')
        path = self.write('left.yaml', b'{}\n')
        files = files_mod.PlanFiles(head.state['templates'])
        files.add_environment(path)
        plan_path = files.plan_path(path)
        # A command stopped after writing it, before recording its step.
        self.swift.store(plan_path, b'{}\n')
        _, listing = self.store.container.listing('p')
        change = steps.Change(head.state, files, listing=listing,
                              view=self.store.container.view(
                                  'p', head.state['tree']))
        self.assertEqual([], change.added + change.changed)
        step = builder.step(change, 'deploy', argv=[])
        self.assertEqual(content.md5(b'{}\n'),
                         step['change']['tree'][plan_path])
        self.assertEqual(path, step['change']['files'][plan_path]['source'])

    def test_many_changes_fold_into_a_new_snapshot(self):
        self.create()
        uploads = [self.write('u/%03d' % i, b'%d' % i)
                   for i in range(tree.COMPACT + 1)]
        step = self.amend(uploads=uploads)
        self.assertEqual({}, step['state']['tree']['changes'])
        full = self.store.container.view('p', step['state']['tree']).full()
        self.assertEqual(content.md5(b'7'), full[
            'user-files' + os.path.join(self.dir, 'u/007')])
        self.assertEqual(content.md5(b'heat: 1\n'), full['overcloud.yaml'])


class TestOlderPlans(past_base.PastTestCase):

    def test_a_version_1_plan_gets_its_tree_on_its_next_step(self):
        import json
        self.swift.store('overcloud.yaml', b'heat: 1\n')
        self.swift.store(log.PATH, json.dumps({
            'version': 1, 'environments': [], 'files': {}, 'inputs': {},
            'templates': self.templates, 'history': [
                {'id': 1, 'action': 'create',
                 'outcome': {'status': 'SUCCESS'}}]}).encode())
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'step 1 was recorded by an older '
                                    'tripleoplanclient'):
            past.at(self.store, 'p', '1')
        self.amend([self.write('env.yaml', b'{}\n')])
        # The container as it was, plus the step's own file.
        files = {p: m for p, m, _, _ in
                 past.files(self.store, past.at(self.store, 'p', '2'))}
        self.assertEqual({'overcloud.yaml': content.md5(b'heat: 1\n'),
                          'user-files' + os.path.join(self.dir, 'env.yaml'):
                          content.md5(b'{}\n')}, files)
        self.assertIn('overcloud.yaml', self.members(self.exported('2')))


class TestFind(fakes.PlanTestCase):

    def test_an_id_of_digits_alone_is_an_id(self):
        # One random id in ~300 is all digits: it must not be read as a
        # step number (and refused as out of range).
        rows = [{'id': 'a1b2c3d4e5f6', 'step': 1},
                {'id': '123456789012', 'step': 2}]
        self.assertIs(rows[1], past.find('p', rows, '123456789012'))
        self.assertIs(rows[0], past.find('p', rows, '1'))
        self.assertRaises(exceptions.CommandError, past.find, 'p', rows, '3')
