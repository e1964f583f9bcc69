"""The render action and plan_delete never request a name that leaves the
plan (issue 26, finding 4), and a malformed render manifest is no
manifest (finding 8), on a stateful fake Swift recording every request.
"""

import yaml

from tests.unit import fakes
from tests.unit.plan import hostile_names as names
from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import objects
from tripleoplanclient.mistral import render
from tripleoplanclient.plan import layout
from tripleoplanclient import protocol
from tripleoplanclient.record import log

ROLES = b'- name: Controller\n'


class RenderTestCase(names.NamesTestCase):

    def setUp(self):
        super().setUp()
        self.swift.store('roles_data.yaml', ROLES)
        self.swift.store('x/a.role.j2.yaml', b'{{role}}')
        self.render()
        self.m.reset_mock()

    def render(self):
        return render.render_plan(self.store, 'p',
                                  cache=objects.ContentCache())

    def manifest(self, data):
        if not isinstance(data, bytes):
            data = yaml.safe_dump(data).encode()
        self.swift.store(layout.RENDER_MANIFEST, data)

    def outputs(self, **extra):
        last = yaml.safe_load(self.swift.objects[layout.RENDER_MANIFEST][0])
        return dict(last, outputs=dict(last['outputs'], **extra))


class TestStaleOutputs(RenderTestCase):

    def test_a_manifest_naming_objects_outside_the_plan_removes_none(self):
        for name in names.HOSTILE:
            self.swift.store(name, b'evil')
        last = self.outputs()
        last['outputs'].update((n, content.md5(b'evil'))
                               for n in names.HOSTILE)
        self.manifest(dict(last, inputs={}))      # an input changed
        # Per-object DELETEs (no bulk delete): each name is a URL.
        self.swift_info(bulk=False)
        self.store = fakes.plan_store(progress=self.lines.append)
        summary = self.render()
        self.assertEqual([], summary['removed'])
        for name in names.HOSTILE:
            self.assertEqual(b'evil', self.swift.objects[name][0])
            self.assertTrue([i for i in summary['ignored']
                             if repr(name) in i], name)
        self.assertStayedInPlan()
        # The manifest written anew names only what the render made.
        self.assertEqual(['x/controller-a.yaml'],
                         sorted(self.outputs()['outputs']))

    def test_a_manifest_naming_the_record_or_passwords_removes_neither(self):
        listed = sorted(n for n in self.swift.objects
                        if n.startswith(log.LOG_PREFIX))
        kept = {n: self.swift.objects[n][0] for n in listed}
        self.swift.store(layout.PLAN_ENVIRONMENT, b'passwords: {}\n')
        kept[layout.PLAN_ENVIRONMENT] = b'passwords: {}\n'
        self.manifest(dict(self.outputs(**{n: content.md5(d) for n, d in
                                           kept.items()}), inputs={}))
        summary = self.render()
        self.assertEqual([], summary['removed'])
        self.assertEqual(kept, {n: self.swift.objects[n][0] for n in kept})
        self.assertEqual(len(kept), len(summary['ignored']))
        # The step's render entry says what was left alone.
        self.assertIn(layout.PLAN_ENVIRONMENT,
                      protocol.render_entry(summary)['info'])
        self.assertStayedInPlan()

    def test_a_request_tree_outside_the_plan_reads_nothing(self):
        for tree in ({'base': '../../../victim/db', 'changes': {}},
                     {'base': None, 'changes': {
                         'user-environments/../../victim/db.yaml':
                         content.md5(b'precious: 1\n')}},
                     {'base': None, 'changes': {
                         log.PATH: content.md5(b'x')}}):
            before = len(self.m.request_history)
            with self.assertRaisesRegex(exceptions.CommandError,
                                        'Bad request for plan p: its tree'):
                render.render_plan(self.store, 'p', tree=tree,
                                   cache=objects.ContentCache())
            # The listing only.
            self.assertEqual(before + 1, len(self.m.request_history))
        self.assertStayedInPlan()


class TestMalformedManifest(RenderTestCase):
    """Finding 8: a manifest the render cannot trust is no manifest: the
    render goes on, removes nothing on its word, and writes it anew."""

    MALFORMED = [b'- 1\n', b'outputs: [[1]]\n', b'[' * 3000 + b']' * 3000,
                 b'{' * 3000 + b'}' * 3000, b'outputs: {a.yaml: 1}\n',
                 b'outputs: {x/controller-a.yaml: not-an-md5}\n',
                 b'&a [*a]\n', b'\xff\xfe', b'', b'outputs: 7\n',
                 b'inputs: {}\noutputs: {1: 2}\n', b'!!python/name:os.system']

    def test_each_is_named_and_the_render_removes_nothing(self):
        self.swift.store('stale.yaml', b'old')
        for data in self.MALFORMED:
            self.manifest(data)
            summary = self.render()
            self.assertEqual([], summary['removed'], data[:20])
            self.assertIn(layout.RENDER_MANIFEST, summary['ignored'][0])
            self.assertIn('nothing was removed', summary['ignored'][0])
            self.assertIn('stale.yaml', self.swift.objects)
            self.assertEqual({'x/controller-a.yaml': content.md5(
                b'Controller')}, self.outputs()['outputs'])
        self.assertStayedInPlan()

    def test_a_good_manifest_still_removes_what_is_no_longer_made(self):
        self.swift.store('stale.yaml', b'old')
        last = self.outputs(**{'stale.yaml': content.md5(b'old')})
        self.manifest(dict(last, inputs={}))        # an input changed
        summary = self.render()
        self.assertEqual(['stale.yaml'], summary['removed'])
        self.assertNotIn('ignored', summary)
        self.assertNotIn('stale.yaml', self.swift.objects)


class TestPlanDelete(names.NamesTestCase):

    def ask(self, **fields):
        return fakes.run_ours(self.store, protocol.request(
            'plan_delete', swift_url=fakes.SWIFT, containers=['p'],
            **fields), protocol.action('plan_delete'))

    def test_a_plan_holding_hostile_names_is_not_deleted(self):
        self.m.get(fakes.HEAT + '/stacks/p', status_code=404)
        self.m.delete(fakes.SWIFT + '/p', status_code=204)
        for bulk_delete in (True, False):
            self.swift_info(bulk=bulk_delete)
            self.store = fakes.plan_store()
            for name in names.HOSTILE:
                self.swift.store(name, b'evil')
            before = dict(self.swift.objects)
            with self.assertRaises(exceptions.CommandError) as cm:
                self.ask()
            self.assertIn('holds %d object(s) whose names no request may '
                          'carry' % len(names.HOSTILE), str(cm.exception))
            self.assertIn(repr(sorted(names.HOSTILE)[0]), str(cm.exception))
            self.assertIn('Nothing was deleted', str(cm.exception))
            self.assertEqual(before, self.swift.objects)
            self.assertStayedInPlan()
        # Once they are gone, the plan is deleted as before.
        for name in names.HOSTILE:
            del self.swift.objects[name]
        self.store = fakes.plan_store()
        self.assertTrue(self.ask()['deleted'])
        self.assertEqual({}, self.swift.objects)
        self.assertStayedInPlan()
