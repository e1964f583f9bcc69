"""The plan record: replaying steps, ordering them, reading old records."""

import unittest

import yaml

from tripleoplanclient.common import exceptions
from tripleoplanclient.record import index
from tripleoplanclient.record import log

EMPTY = log.Head(log.new_state(), 0, None, [])


def step(action='amend', add=(), remove=(), status='SUCCESS', **change):
    envs = {'add': list(add), 'remove': list(remove)}
    if 'set' in change:
        envs = {'set': change.pop('set')}
    s = log.make_step(action, dict(change, environments=envs), argv=[])
    s['outcome']['status'] = status
    return s


def rows(*steps):
    """History rows of ``steps`` committed one after the other."""
    head, out = EMPTY, []
    for s in steps:
        log.seal(s, head)
        head = log.Head(s['state'], head.count + 1, s['id'], [])
        out.append(log.row(s, len(out) + 1))
    return out


class TestApply(unittest.TestCase):

    def test_a_step_changes_the_state(self):
        state = log.apply(log.new_state('/tht'), step(
            'create', set=['a.yaml', 'b.yaml'],
            files={'a.yaml': {'source': '/h/a.yaml', 'md5': 'x'}},
            inputs={'roles_data': 'r.yaml'}, templates='/tht2'))
        self.assertEqual(['a.yaml', 'b.yaml'], state['environments'])
        self.assertEqual({'a.yaml': {'source': '/h/a.yaml', 'md5': 'x'}},
                         state['files'])
        self.assertEqual({'roles_data': 'r.yaml'}, state['inputs'])
        self.assertEqual('/tht2', state['templates'])
        self.assertTrue(state['created'])

    def test_added_files_go_last_and_keep_their_place(self):
        state = dict(log.new_state(), environments=['a', 'b'])
        state = log.apply(state, step(add=['c', 'a'], remove=['b']))
        self.assertEqual(['a', 'c'], state['environments'])

    def test_a_failed_step_still_changes_the_plan(self):
        # Its files are in Swift; the outcome tells what Heat made of it.
        state = log.apply(log.new_state(), step(
            'deploy', add=['bad.yaml'], status='FAILED',
            files={'bad.yaml': {'md5': 'y'}}))
        self.assertEqual(['bad.yaml'], state['environments'])
        self.assertEqual('y', state['files']['bad.yaml']['md5'])

    def test_a_failed_create_does_not_make_the_plan_created(self):
        state = log.apply(log.new_state(), step(
            'create', set=['a'], status='FAILED'))
        self.assertFalse(state['created'])

    def test_apply_leaves_its_input_alone(self):
        state = log.new_state()
        log.apply(state, step(add=['a'], files={'a': {'md5': 'x'}}))
        self.assertEqual(log.new_state(), state)

    def test_the_state_goes_in_the_step_with_what_its_writer_saw(self):
        first = step(add=['a'])
        log.seal(first, EMPTY)
        self.assertEqual((0, None), (first['seen'], first['base']))
        head = log.Head(first['state'], 1, first['id'], [])
        second = log.seal(step(add=['b']), head)
        self.assertEqual((1, first['id']), (second['seen'], second['base']))
        self.assertEqual(['a', 'b'], second['state']['environments'])


class TestNamesAndOrder(unittest.TestCase):

    def test_every_step_has_its_own_id_and_name(self):
        steps = [step() for _ in range(200)]
        self.assertEqual(200, len({s['id'] for s in steps}))
        self.assertEqual(200, len({s['name'] for s in steps}))
        for s in steps:
            self.assertEqual(s['id'], log.id_of(s['name']))

    def test_swift_timestamps_order_the_steps_then_ids(self):
        a, b, c = step(), step(), step()
        entries = [
            {'name': c['name'], 'last_modified': '2026-01-01T00:00:02'},
            {'name': a['name'], 'last_modified': '2026-01-01T00:00:01'},
            {'name': log.PATH, 'last_modified': '2026-01-01T00:00:00'},
            {'name': b['name'], 'last_modified': '2026-01-01T00:00:01'}]
        first, second = sorted([a['id'], b['id']])
        self.assertEqual([first, second, c['id']], [
            log.id_of(e['name']) for e in log.ordered(entries)])


