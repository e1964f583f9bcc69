"""The plan store against Swift's HTTP API, faked with requests-mock."""

import io
import tarfile

from osc_lib import exceptions
import requests
import yaml

from tests.unit import fakes
from tripleoplanclient.common import content
from tripleoplanclient.plan import bulk
from tripleoplanclient.plan import files as files_mod
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import record
from tripleoplanclient.plan import steps

URL = fakes.SWIFT
bulk_body = fakes.bulk_body


class SwiftTestCase(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.store = fakes.plan_store()

    info = fakes.HttpTestCase.swift_info

    def tar_members(self, request):
        with tarfile.open(fileobj=io.BytesIO(request.body)) as tar:
            return {m.name: tar.extractfile(m).read() for m in tar}


class TestWrite(SwiftTestCase):

    def test_bulk_upload_is_one_request_with_every_member(self):
        self.info()
        put = self.m.put(URL + '/p?extract-archive=tar',
                         text=bulk_body(2))
        self.store.write('p', {'a.yaml': b'a', 'dir/b.yaml': b'b'})
        self.assertEqual(1, put.call_count)
        self.assertEqual({'a.yaml': b'a', 'dir/b.yaml': b'b'},
                         self.tar_members(put.last_request))
        self.assertEqual(b'application/json',
                         put.last_request.headers['Accept'])

    def test_large_writes_go_as_a_few_archives_side_by_side(self):
        self.info()
        put = self.m.put(URL + '/p?extract-archive=tar', text=lambda r, c:
                         bulk_body(len(self.tar_members(r))))
        objects = {'f%04d' % i: b'x' * (i % 7) for i in range(4005)}
        self.store.write('p', objects)
        self.assertEqual(5, put.call_count)     # 1,000 objects at most each
        sent = {}
        for request in put.request_history:
            members = self.tar_members(request)
            self.assertLessEqual(len(members), bulk.MAX_OBJECTS)
            sent.update(members)
        self.assertEqual(objects, sent)

    def test_a_small_write_is_one_archive(self):
        self.info()
        put = self.m.put(URL + '/p?extract-archive=tar', text=bulk_body(3))
        self.store.write('p', {'a': b'1', 'b': b'2', 'c': b'3'})
        self.assertEqual(1, put.call_count)

    def test_short_count_without_errors_is_a_failure(self):
        self.info()
        self.m.put(URL + '/p?extract-archive=tar', text=bulk_body(1))
        with self.assertRaisesRegex(exceptions.CommandError, 'rejected'):
            self.store.write('p', {'a': b'1', 'b': b'2'})

    def test_a_rejected_member_fails_the_write_and_names_it(self):
        self.info()
        self.m.put(URL + '/p?extract-archive=tar', text=bulk_body(
            1, [('/p/b.yaml', '413 Request Entity Too Large')]))
        with self.assertRaisesRegex(exceptions.CommandError,
                                    r'rejected 1 of 2 .*b\.yaml: 413'):
            self.store.write('p', {'a.yaml': b'a', 'b.yaml': b'b'})

    def test_without_bulk_every_object_is_put_with_its_md5(self):
        self.info(bulk=False)
        a = self.m.put(URL + '/p/a.yaml', status_code=201)
        b = self.m.put(URL + '/p/b.yaml', status_code=201)
        self.store.write('p', {'a.yaml': b'a', 'b.yaml': b'b'})
        self.assertEqual(content.md5(b'a').encode(),
                         a.last_request.headers['ETag'])
        self.assertEqual(1, b.call_count)

    def test_failed_puts_are_reported(self):
        self.info(bulk=False)
        self.m.put(URL + '/p/a.yaml', status_code=201)
        self.m.put(URL + '/p/b.yaml', status_code=507)
        with self.assertRaisesRegex(exceptions.CommandError, 'b.yaml: 507'):
            self.store.write('p', {'a.yaml': b'a', 'b.yaml': b'b'})

    def test_unreachable_swift_is_a_clear_error(self):
        self.m.get(URL + '/p', exc=requests.exceptions.ConnectionError)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Swift is unreachable at ' + URL):
            self.store.listing('p')


class TestListing(SwiftTestCase):

    def test_listing_follows_every_page(self):
        first = [{'name': 'o%05d' % i, 'hash': 'h', 'bytes': 1}
                 for i in range(10000)]
        get = self.m.get(URL + '/p', [
            {'json': first, 'headers': {layout.PLAN_META: 'plan'}},
            {'json': [{'name': 'z', 'hash': 'h', 'bytes': 1}]}])
        headers, listing = self.store.listing('p')
        self.assertEqual(10001, len(listing))
        self.assertTrue(layout.is_plan(headers))
        # A short page is the last one: no extra request to find the end.
        self.assertEqual(2, get.call_count)
        self.assertEqual(['o09999'], get.last_request.qs['marker'])

    def test_a_small_plan_is_listed_in_one_request(self):
        get = self.m.get(URL + '/p', json=[{'name': 'a', 'hash': 'h'}])
        self.store.listing('p')
        self.assertEqual(1, get.call_count)

    def test_a_single_object_is_one_put_without_asking_info(self):
        put = self.m.put(URL + '/p/a.yaml', status_code=201)
        self.store.write('p', {'a.yaml': b'a'})
        self.assertEqual([put.last_request], self.m.request_history)

    def test_missing_container(self):
        self.m.get(URL + '/p', status_code=404)
        self.assertEqual((None, None), self.store.listing('p'))


class TestCommit(SwiftTestCase):

    def test_step_object_is_create_only_then_record(self):
        step_put = self.m.put(URL + '/p/' + record.step_path(1),
                              status_code=201)
        rec_put = self.m.put(URL + '/p/' + record.PATH, status_code=201)
        step = record.make_step('create', ['e.yaml'], argv=[])
        rec = self.store.commit('p', record.new('p'), step, None)
        self.assertEqual(b'*', step_put.last_request.headers['If-None-Match'])
        self.assertEqual(1, rec['history'][0]['id'])
        self.assertEqual([record.step_path(1), record.PATH],
                         [r.path.split('/p/', 1)[1]
                          for r in self.m.request_history])
        written = yaml.safe_load(rec_put.last_request.body)
        self.assertEqual(['e.yaml'], written['environments'])
        self.assertNotIn('paths', written['history'][0])
        self.assertIn('paths', yaml.safe_load(step_put.last_request.body))

    def test_concurrent_writer_is_merged_not_lost(self):
        theirs = record.make_step('amend', ['a.yaml', 'theirs.yaml'],
                                  argv=[])
        theirs['id'] = 2
        self.m.put(URL + '/p/' + record.step_path(2), status_code=412)
        self.m.get(URL + '/p', [{'json': [{
            'name': record.step_path(2), 'hash': 'h', 'bytes': 1}]},
            {'json': []}])
        self.m.get(URL + '/p/' + record.step_path(2),
                   content=record.dump(theirs))
        ours = self.m.put(URL + '/p/' + record.step_path(3),
                          status_code=201)
        rec_put = self.m.put(URL + '/p/' + record.PATH, status_code=201)
        base = record.new('p')
        record.apply(base, dict(record.make_step('create', ['a.yaml'],
                                                 argv=[]), id=1))
        files = files_mod.PlanFiles()
        files.environments = ['ours.yaml']

        def rebase(rec, step):
            step['environments'] = steps._amended(
                rec['environments'], files.environments, ())
            return step

        step = record.make_step('amend', ['a.yaml', 'ours.yaml'], argv=[])
        self.store.commit('p', base, step, rebase)
        self.assertEqual(1, ours.call_count)
        written = yaml.safe_load(rec_put.last_request.body)
        self.assertEqual([1, 2, 3], [s['id'] for s in written['history']])
        self.assertEqual(['a.yaml', 'theirs.yaml', 'ours.yaml'],
                         written['environments'])
