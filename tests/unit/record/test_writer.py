"""The history written (``record.writer``) and read (``record.reader``)
against Swift's HTTP API, faked with requests-mock."""

import json

from osc_lib import exceptions
import requests_mock
import yaml

from tests.unit import fakes
from tripleoplanclient.mistral import builder
from tripleoplanclient.plan import files as files_mod
from tripleoplanclient.record import log
from tripleoplanclient.record import steps

URL = fakes.SWIFT
bulk_body = fakes.bulk_body


class RecordTestCase(fakes.HttpTestCase):
    """Steps written to and read from a stateful fake Swift container."""

    def setUp(self):
        super().setUp()
        self.swift = fakes.FakeSwift(self.m)
        self.store = fakes.plan_store()

    def amend(self, head, *names, remove=(), data=b'x: 1\n'):
        files = files_mod.PlanFiles()
        for name in names:
            files.environments.append(name)
            files.objects[name] = data
            files.sources[name] = '/home/' + name
        change = steps.Change(head.state, files, remove)
        step = builder.step(change, 'amend', argv=[])
        objects = {n: data for n in names}
        return self.store.writer.write_step('p', step, head, objects)

    def created(self):
        step = log.make_step('create', {'environments': {'set': [
            'base.yaml']}}, argv=[])
        self.store.writer.write_step(
            'p', step, self.store.reader.head('p', required=False))
        return step


class TestWriteStep(RecordTestCase):

    def test_an_amend_is_two_requests(self):
        self.created()
        self.swift.requests.clear()
        head = self.store.reader.head('p')
        step = self.amend(head, 'one.yaml')
        # The index, one archive (file, step, index).
        self.assertEqual([('GET', log.PATH), ('ARCHIVE', None)],
                         self.swift.requests)
        self.assertEqual(b'x: 1\n', self.swift.objects['one.yaml'][0])
        stored = yaml.safe_load(self.swift.objects[step['name']][0])
        self.assertEqual(['base.yaml', 'one.yaml'],
                         stored['state']['environments'])
        self.assertEqual(1, stored['seen'])

    def test_writers_that_saw_the_same_plan_lose_nothing(self):
        self.created()
        heads = [self.store.reader.head('p') for _ in range(3)]
        ids = [self.amend(h, 'f%d.yaml' % i)['id']
               for i, h in enumerate(heads)]
        rows, head = self.store.reader.history('p')
        self.assertEqual([2, 3, 4], [r['step'] for r in rows[1:]])
        self.assertEqual(ids, [r['id'] for r in rows[1:]])
        self.assertEqual(['base.yaml', 'f0.yaml', 'f1.yaml', 'f2.yaml'],
                         head.state['environments'])
        self.assertEqual(rows[-1]['environments'],
                         head.state['environments'])
        # A writer after them builds on all three.
        self.assertEqual(head.state['environments'],
                         self.store.reader.head('p').state['environments'])

    def test_a_write_that_arrived_first_comes_first_whenever_it_lands(self):
        self.created()
        head = self.store.reader.head('p')
        self.swift.tick += 1
        early_time = self.swift.tick
        late = self.amend(head, 'late.yaml')
        # Swift stamped this one on arrival, before the one above.
        self.swift.stamp = (log.LOG_PREFIX, early_time)
        early = self.amend(head, 'early.yaml', remove=['base.yaml'])
        rows, head = self.store.reader.history('p')
        self.assertEqual([early['id'], late['id']],
                         [r['id'] for r in rows[1:]])
        self.assertEqual(['early.yaml', 'late.yaml'],
                         head.state['environments'])
        self.assertEqual(['early.yaml', 'late.yaml'],
                         self.store.reader.head('p').state['environments'])

    def test_a_refused_member_takes_the_step_back(self):
        self.created()
        self.m.put(fakes.SWIFT + '/p?extract-archive=tar',
                   text=fakes.bulk_body(1, [('/p/one.yaml', '413 Too '
                                                            'Large')]))
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'one.yaml: 413'):
            self.amend(self.store.reader.head('p'), 'one.yaml')
        self.assertEqual(1, len(self.store.reader.history('p')[0]))

    def test_without_bulk_the_file_goes_before_the_step(self):
        self.m.stop()
        self.m = requests_mock.Mocker()
        self.m.start()
        self.addCleanup(self.m.stop)
        self.swift = fakes.FakeSwift(self.m, bulk=False)
        self.m.get(fakes.SWIFT_INFO, json={'swift': {}})
        self.created()
        self.swift.requests.clear()
        step = self.amend(self.store.reader.head('p'), 'one.yaml')
        self.assertEqual([('PUT', 'one.yaml'), ('PUT', step['name']),
                          ('PUT', log.PATH)],
                         [r for r in self.swift.requests
                          if r[0] == 'PUT'])