class TestHistoryRows(unittest.TestCase):

    def test_a_row_is_small_and_numbered(self):
        row = rows(step(add=['a'], files={'a': {'md5': 'x'}}))[0]
        self.assertEqual(1, row['step'])
        self.assertEqual(['a'], row['environments'])
        for bulky in ('state', 'change', 'paths', 'seen', 'base'):
            self.assertNotIn(bulky, row)

    def test_a_stack_step_shows_what_heat_received(self):
        s = step('update', add=['a'])
        s['stack'] = {'environments': ['a', 'lifecycle.yaml']}
        self.assertEqual(['a', 'lifecycle.yaml'],
                         log.heat_environments(rows(s)[0]))

    def test_only_a_successful_newest_stack_step_is_unchanged(self):
        def deployed(status, fingerprint):
            s = step('deploy', status=status)
            s['stack'] = {'fingerprint': fingerprint, 'updated': 'u'}
            return s
        self.assertIsNone(log.last_stack(rows(step(), step())))
        self.assertEqual({'fingerprint': 'f2', 'updated': 'u'},
                         log.last_stack(rows(deployed('SUCCESS', 'f1'),
                                             deployed('SUCCESS', 'f2'),
                                             step())))
        for status in ('FAILED', 'IN_PROGRESS', 'UNKNOWN', 'TIMEOUT'):
            self.assertIsNone(log.last_stack(rows(
                deployed('SUCCESS', 'f1'), deployed(status, 'f2'))))

    def test_a_final_outcome_fills_the_row(self):
        row = rows(step('deploy', status='IN_PROGRESS'))[0]
        log.merge_outcome(row, {'outcome': {'status': 'SUCCESS'},
                                'stack': {'updated': 'u'}})
        self.assertEqual('SUCCESS', row['outcome']['status'])
        self.assertEqual('u', row['stack']['updated'])

    def test_a_final_outcome_ends_the_configuring(self):
        # a --config-download-only step is recorded configuring
        row = rows(step('deploy', status='IN_PROGRESS'))[0]
        row['outcome']['configuring'] = True
        partial = dict(row, outcome=dict(row['outcome']))
        log.merge_outcome(partial, {'outcome': {'status': 'IN_PROGRESS'}})
        self.assertTrue(partial['outcome']['configuring'])
        log.merge_outcome(row, {'outcome': {'status': 'SUCCESS'}})
        self.assertNotIn('configuring', row['outcome'])

    def test_the_cache_keeps_only_old_and_final_steps(self):
        history = rows(step(), step('deploy', status='IN_PROGRESS'), step())
        entries = [{'last_modified': '2026-11-23T11:00:00.000000'},
                   {'last_modified': '2026-11-23T11:00:01.000000'},
                   {'last_modified': '2026-11-23T11:59:00.000000'}]
        date = 'Mon, 23 Nov 2026 12:00:00 GMT'
        self.assertEqual(1, index.settled(history, entries, date))
        history[1]['outcome']['status'] = 'SUCCESS'
        # The third is younger than SETTLE seconds.
        self.assertEqual(2, index.settled(history, entries, date))
        self.assertEqual(0, index.settled(history, entries, None))


class TestVersion1(unittest.TestCase):

    V1 = {'version': 1, 'plan': 'p', 'templates': '/tht',
          'environments': ['a', 'b'], 'inputs': {'roles_data': 'r'},
          'files': {'b': {'md5': 'x'}},
          'history': [
              {'id': 1, 'action': 'create', 'environments': ['a'],
               'render': {'state': 'SUCCESS'},
               'outcome': {'status': 'SUCCESS'}},
              {'id': 2, 'action': 'update', 'environments': ['a', 'b'],
               'lifecycle': 'l.yaml', 'stack': {'fingerprint': 'f'},
               'outcome': {'status': 'SUCCESS'}}]}

    def test_a_version_1_record_is_read_as_it_is(self):
        history, state, through, imported = index.load_cache(
            yaml.safe_dump(self.V1), 'p')
        self.assertEqual([], history)
        self.assertEqual([1, 2], [r['step'] for r in imported])
        self.assertEqual(['1', '2'], [r['id'] for r in imported])
        self.assertEqual(['a', 'b', 'l.yaml'],
                         log.heat_environments(imported[1]))
        self.assertEqual(['a', 'b'], state['environments'])
        self.assertTrue(state['created'])
        self.assertEqual('SUCCESS', state['render'])

    def test_the_first_new_step_carries_the_old_history(self):
        _, state, _, imported = index.load_cache(yaml.safe_dump(self.V1),
                                                 'p')
        s = log.seal(step(add=['c']), log.Head(state, 0, None,
                                               imported))
        self.assertEqual(imported, s['imported'])
        self.assertEqual(['a', 'b', 'c'], s['state']['environments'])

    def test_an_unknown_version_is_refused(self):
        with self.assertRaisesRegex(exceptions.CommandError, 'version 7'):
            index.load_cache(b'version: 7\n', 'p')
        with self.assertRaisesRegex(exceptions.CommandError, 'damaged'):
            index.load_cache(b'[not, a, mapping]', 'p')


class TestCommandLine(unittest.TestCase):

    def test_secrets_are_masked_in_the_command_line(self):
        line = log.sanitize_argv([
            '--os-password', 'hunter2', '--os-token=abc', 'overcloud',
            'plan', 'create', 'p', '--templates', '/t', '-e', 'x.yaml',
            '--os-application-credential-secret', 's3'])
        for secret in ('hunter2', 'abc', 's3'):
            self.assertNotIn(secret, line)
        self.assertIn('--templates /t -e x.yaml', line)
        self.assertIn('--os-token=***', line)


class TestBounds(unittest.TestCase):
    """Record objects are written without aliases; those of older
    writers (PyYAML's, for an object shared twice) are still read, a
    bomb is damage (issue 37)."""

    def test_written_without_aliases_and_read_either_way(self):
        s = step(add=['one.yaml'])
        shared = {'source': '/home/one.yaml', 'md5': 'd' * 32}
        s['change']['files'] = {'one.yaml': shared}
        log.seal(s, EMPTY)
        s['state']['files'] = {'one.yaml': shared}
        s['state']['read'] = {'one.yaml': shared}
        data = log.dump(s)
        self.assertNotIn(b'&id', data)
        old = yaml.safe_dump(s).encode()
        self.assertIn(b'*id001', old)
        for written in (data, old):
            self.assertEqual(shared, log.load_step(
                written, 'p', 'n')['state']['read']['one.yaml'])

    def test_a_bomb_is_damage(self):
        lines = ['outcome: {status: SUCCESS}', 'x0: &x0 [a, a, a, a]']
        lines += ['x%d: &x%d [%s]' % (i, i, ', '.join(['*x%d' % (i - 1)] * 4))
                  for i in range(1, 12)]
        with self.assertRaises(exceptions.CommandError) as caught:
            log.load_outcome(('\n'.join(lines) + '\n').encode(), 'o', 'p')
        self.assertIn('damaged (line 7: its aliases expand to more than',
                      str(caught.exception))
