"""The render action's body against Swift's HTTP API (requests-mock)."""

import yaml

from tests.unit import fakes
from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import objects
from tripleoplanclient.mistral import render
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import tree

URL = fakes.SWIFT
ROLES = b'- name: Controller\n- name: Compute\n'


class TestRenderPlan(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.store = fakes.plan_store()
        self.objects = {}

    def plan(self, objects):
        self.objects = objects
        self.swift_plan(objects)

    def test_writes_changed_outputs_removes_stale_ones(self):
        rendered_before = b'Controller'
        self.plan({
            'roles_data.yaml': ROLES,
            'x/a.role.j2.yaml': b'{{role}}',
            'x/controller-a.yaml': rendered_before,       # unchanged
            'x/storage-a.yaml': b'old',                     # role removed
            'notes.txt': b'not rendering input',
            layout.RENDER_MANIFEST: yaml.safe_dump({'inputs': {}, 'outputs': {
                'x/controller-a.yaml': content.md5(rendered_before),
                'x/storage-a.yaml': content.md5(b'old')}}).encode()})
        put_new = self.m.put(URL + '/p/x/compute-a.yaml', status_code=201)
        delete = self.m.delete(URL + '/p/x/storage-a.yaml', status_code=204)
        manifest = self.m.put(URL + '/p/' + layout.RENDER_MANIFEST,
                              status_code=201)
        keep = self.m.put(URL + '/p/' + tree.kept_name(content.md5(b'old')),
                          status_code=201)
        summary = render.render_plan(self.store, 'p',
                                     cache=objects.ContentCache())
        self.assertEqual(['x/compute-a.yaml'], summary['written'])
        self.assertEqual(['x/storage-a.yaml'], summary['removed'])
        # The removed output's content is kept first, copied inside Swift.
        self.assertEqual(1, keep.call_count)
        self.assertEqual(b'/p/x/storage-a.yaml',
                         keep.last_request.headers['X-Copy-From'])
        self.assertEqual(content.md5(b'old').encode(),
                         keep.last_request.headers['If-Match'])
        self.assertEqual({'x/compute-a.yaml': content.md5(b'Compute'),
                          'x/controller-a.yaml': content.md5(b'Controller')},
                         summary['hashes'])
        self.assertEqual(b'Compute', put_new.last_request.body)
        self.assertEqual(1, delete.call_count)
        written = yaml.safe_load(manifest.last_request.body)
        self.assertEqual(['x/compute-a.yaml', 'x/controller-a.yaml'],
                         sorted(written['outputs']))
        self.assertEqual(['roles_data.yaml', 'x/a.role.j2.yaml'],
                         sorted(written['inputs']))
        fetched = sorted(r.path.split('/p/', 1)[1]
                         for r in self.m.request_history
                         if r.method == 'GET' and '/p/' in r.path)
        # Only rendering inputs (and the last manifest) are read.
        self.assertEqual(sorted(['roles_data.yaml', 'x/a.role.j2.yaml',
                                 layout.RENDER_MANIFEST]), fetched)

    def rendered_before(self, output):
        """A plan rendered once (a.yaml was b'2'); a.yaml holds ``output``."""
        objects = {'roles_data.yaml': ROLES,
                   'a.j2.yaml': b'{{roles|length}}', 'a.yaml': output}
        manifest = {'inputs': {p: content.md5(objects[p]) for p in
                               ('roles_data.yaml', 'a.j2.yaml')},
                    'outputs': {'a.yaml': content.md5(b'2')}}
        objects[layout.RENDER_MANIFEST] = yaml.safe_dump(manifest).encode()
        self.plan(objects)

    def test_nothing_changed_reads_only_the_manifest(self):
        self.rendered_before(b'2')
        summary = render.render_plan(self.store, 'p',
                                     cache=objects.ContentCache())
        self.assertEqual((1, []), (summary['outputs'], summary['written']))
        # requests-mock lower-cases paths.
        self.assertEqual(['/v1/auth_t/p',
                          '/v1/auth_t/p/' + layout.RENDER_MANIFEST],
                         [r.path for r in self.m.request_history])

    def test_a_touched_output_is_rendered_again(self):
        self.rendered_before(b'edited')
        put = self.m.put(URL + '/p/a.yaml', status_code=201)
        keep = self.m.put(URL + '/p/' + tree.kept_name(content.md5(
            b'edited')), status_code=201)
        self.m.put(URL + '/p/' + layout.RENDER_MANIFEST, status_code=201)
        render.render_plan(self.store, 'p', cache=objects.ContentCache())
        self.assertEqual(b'2', put.last_request.body)
        # What was there is kept before it is replaced.
        order = [r.path for r in self.m.request_history
                 if r.method == 'PUT']
        self.assertEqual(1, keep.call_count)
        self.assertLess(order.index(keep.last_request.path),
                        order.index(put.last_request.path))

    def test_inputs_choose_roles_and_networks(self):
        self.plan({'user-files/r.yaml': b'- name: Solo\n',
                   'network_data_default.yaml': b'[]\n',
                   'a.j2.yaml': b'{{roles[0].name}}'})
        put = self.m.put(URL + '/p/a.yaml', status_code=201)
        self.m.put(URL + '/p/' + layout.RENDER_MANIFEST, status_code=201)
        summary = render.render_plan(
            self.store, 'p', {'roles_data': 'user-files/r.yaml'},
            cache=objects.ContentCache())
        self.assertEqual('user-files/r.yaml', summary['roles_data'])
        self.assertEqual('network_data_default.yaml',
                         summary['network_data'])
        self.assertEqual(b'Solo', put.last_request.body)

    def test_broken_roles_data_is_a_clear_error(self):
        self.plan({'roles_data.yaml': b'- name: [\n', 'a.j2.yaml': b'x'})
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'roles_data.yaml is not valid YAML'):
            render.render_plan(self.store, 'p', cache=objects.ContentCache())
        self.assertEqual([], [r for r in self.m.request_history
                              if r.method != 'GET'])