class TestHistory(RecordTestCase):

    def test_a_plan_without_record_does_not_exist(self):
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Plan p does not exist'):
            self.store.reader.history('p')
        self.assertIsNone(self.store.reader.head('p', required=False).last_id)

    def test_the_cache_is_mended_with_settled_steps_only(self):
        self.created()
        self.amend(self.store.reader.head('p'), 'a.yaml')
        self.swift.tick = 3500      # an hour later: the third is young
        self.created()              # (a create again: just a step here)
        rows, head = self.store.reader.history('p')
        self.assertEqual(3, len(rows))
        cache = yaml.safe_load(self.swift.objects[log.PATH][0])
        # Every row, the third provisional: after "through".
        self.assertEqual(rows, cache['history'])
        self.assertEqual(rows[1]['id'], cache['through'])
        # Read again: the cache answers for the settled steps, only the
        # newest step object is fetched.
        self.swift.requests.clear()
        again, head2 = self.store.reader.history('p')
        self.assertEqual(rows, again)
        self.assertEqual(head.state, head2.state)
        self.assertEqual(1, len([r for r in self.swift.requests
                                 if r[0] == 'GET' and r[1] != log.PATH]))

    def test_a_final_outcome_wins_over_a_partial_one(self):
        self.created()
        step = log.make_step('deploy', {}, argv=[],
                             stack={'operation': 'CREATE'})
        step['outcome']['status'] = 'IN_PROGRESS'
        self.store.writer.write_step('p', step, self.store.reader.head('p'))
        self.store.writer.write_outcome('p', step['id'], {'status': 'UNKNOWN'},
                                        final=False)
        self.assertEqual('UNKNOWN', self.store.reader.history('p')[0][-1][
            'outcome']['status'])
        self.store.writer.write_outcome('p', step['id'], {'status': 'SUCCESS'},
                                        {'updated': 'u'})
        row = self.store.reader.history('p')[0][-1]
        self.assertEqual('SUCCESS', row['outcome']['status'])
        self.assertEqual('u', row['stack']['updated'])

    def test_a_version_1_plan_keeps_its_history(self):
        self.swift.store(log.PATH, yaml.safe_dump({
            'version': 1, 'plan': 'p', 'templates': '/t',
            'environments': ['a'], 'files': {}, 'inputs': {},
            'history': [{'id': 1, 'action': 'create', 'environments': ['a'],
                         'outcome': {'status': 'SUCCESS'}}]}).encode())
        rows, head = self.store.reader.history('p')
        self.assertEqual(['1'], [r['id'] for r in rows])
        step = self.amend(self.store.reader.head('p'), 'b.yaml')
        self.swift.objects.pop(log.PATH)     # the cache is not needed
        rows, head = self.store.reader.history('p')
        self.assertEqual(['1', step['id']], [r['id'] for r in rows])
        self.assertEqual([1, 2], [r['step'] for r in rows])
        self.assertEqual(['a', 'b.yaml'], head.state['environments'])


class TestLaggingListing(RecordTestCase):
    """A container replica that missed updates lists the log behind."""

    def test_a_step_the_index_names_is_read_by_head(self):
        self.created()
        step = self.amend(self.store.reader.head('p'), 'one.yaml')
        rows, head = self.store.reader.history('p')
        self.swift.lagging = {step['name']: 1}
        self.swift.requests.clear()
        again = fakes.plan_store().reader.history('p')
        self.assertEqual(head.state, again[1].state)
        self.assertEqual(rows, again[0])
        self.assertIn(('HEAD', step['name']), self.swift.requests)
        # The index stays as it was: nothing mended backwards.
        self.assertNotIn(('PUT', log.PATH), self.swift.requests)

    def test_a_stale_index_replica_hides_no_step(self):
        # the listing and an index replica both behind: the index is read as
        # the newest replica has it
        self.created()
        old_index = self.swift.objects[log.PATH][0]
        step = self.amend(self.store.reader.head('p'), 'one.yaml')
        rows, head = self.store.reader.history('p')
        self.swift.lagging = {step['name']: 1}
        self.swift.stale = {log.PATH: old_index}
        again = fakes.plan_store().reader.history('p')
        self.assertEqual(head.state, again[1].state)
        self.assertEqual(rows, again[0])

    def test_the_log_is_listed_as_the_newest_container_replica_has_it(self):
        self.created()
        self.store.reader.history('p')
        listed = [r for r in self.m.request_history if r.method == 'GET'
                  and r.qs.get('prefix') == [log.LOG_PREFIX.lower()]]
        self.assertTrue(listed)
        self.assertEqual({'true'}, {str(r.headers.get('X-Newest'), 'ascii')
                                    for r in listed})

    def test_a_named_step_that_is_gone_is_left_out(self):
        self.created()
        step = self.amend(self.store.reader.head('p'), 'one.yaml')
        index = self.swift.objects[log.PATH]
        del self.swift.objects[step['name']]   # taken back, index left
        rows, head = fakes.plan_store().reader.history('p')
        self.assertEqual(['base.yaml'], head.state['environments'])
        self.assertEqual(1, len(rows))
        self.assertNotEqual(index, self.swift.objects[log.PATH])

    def test_a_index_naming_other_objects_names_no_step(self):
        self.created()
        index = yaml.safe_load(self.swift.objects[log.PATH][0])
        index['history'][0]['name'] = 'templates/overcloud.yaml'
        self.swift.store(log.PATH, json.dumps(index).encode())
        self.swift.requests.clear()
        fakes.plan_store().reader.history('p')
        self.assertEqual([], [r for r in self.swift.requests
                              if r[0] == 'HEAD'])
