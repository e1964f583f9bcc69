"""Every object name is checked before any request (issue 26, finding 4).

requests and urllib3 resolve dot segments in a URL: a name such as
``user-environments/../../victim/db.yaml`` sent as it is reaches another
container. Plan ``p`` and a container ``victim`` beside it live on a
stateful fake Swift that records every request: no request may leave
``p`` or carry a dot segment, whatever a listing, a record or a caller
names.
"""

import io
import re
import unittest
from urllib import parse

import hypothesis
from hypothesis import strategies as st
import requests_mock
import yaml

from tests.unit import fakes
from tests.unit.plan import hostile_names
from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import bulk
from tripleoplanclient.plan import copies
from tripleoplanclient.plan import export
from tripleoplanclient.plan import files as files_mod
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import tree
from tripleoplanclient.record import diff
from tripleoplanclient.record import log
from tripleoplanclient.record import past
from tripleoplanclient.record import steps

ACCOUNT = hostile_names.ACCOUNT
HOSTILE = hostile_names.HOSTILE


class TestTheRule(hostile_names.NamesTestCase):

    def test_hostile_names_have_a_problem_plain_ones_none(self):
        for name in HOSTILE:
            self.assertTrue(layout.name_problem(name), name)
            self.assertTrue(layout.unsafe_name(name), name)
        for name in ('overcloud.yaml', 'a/b..c/d.yaml', '.hidden/x.yaml',
                     'a/%20b.yaml', 'user-files/home/me/env.yaml',
                     log.PATH, layout.RENDER_MANIFEST,
                     tree.kept_name('0' * 32),
                     tree.snapshot_name('a' * 32),
                     log.outcome_path('0123456789ab', False)):
            self.assertIsNone(layout.name_problem(name), name)

    def test_under_the_record_only_its_own_names(self):
        for name in ('user-environments/x.yaml',
                     'user-environments/trees/x.json',
                     'user-environments/kept/' + 'A' * 32,
                     'user-environments/log/evil.yaml',
                     'user-environments/outcomes/a.b.yaml'):
            self.assertIn('no name the plan\'s record gives',
                          layout.name_problem(name))
            # A listing keeps them (a whole plan is deleted with them).
            self.assertIsNone(layout.unsafe_name(name))
        self.assertIn('holds the plan\'s record', layout.name_problem(
            log.PATH, record=False))


class TestStore(hostile_names.NamesTestCase):

    def test_a_listing_leaves_hostile_names_out_and_names_them(self):
        for name in HOSTILE:
            self.swift.store(name, b'evil')
        _, listing = self.store.container.listing('p')
        self.assertEqual([], [n for n in HOSTILE if n in listing])
        self.assertIn('overcloud.yaml', listing)
        self.assertEqual(sorted(HOSTILE),
                         sorted(self.store.container.unsafe('p')))
        for name in HOSTILE:
            self.assertEqual(1, len([line for line in self.lines
                                     if repr(name) in line]), name)
        # Reported once however often listed.
        self.store.container.listing('p')
        self.assertEqual(len(HOSTILE), len([
            line for line in self.lines if 'left alone' in line]))

    def test_every_request_refuses_a_hostile_name_before_sending(self):
        store = self.store
        calls = {
            'get': lambda n: store.container.get('p', n),
            'get_many': lambda n: store.container.get_many('p', [n]),
            'newest_md5s': lambda n: store.container.newest_md5s('p', [n]),
            'write': lambda n: store.container.write('p', {n: b'x'}),
            'write_many': lambda n: store.container.write(
                'p', {n: b'x', 'ok': b'y'}),
            'delete_objects': lambda n: store.container.delete_objects(
                'p', [n, 'b']),
            'delete_one': lambda n: store.container.delete_objects('p', [n]),
            'copy_objects': lambda n: copies.copy_objects(
                store.container, 'p', {n: 'overcloud.yaml'}, {n: '0' * 32}),
            'copy_from': lambda n: copies.copy_objects(
                store.container, 'p', {'x.yaml': n}, {'x.yaml': '0' * 32}),
            'export': lambda n: export.export(
                store.container, 'p', {'x.yaml': n}, io.BytesIO()),
        }
        for name in HOSTILE:
            for what, call in calls.items():
                before = self.requests()
                with self.assertRaises(exceptions.CommandError,
                                       msg=(what, name)) as cm:
                    call(name)
                self.assertIn(repr(name), str(cm.exception), (what, name))
                self.assertEqual(before, self.requests(), (what, name))
        for name in HOSTILE:
            # Kept content is tree content: a record name is none of it.
            before = self.requests()
            try:
                copies.keep(store.container, 'p', {name: '0' * 32})
            except exceptions.CommandError as exc:
                self.assertIn(repr(name), str(exc))
            self.assertEqual(before, self.requests(), name)
        self.assertStayedInPlan()

    def test_an_outcome_of_a_hostile_step_id_is_not_written(self):
        before = self.requests()
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'no request was sent'):
            self.store.writer.write_outcome('p', '../../../victim/db', {
                'status': 'SUCCESS'})
        # Read as the follow task reads it, the id from its request.
        for step_id in ('../../../victim/db', 'a/b', '..%2f..%2fvictim'):
            with self.assertRaisesRegex(exceptions.CommandError,
                                        'no request was sent'):
                self.store.container.get('p', log.outcome_path(step_id))
        self.assertEqual(before, self.requests())
        self.assertStayedInPlan()

    def test_tree_paths_never_reach_the_record(self):
        step = sorted(n for n in self.swift.objects
                      if n.startswith(log.LOG_PREFIX))[0]
        for call, named in (
                (lambda: self.store.container.delete_objects(
                    'p', [step, 'a']), step),
                (lambda: copies.copy_objects(
                    self.store.container, 'p', {step: 'overcloud.yaml'},
                    {step: '0' * 32}), step),
                (lambda: self.store.container.write('p', {
                    'user-environments/x.yaml': b'x', 'a': b'b'}),
                 'user-environments/x.yaml')):
            before = self.requests()
            with self.assertRaises(exceptions.CommandError) as cm:
                call()
            self.assertIn(repr(named), str(cm.exception))
            self.assertEqual(before, self.requests())
        self.assertIn(step, self.swift.objects)

    def test_bulk_requests_refuse_them_too(self):
        conn = fakes.swift_connection()
        for call in (lambda n: bulk.delete(conn, 'p', ['a', n]),
                     lambda n: bulk.extract_archive(conn, 'p', {n: b'x'})):
            for name in HOSTILE:
                before = self.requests()
                with self.assertRaises(exceptions.CommandError):
                    call(name)
                self.assertEqual(before, self.requests())


