"""user-environments/environments.yaml, the index: written by every step's
writer, read by a GUI with a plain YAML loader, mended by readers of the
log."""

import json

import yaml

from tests.unit import fakes
from tripleoplanclient.common import exceptions
from tripleoplanclient.record import index
from tripleoplanclient.record import log
from tripleoplanclient.record import steps


def make(action='amend', add=(), status='SUCCESS', **change):
    return log.make_step(action, dict(
        change, environments={'add': list(add), 'remove': []}),
        outcome=status, command='openstack overcloud plan %s p' % action)


class CardTestCase(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.swift = fakes.FakeSwift(self.m)
        self.store = fakes.plan_store()

    def commit(self, step, head=None):
        head = head or self.store.reader.head('p', required=False)
        return self.store.writer.write_step('p', step, head)

    def index(self):
        """The index as a GUI reads it: a plain YAML loader."""
        return yaml.safe_load(self.swift.objects[log.PATH][0])

    def create(self):
        step = log.make_step('create', {
            'environments': {'set': ['base.yaml']},
            'inputs': {'roles_data': 'roles_data.yaml'},
            'templates': '/tht', 'release': {'version': '18.0.0',
                                             'digest': 'd'}},
            command='openstack overcloud plan create p')
        return self.commit(step)


class TestWrittenWithEveryStep(CardTestCase):

    def test_current_right_after_each_step_without_a_reader(self):
        first = self.create()
        found = self.index()
        self.assertEqual(['base.yaml'], found['environments'])
        self.assertEqual({'roles_data': 'roles_data.yaml'}, found['inputs'])
        self.assertEqual('/tht', found['templates'])
        self.assertEqual('18.0.0', found['release']['version'])
        self.assertEqual([(1, first['id'], 'create', 'SUCCESS')], [
            (r['step'], r['id'], r['action'], r['outcome']['status'])
            for r in found['history']])
        self.swift.requests.clear()
        second = self.commit(make(add=['one.yaml']))
        found = self.index()
        self.assertEqual(['base.yaml', 'one.yaml'], found['environments'])
        last = found['history'][-1]
        self.assertEqual((2, second['id'], 'amend'),
                         (last['step'], last['id'], last['action']))
        self.assertEqual(['base.yaml', 'one.yaml'], last['environments'])
        for field in ('time', 'user', 'command'):
            self.assertEqual(second[field], last[field])
        # No reader of the log ran: the steps' writers wrote it.
        self.assertNotIn('LIST', [r[0] for r in self.swift.requests])
        self.assertEqual(2, found['steps'])
        self.assertIsNone(found['through'])

    def test_a_first_step_on_a_bare_head_writes_it_in_its_archive(self):
        # As plan_create commits on a container it just made.
        step = self.store.writer.write_step(
            'p', make('create', add=['a.yaml']),
            log.Head(log.new_state(), 0, None, []), {'a.yaml': b'x'})
        self.assertEqual([('ARCHIVE', None)], self.swift.requests)
        self.assertEqual([step['id']],
                         [r['id'] for r in self.index()['history']])

    def test_one_line_per_key_and_per_row(self):
        self.create()
        self.commit(make(add=['one.yaml']))
        lines = self.swift.objects[log.PATH][0].decode().splitlines()
        self.assertEqual(2, len([line for line in lines
                                 if line.lstrip().startswith('{"action"')]))
        self.assertTrue(lines[0].startswith('{"version": 2'))
        json.loads(self.swift.objects[log.PATH][0])

    def test_the_head_is_the_index_alone(self):
        self.create()
        step = self.commit(make(add=['one.yaml']))
        self.swift.requests.clear()
        head = self.store.reader.head('p')
        self.assertEqual([('GET', log.PATH)], self.swift.requests)
        self.assertEqual((2, step['id']), (head.count, head.last_id))
        self.assertEqual(step['state'], head.state)

    def test_a_final_outcome_goes_on_the_index(self):
        self.create()
        step = make('deploy', status='IN_PROGRESS')
        step['stack'] = {'operation': 'CREATE'}
        self.commit(step)
        self.assertEqual('IN_PROGRESS',
                         self.index()['history'][-1]['outcome']['status'])
        self.store.writer.write_outcome('p', step['id'], {'status': 'SUCCESS'},
                                        {'updated': 'u'})
        row = self.index()['history'][-1]
        self.assertEqual(('SUCCESS', 'u'),
                         (row['outcome']['status'], row['stack']['updated']))

    def test_a_refused_member_takes_the_index_back_too(self):
        self.create()
        self.swift_info()
        before = self.swift.objects[log.PATH]
        self.m.put(fakes.SWIFT + '/p?extract-archive=tar',
                   text=fakes.bulk_body(2, [('/p/one.yaml', '413 Large')]))
        step = make(add=['one.yaml'])
        with self.assertRaises(exceptions.CommandError):
            self.store.writer.write_step(
                'p', step, self.store.reader.head('p'), {'one.yaml': b'x'})
        self.assertIn(log.PATH, [n for m, n in self.swift.requests
                                 if m == 'DELETE'])
        self.assertNotEqual(before, self.swift.objects.get(log.PATH))
        # The next writer reads the log (and writes the index again).
        head = self.store.reader.head('p')
        self.assertEqual(1, head.count)
        self.assertEqual(['base.yaml'], self.index()['environments'])


class TestConcurrentWriters(CardTestCase):

    def test_a_index_left_behind_is_harmless_and_mended_by_a_reader(self):
        self.create()
        head = self.store.reader.head('p')
        a = self.commit(make(add=['a.yaml']), head)
        b = self.commit(make(add=['b.yaml']), head)
        # The last to land wrote what it saw: a's step is not on the index.
        self.assertEqual(['base.yaml', 'b.yaml'],
                         self.index()['environments'])
        # A writer on that index: its step says what it saw; readers
        # replay it from the log.
        c = self.commit(make(add=['c.yaml']))
        self.assertEqual((2, b['id']), (c['seen'], c['base']))
        rows, head = self.store.reader.history('p')
        self.assertEqual([a['id'], b['id'], c['id']],
                         [r['id'] for r in rows[1:]])
        every = ['base.yaml', 'a.yaml', 'b.yaml', 'c.yaml']
        self.assertEqual(every, head.state['environments'])
        self.assertEqual(every, rows[-1]['environments'])
        # Mended: the index says what the log says.
        found = self.index()
        self.assertEqual(every, found['environments'])
        self.assertEqual([r['id'] for r in rows],
                         [r['id'] for r in found['history']])
        self.assertEqual(4, found['steps'])
        self.assertEqual(every,
                         self.store.reader.head('p').state['environments'])

    def test_a_step_on_a_step_taken_back_is_replayed(self):
        # A writer saw a step that was then taken back, and another landed
        # in its place: the count matches, the newest id does not.
        self.create()
        head = self.store.reader.head('p')
        gone = make(add=['gone.yaml'])
        log.seal(gone, head)
        other = self.commit(make(add=['other.yaml']), head)
        step = self.commit(make(add=['new.yaml']), steps.after(head, gone))
        self.assertEqual(2, step['seen'])
        self.assertNotEqual(other['id'], step['base'])
        rows, head = self.store.reader.history('p')
        self.assertEqual(['base.yaml', 'other.yaml', 'new.yaml'],
                         head.state['environments'])


class TestOlderForms(CardTestCase):

    def old_cache(self, rows, state, through):
        """The index as the previous release wrote it: settled rows only,
        environment lists as indices into "paths"."""
        table = {}

        def as_indices(paths):
            return [table.setdefault(p, len(table)) for p in paths]

        rows = [dict(r, environments=as_indices(r['environments']))
                for r in rows]
        return json.dumps({'version': 2, 'plan': 'p', 'through': through,
                           'state': state, 'imported': [],
                           'paths': list(table), 'history': rows}).encode()

    def test_the_previous_cache_is_read_and_rewritten_as_a_index(self):
        self.create()
        step = self.commit(make(add=['one.yaml']))
        rows, _ = self.store.reader.history('p')
        self.swift.store(log.PATH, self.old_cache(
            rows[:1], self.store.reader.state_after('p', log.ordered(
                self.store.container.listing('p')[1].values()), 1),
            rows[0]['id']))
        self.assertIsNone(index.load(self.swift.objects[log.PATH][0], 'p'))
        again, head = self.store.reader.history('p', )
        self.assertEqual(rows, again)
        self.assertEqual(step['id'], head.last_id)
        self.assertEqual(2, self.index()['steps'])

    def test_a_damaged_index_leaves_the_head_to_the_log(self):
        self.create()
        step = self.commit(make(add=['one.yaml']))
        for data in (b'{"version": 2, "steps": "x"}', b'[', b'steps: 9\n'):
            self.swift.store(log.PATH, data)
            head = self.store.reader.head('p')
            self.assertEqual((2, step['id']), (head.count, head.last_id))
            self.assertEqual(['base.yaml', 'one.yaml'],
                             self.index()['environments'])


class TestFormat(fakes.HttpTestCase):

    def test_readers_trust_only_the_settled_rows(self):
        self.swift = fakes.FakeSwift(self.m)
        store = fakes.plan_store()
        for i in range(3):
            store.writer.write_step('p', make(add=['%d.yaml' % i]),
                                    store.reader.head('p', required=False))
        rows, _ = store.reader.history('p')
        data = index.dump_cache('p', rows, log.new_state(), rows[0]['id'],
                                [])
        self.swift.store(log.PATH, data)
        self.swift.requests.clear()
        # The state on the index is not the truth (a writer's view): the
        # steps after "through" are read, and the index mended.
        again, head = store.reader.history('p')
        self.assertEqual(rows, again)
        self.assertEqual(['0.yaml', '1.yaml', '2.yaml'],
                         head.state['environments'])
        self.assertEqual(2, len([r for r in self.swift.requests
                                 if r[0] == 'GET' and r[1] != log.PATH]))
        self.assertEqual(['0.yaml', '1.yaml', '2.yaml'], yaml.safe_load(
            self.swift.objects[log.PATH][0])['environments'])

    def test_steps_or_through_that_do_not_match_are_damaged(self):
        rows = [log.row(dict(make(), state=log.new_state()), 1)]
        good = json.loads(index.dump_cache('p', rows, log.new_state(),
                                           None, []))
        for change in ({'steps': 2}, {'steps': -1}, {'through': 'nope'}):
            with self.assertRaisesRegex(Exception, 'damaged'):
                index.load(json.dumps(dict(good, **change)), 'p')
