"""Hostile record objects from Swift: a clear error, never a traceback.

Anyone with the account can PUT a step object, the cache or an outcome.
Whatever the bytes, the loaders give a CommandError or a value every
reader of the record can use.
"""

import json
import unittest

import hypothesis
from hypothesis import strategies as st
from osc_lib import exceptions
import yaml

from tests.unit import fakes
from tests.unit.record import hostile_values
from tripleoplanclient.plan import tree
from tripleoplanclient.record import index
from tripleoplanclient.record import log

EMPTY = log.Head(log.new_state(), 0, None, [])
SETTINGS = hypothesis.settings(max_examples=500, deadline=None)


def good_step():
    step = log.make_step('deploy', {
        'environments': {'add': ['a.yaml'], 'remove': []},
        'files': {'user-files/a.yaml': {'source': '/a.yaml', 'md5': 'm'}},
        'inputs': {'roles_data': 'r.yaml'}, 'tree': {'a.yaml': 'm'}},
        ['a.yaml'], argv=[])
    step['render'] = {'state': 'SUCCESS'}
    step['stack'] = {'operation': 'UPDATE', 'environments': ['a.yaml']}
    return log.seal(step, EMPTY)


def dumped(value):
    try:
        return yaml.safe_dump(value).encode()
    except yaml.YAMLError:
        return b'{'


RAW = st.one_of(st.binary(max_size=200), st.text(max_size=200).map(
    str.encode), hostile_values.VALUE.map(dumped))


def use_rows(test, rows, state):
    """What the commands do with a history and a state."""
    for row in rows:
        log.heat_environments(row)
        log.seconds(row.get('time'))
        '%s %s %s' % (row['step'], row['action'], row['outcome']['status'])
    log.last_stack(rows)
    index.dump_cache('p', rows, state, 'x', [])
    log.apply(state, log.make_step('amend', {}, argv=[]))
    tree.after(state.get('tree'), {})
    test.assertIsInstance(state['environments'], list)


class TestHostileRecord(unittest.TestCase):

    def check_step(self, data):
        try:
            step = log.load_step(data, 'p', 'user-environments/log/x')
        except exceptions.CommandError as exc:
            self.assertIn('plan p', str(exc))
            return
        state = log.apply(log.new_state(), step)
        row = log.row(dict(step, state=state), 1)
        use_rows(self, [row] + list(step.get('imported') or []), state)
        log.merge_outcome(row, {'outcome': step['outcome']})

    @SETTINGS
    @hypothesis.given(hostile_values.mutated(good_step()))
    def test_damaged_step_objects(self, value):
        self.check_step(dumped(value))

    @SETTINGS
    @hypothesis.given(RAW)
    def test_any_bytes_as_a_step_object(self, data):
        self.check_step(data)

    def check_cache(self, data):
        try:
            rows, state, _, imported = index.load_cache(data, 'p')
        except exceptions.CommandError as exc:
            self.assertIn('plan p', str(exc))
            return
        use_rows(self, rows + imported, state)

    @SETTINGS
    @hypothesis.given(hostile_values.mutated(json.loads(index.dump_cache(
        'p', [log.row(good_step(), 1)], good_step()['state'], 'x', []))))
    def test_damaged_caches(self, value):
        self.check_cache(json.dumps(value).encode())

    @SETTINGS
    @hypothesis.given(hostile_values.mutated({
        'version': 1, 'templates': '/t', 'environments': ['a'],
        'inputs': {'roles_data': 'r'}, 'files': {'a': {'md5': 'm'}},
        'history': [{'id': 1, 'action': 'create', 'environments': ['a'],
                     'render': {'state': 'SUCCESS'}, 'lifecycle': 'l',
                     'stack': {'fingerprint': 'f'},
                     'outcome': {'status': 'SUCCESS'}}]}))
    def test_damaged_version_1_records(self, value):
        self.check_cache(dumped(value))

    @SETTINGS
    @hypothesis.given(RAW)
    def test_any_bytes_as_the_cache(self, data):
        self.check_cache(data)

    @SETTINGS
    @hypothesis.given(st.one_of(RAW, hostile_values.mutated({
        'outcome': {'status': 'SUCCESS', 'reason': 'r'},
        'stack': {'updated': 'u'}}).map(dumped)))
    def test_outcome_objects(self, data):
        row = log.row(good_step(), 1)
        try:
            found = log.load_outcome(data, 'o', 'p')
        except exceptions.CommandError:
            return
        log.merge_outcome(row, found)
        use_rows(self, [row], log.new_state())

    def test_the_loaders_name_what_is_damaged(self):
        step = good_step()
        step['state']['environments'] = ['../../etc/x']
        with self.assertRaisesRegex(exceptions.CommandError,
                                    r'state.environments\[0\].*"\.\."'):
            log.load_step(log.dump(step), 'p', 'n')
        with self.assertRaisesRegex(exceptions.CommandError, 'damaged'):
            log.load_step(b'&a [*a]', 'p', 'n')
        with self.assertRaisesRegex(exceptions.CommandError, 'damaged'):
            log.load_outcome(None, 'o', 'p')


class TestHostileRecordInSwift(fakes.HttpTestCase):
    """The same through the reader's history and head, as commands read."""

    def setUp(self):
        super().setUp()
        self.swift = fakes.FakeSwift(self.m)
        self.store = fakes.plan_store()

    @hypothesis.settings(max_examples=200, deadline=None)
    @hypothesis.given(hostile_values.mutated(good_step()), RAW, RAW)
    def test_history_and_head(self, step, cache, outcome):
        self.swift.objects.clear()
        good = good_step()
        good['outcome']['status'] = 'IN_PROGRESS'
        self.swift.store(good['name'], log.dump(good))
        self.swift.store(log.LOG_PREFIX + '20261123T110000000000Z-'
                         'aaaaaaaaaaaa.yaml', dumped(step))
        self.swift.store(log.PATH, cache)
        self.swift.store(log.outcome_path(good['id']), outcome)
        for read in (self.store.reader.history, self.store.reader.head):
            try:
                read('p')
            except exceptions.CommandError:
                pass
