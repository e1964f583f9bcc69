"""The plan container against Swift's HTTP API, faked with requests-mock."""

import io
import tarfile

from osc_lib import exceptions
import requests

from tests.unit import fakes
from tripleoplanclient.common import content
from tripleoplanclient.plan import bulk
from tripleoplanclient.plan import layout

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
        self.store.container.write('p', {'a.yaml': b'a', 'dir/b.yaml': b'b'})
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
        self.store.container.write('p', objects)
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
        self.store.container.write('p', {'a': b'1', 'b': b'2', 'c': b'3'})
        self.assertEqual(1, put.call_count)

    def test_short_count_without_errors_is_a_failure(self):
        self.info()
        self.m.put(URL + '/p?extract-archive=tar', text=bulk_body(1))
        with self.assertRaisesRegex(exceptions.CommandError, 'rejected'):
            self.store.container.write('p', {'a': b'1', 'b': b'2'})

    def test_a_rejected_member_fails_the_write_and_names_it(self):
        self.info()
        self.m.put(URL + '/p?extract-archive=tar', text=bulk_body(
            1, [('/p/b.yaml', '413 Request Entity Too Large')]))
        with self.assertRaisesRegex(exceptions.CommandError,
                                    r'rejected 1 of 2 .*b\.yaml: 413'):
            self.store.container.write('p', {'a.yaml': b'a', 'b.yaml': b'b'})

    def test_without_bulk_every_object_is_put_with_its_md5(self):
        self.info(bulk=False)
        a = self.m.put(URL + '/p/a.yaml', status_code=201)
        b = self.m.put(URL + '/p/b.yaml', status_code=201)
        self.store.container.write('p', {'a.yaml': b'a', 'b.yaml': b'b'})
        self.assertEqual(content.md5(b'a').encode(),
                         a.last_request.headers['ETag'])
        self.assertEqual(1, b.call_count)

    def test_failed_puts_are_reported(self):
        self.info(bulk=False)
        self.m.put(URL + '/p/a.yaml', status_code=201)
        self.m.put(URL + '/p/b.yaml', status_code=507)
        with self.assertRaisesRegex(exceptions.CommandError, 'b.yaml: 507'):
            self.store.container.write('p', {'a.yaml': b'a', 'b.yaml': b'b'})

    def test_unreachable_swift_is_a_clear_error(self):
        self.m.get(URL + '/p', exc=requests.exceptions.ConnectionError)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Swift is unreachable at ' + URL):
            self.store.container.listing('p')


class TestListing(SwiftTestCase):

    def test_listing_follows_every_page(self):
        first = [{'name': 'o%05d' % i, 'hash': 'h', 'bytes': 1}
                 for i in range(10000)]
        get = self.m.get(URL + '/p', [
            {'json': first, 'headers': {layout.PLAN_META: 'plan'}},
            {'json': [{'name': 'z', 'hash': 'h', 'bytes': 1}]}])
        headers, listing = self.store.container.listing('p')
        self.assertEqual(10001, len(listing))
        self.assertTrue(layout.is_plan(headers))
        # A short page is the last one: no extra request to find the end.
        self.assertEqual(2, get.call_count)
        self.assertEqual(['o09999'], get.last_request.qs['marker'])

    def test_a_small_plan_is_listed_in_one_request(self):
        get = self.m.get(URL + '/p', json=[{'name': 'a', 'hash': 'h'}])
        self.store.container.listing('p')
        self.assertEqual(1, get.call_count)

    def test_a_single_object_is_one_put_without_asking_info(self):
        put = self.m.put(URL + '/p/a.yaml', status_code=201)
        self.store.container.write('p', {'a.yaml': b'a'})
        self.assertEqual([put.last_request], self.m.request_history)

    def test_missing_container(self):
        self.m.get(URL + '/p', status_code=404)
        self.assertEqual((None, None), self.store.container.listing('p'))


class TestDelete(fakes.HttpTestCase):

    def test_a_container_a_replica_still_lists_is_asked_again(self):
        sleeps = []
        store = fakes.plan_store(sleep=sleeps.append)
        container = self.m.delete(fakes.SWIFT + '/p', [
            {'status_code': 409}, {'status_code': 409},
            {'status_code': 204}])
        store.container.delete('p', [])
        self.assertEqual(3, container.call_count)
        self.assertEqual([1, 2], sleeps)

    def test_a_conflict_that_stays_is_a_clear_error(self):
        store = fakes.plan_store(sleep=lambda s: None)
        self.m.delete(fakes.SWIFT + '/p', status_code=409)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'Cannot delete container p.*Its objects '
                                    'are deleted; run the command again'):
            store.container.delete('p', [])