class TestRecordedTrees(hostile_names.NamesTestCase):
    """A step whose tree names objects outside the plan, or the record."""

    def newest(self):
        name = sorted(n for n in self.swift.objects
                      if n.startswith(log.LOG_PREFIX))[-1]
        return name, yaml.safe_load(self.swift.objects[name][0])

    def rewrite(self, name, step):
        data, when = self.swift.objects[name]
        self.swift.objects[name] = (log.dump(step), when)

    def amend(self):
        head = self.store.reader.head('p')
        files = files_mod.PlanFiles(head.state['templates'])
        files.add_environment(self.write('b.yaml', b'parameters: {b: 1}\n'))
        steps.amend(self.store, 'p', head, files, [],
                    fakes.Recorder(self.store), no_render=True)

    def test_a_tree_base_outside_the_plan_is_never_read(self):
        name, step = self.newest()
        for base in ('../../../victim/db', '..%2f..%2f..%2fvictim/db',
                     'a' * 31 + 'G'):
            step['state']['tree']['base'] = base
            step['change']['tree_base'] = base
            self.rewrite(name, step)
            for call in (
                    lambda: past.at(self.store, 'p', '1'),
                    lambda: self.store.reader.history('p'),
                    lambda: past.files(self.store,
                                       past.at(self.store, 'p', '1')),
                    lambda: diff.compare(self.store, 'p', '1', '1')):
                with self.assertRaisesRegex(exceptions.CommandError,
                                            'damaged|MD5') as cm:
                    call()
                self.assertIn(name, str(cm.exception))
        self.assertStayedInPlan()

    def test_a_restore_never_deletes_or_writes_the_record(self):
        self.amend()
        listed = sorted(n for n in self.swift.objects
                        if n.startswith(log.LOG_PREFIX))
        name, step = self.newest()
        # The newest tree claims the first step object and the cache as
        # files: a restore of step 1 would delete them as added since.
        step['state']['tree']['changes'].update({
            listed[0]: content.md5(self.swift.objects[listed[0]][0]),
            log.PATH: None})
        step['change']['tree'] = dict(step['state']['tree']['changes'])
        self.rewrite(name, step)
        before = dict(self.swift.objects)
        fakes.stack_is(self.m, None)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'holds the plan\'s record'):
            fakes.restore(self.store, '1')
        self.assertEqual(before, self.swift.objects)
        self.assertStayedInPlan()

    def test_a_snapshot_listing_record_paths_is_damaged(self):
        name, step = self.newest()
        listed = sorted(n for n in self.swift.objects
                        if n.startswith(log.LOG_PREFIX))
        snap, data, md5 = tree.snapshot({
            'overcloud.yaml': content.md5(b'heat: 1\n'),
            listed[0]: content.md5(self.swift.objects[listed[0]][0])})
        self.swift.store(snap, data)
        step['state']['tree'] = {'base': md5, 'changes': {}}
        step['change']['tree_base'] = md5
        self.rewrite(name, step)
        self.store.reader.history('p')        # the cache mended, by a reader
        before = dict(self.swift.objects)
        fakes.stack_is(self.m, None)
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'snapshot .* is missing or damaged'):
            fakes.restore(self.store, '1')
        self.assertEqual(before, self.swift.objects)
        self.assertStayedInPlan()


class TestExportAndDelete(hostile_names.NamesTestCase):

    def test_an_export_of_a_plan_with_hostile_names_is_refused(self):
        from tripleoplanclient.osc import plan as plan_commands
        self.swift.store('user-environments/../../victim/db.yaml', b'evil')
        out = self.dir + '/p.tar.gz'
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'victim/db.yaml'):
            self.cmd(plan_commands.ExportPlan, 'p', '--output-file', out)
        self.assertStayedInPlan()


# Names built from what makes a URL path move: dots, slashes, percent
# signs and the hex digits of their encodings.
NAMES = st.text(alphabet='./%2eEfF5a', max_size=24)


class TestTheRuleSuffices(unittest.TestCase):
    """Any name the rule lets through is, once swiftclient and requests
    have built its URL, exactly that object of the plan."""

    @hypothesis.settings(max_examples=500, deadline=None)
    @hypothesis.given(NAMES)
    def test_a_name_that_passes_addresses_only_itself(self, name):
        hypothesis.assume(layout.name_problem(name) is None)
        with requests_mock.Mocker() as m:
            m.register_uri(requests_mock.ANY, re.compile('.*'),
                           status_code=204)
            fakes.swift_connection().delete_object('p', name)
            path = parse.urlsplit(m.last_request.url).path
        self.assertEqual(ACCOUNT + '/p/' + name, parse.unquote(path))
        self.assertFalse(hostile_names.dot_segment(
            path[len(ACCOUNT + '/p/'):]))