class TestRecordedTree(fakes.HttpTestCase):
    """The actions work from the tree the client recorded, not from a
    listing a replica may serve before it has a write just made."""

    def setUp(self):
        super().setUp()
        self.store = fakes.plan_store()
        self.objects = {'roles_data.yaml': ROLES,
                        'a.j2.yaml': b'{{roles|length}}'}
        name, data, self.base = tree.snapshot(
            {p: content.md5(d) for p, d in self.objects.items()})
        self.objects[name] = data
        # A stale listing: the container server has not seen the writes.
        self.m.get(URL + '/p', headers=fakes.PLAN_HEADERS, json=[])
        for path, data in self.objects.items():
            self.m.get('%s/p/%s' % (URL, path), content=data)

    def test_render_reads_what_the_tree_names(self):
        put = self.m.put(URL + '/p/a.yaml', status_code=201)
        self.m.put(URL + '/p/' + layout.RENDER_MANIFEST, status_code=201)
        summary = render.render_plan(
            self.store, 'p', cache=objects.ContentCache(),
            tree={'base': self.base, 'changes': {}})
        self.assertEqual(b'2', put.last_request.body)
        self.assertEqual(['a.yaml'], summary['written'])

    def test_without_the_tree_the_stale_listing_is_all_there_is(self):
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'has no roles data'):
            render.render_plan(self.store, 'p', cache=objects.ContentCache())

    def test_content_other_than_recorded_is_refused(self):
        # The tree names other bytes than the object now holds.
        changed = {'roles_data.yaml': content.md5(b'- name: Other\n')}
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'roles_data.yaml of plan p does not hold '
                                    'the content its record names'):
            render.render_plan(self.store, 'p', cache=objects.ContentCache(),
                               tree={'base': self.base, 'changes': changed})
        self.assertEqual([], [r for r in self.m.request_history
                              if r.method != 'GET'])
