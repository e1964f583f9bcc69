"""The configure task's and the download's bodies (``mistral.configure``)
on a plan with a stack step: the archive kept with the step found again
without Heat, a past step's never made from today's stack, the playbooks
of each action, progress batched into new objects, and the step's final
outcome with both parts."""

import os

import yaml

from tests.unit import fakes
from tests.unit.mistral import stack_step_base
from tests.unit import small_plan
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import configure
from tripleoplanclient import protocol
from tripleoplanclient.record import configs
from tripleoplanclient.record import log

STACK_ID = fakes.STACK_ID
FILES = {'deploy_steps_playbook.yaml': (b'- hosts: all\n', 0o644)}


def never(*args):
    raise AssertionError('the tree was built from the stack')


class TestDownload(stack_step_base.StackStepTestCase):

    def stack_step(self):
        fakes.stack_is(self.m, None)
        step = self.ask('deploy', container='p')['step']
        fakes.stack_is(self.m, small_plan.stack('CREATE_COMPLETE'), STACK_ID)
        return step

    def download(self, **fields):
        req = protocol.read('config_download', protocol.request(
            'config_download', container='p', swift_url=fakes.SWIFT,
            heat_url=fakes.HEAT, **fields))
        return configure.download(self.store, fakes.heat_client(), req,
                                  never)

    def test_a_kept_archive_is_found_without_heat(self):
        step = self.stack_step()
        kept = configure.store_archive(self.store, 'p', configs.archive_path(
            step['id']), FILES)
        before = len(self.m.request_history)
        found = self.download()
        self.assertEqual((step['id'], 2, kept['object'], 1, kept['bytes'],
                          False, 0), (
            found['step'], found['number'], found['object'], found['files'],
            found['bytes'], found['built'], found['heat_requests']))
        self.assertEqual([], [r for r in self.m.request_history[before:]
                              if 'heat' in r.netloc])

    def test_an_archive_is_written_once(self):
        step = self.stack_step()
        name = configs.archive_path(step['id'])
        configure.store_archive(self.store, 'p', name, FILES)
        configure.store_archive(self.store, 'p', name, dict(
            FILES, other=(b'x', 0o644)))
        self.assertEqual(configs.pack(FILES), self.swift.objects[name][0])

    def test_a_past_step_s_tree_is_never_made_from_today_s_stack(self):
        first = self.stack_step()
        self.store.writer.write_outcome('p', first['id'], {
            'status': 'FAILED'}, {})
        self.m.put(fakes.HEAT + '/stacks/' + STACK_ID, status_code=202)
        self.ask('deploy', container='p', force=True)
        with self.assertRaises(exceptions.CommandError) as ctx:
            self.download(step=2)
        self.assertIn('kept no configuration of step 2', str(ctx.exception))

    def test_a_step_that_is_no_stack_step_is_refused(self):
        self.stack_step()
        with self.assertRaises(exceptions.CommandError) as ctx:
            self.download(step=1)
        self.assertIn('no stack step', str(ctx.exception))

    def test_setup_only_keeps_the_tree_and_ends_the_step(self):
        step = self.stack_step()
        configure.store_archive(self.store, 'p', configs.archive_path(
            step['id']), FILES)
        self.store.writer.write_outcome('p', step['id'], {
            'status': 'IN_PROGRESS', 'configuring': True,
            'stack_status': 'CREATE_COMPLETE'}, {'id': STACK_ID},
            final=False)
        req = protocol.read('deploy', protocol.request(
            'deploy', container='p', config='setup', swift_url=fakes.SWIFT,
            heat_url=fakes.HEAT))
        answer = configure.configure(
            self.store, fakes.heat_client(), req, {'step': step},
            {'done': True, 'configure': True}, never,
            {'ssh': {'user': 'tripleo-admin'}, 'networks': []})
        self.assertEqual(('SUCCESS', 'mistral'),
                         (answer['status'], answer['recorded_by']))
        found = self.outcome(step['id'])
        self.assertEqual(('SUCCESS', 'CREATE_COMPLETE', 'SUCCESS', False), (
            found['outcome']['status'], found['outcome']['stack_status'],
            found['config']['status'], found['config']['ran']))
        self.assertNotIn('configuring', found['outcome'])
        # the index row says so too
        rows, _ = self.store.reader.history('p')
        self.assertEqual(('SUCCESS', 'SUCCESS'), (
            rows[-1]['outcome']['status'], rows[-1]['config']['status']))

    def test_become_off_outranks_the_plays_on_every_run(self):
        step = self.stack_step()
        configure.store_archive(self.store, 'p', configs.archive_path(
            step['id']), FILES)
        self.store.writer.write_outcome('p', step['id'], {
            'status': 'IN_PROGRESS', 'configuring': True,
            'stack_status': 'CREATE_COMPLETE'}, {'id': STACK_ID},
            final=False)
        req = protocol.read('deploy', protocol.request(
            'deploy', container='p', swift_url=fakes.SWIFT,
            heat_url=fakes.HEAT))
        seen = []

        def run(tree, playbook, inventory, **kwargs):
            seen.append(kwargs['extra_vars'])
            return {'status': 'SUCCESS', 'playbook': playbook}

        for become in (True, False):
            configure.configure(
                self.store, fakes.heat_client(), req, {'step': step},
                {'done': True, 'configure': True}, run,
                {'ssh': {'user': 'tripleo-admin'}, 'networks': [],
                 'become': become})
        self.assertEqual([None, {'ansible_become': False}], seen)

    def test_nothing_to_do_when_the_follow_task_said_so(self):
        self.assertEqual({'done': True, 'configured': False},
                         configure.configure(None, None, {}, {}, {
                             'done': True}, never, {}))


class TestOutcome(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.swift = fakes.FakeSwift(self.m)
        self.store = fakes.plan_store()

    def test_both_parts_must_succeed(self):
        heat = {'status': 'IN_PROGRESS', 'configuring': True,
                'stack_status': 'UPDATE_COMPLETE'}
        ok = configure.combined(heat, {'status': 'SUCCESS'})
        self.assertEqual(('SUCCESS', 'SUCCESS', 'UPDATE_COMPLETE'), (
            ok['status'], ok['config_status'], ok['stack_status']))
        self.assertNotIn('configuring', ok)
        failed = configure.combined(heat, {'status': 'FAILED', 'failures': [
            {'host': 'c-0', 'task': 'Write a file', 'message': 'denied'}]})
        self.assertEqual('FAILED', failed['status'])
        self.assertIn('c-0: Write a file: denied', failed['reason'])
        long = configure.combined(heat, {'status': 'FAILED', 'failures': [
            {'host': 'c-0', 'task': 't', 'message': 'x' * 500 + '\nmore'}]})
        self.assertNotIn('more', long['reason'])
        self.assertLess(len(long['reason']), 300)
        self.assertEqual('TIMEOUT', configure.combined(heat, {
            'status': 'TIMEOUT'})['status'])

    def test_the_first_final_outcome_stands(self):
        first = configure.record(self.store, 'p', 'abc', {}, {}, {
            'status': 'FAILED', 'progress': ['dropped']})
        second = configure.record(self.store, 'p', 'abc', {}, {}, {
            'status': 'SUCCESS'})
        self.assertEqual((True, False), (first[1], second[1]))
        found = yaml.safe_load(self.swift.objects[log.outcome_path(
            'abc')][0])
        self.assertEqual(('FAILED', 'FAILED'), (
            found['outcome']['status'], found['config']['status']))
        self.assertNotIn('progress', found['config'])


class TestPlaybooks(fakes.HttpTestCase):

    def req(self, action, playbooks=None):
        return protocol.read('deploy', protocol.request(
            'deploy', container='p', action=action, playbooks=playbooks))

    def test_by_action_those_the_tree_has(self):
        tree = {'deploy_steps_playbook.yaml', 'update_steps_playbook.yaml',
                'upgrade_steps_playbook.yaml'}
        self.assertEqual(['deploy_steps_playbook.yaml'],
                         configure.playbooks(self.req('deploy'), tree))
        self.assertEqual(['update_steps_playbook.yaml',
                          'deploy_steps_playbook.yaml'],
                         configure.playbooks(self.req('update'), tree))
        self.assertEqual(['upgrade_steps_playbook.yaml',
                          'deploy_steps_playbook.yaml'],
                         configure.playbooks(self.req('upgrade'), tree))

    def test_none_of_them_is_a_clear_error(self):
        with self.assertRaises(exceptions.CommandError) as ctx:
            configure.playbooks(self.req('deploy'), {'other.yaml'})
        self.assertIn('deploy_steps_playbook.yaml', str(ctx.exception))

    def test_the_request_s_own_must_be_there(self):
        self.assertEqual(['a.yaml'], configure.playbooks(
            self.req('deploy', ['a.yaml']), {'a.yaml'}))
        self.assertRaises(exceptions.CommandError, configure.playbooks,
                          self.req('deploy', ['b.yaml']), {'a.yaml'})


class TestProgress(fakes.HttpTestCase):

    def test_batches_numbered_in_order_each_written_once(self):
        written, clock = [], fakes.FakeClock()
        progress = configure.Progress(
            lambda seq, data: written.append((seq, configs.load_events(
                data))), every=3, clock=clock)
        progress({'host': 'a', 'task': 't1', 'status': 'ok'})
        clock.sleep(1)
        progress({'host': 'b', 'task': 't1', 'status': 'changed',
                  'extra': 'not kept'})
        self.assertEqual([], written)
        clock.sleep(3)
        # a batch every 3 s: this one goes with those before it
        progress({'host': 'a', 'task': 't2', 'status': 'failed',
                  'message': 'x' * 5000})
        self.assertEqual([1], [seq for seq, _ in written])
        progress({'host': 'a', 'task': 't3', 'status': 'ok'})
        progress.close()
        progress.close()
        self.assertEqual([1, 2], [seq for seq, _ in written])
        self.assertEqual(['t1', 't1', 't2', 't3'], [
            e['task'] for _, events in written for e in events])
        self.assertNotIn('extra', written[0][1][1])
        self.assertEqual(2000, len(written[0][1][2]['message']))

    def test_a_failed_write_loses_only_that_view(self):
        def refuse(seq, data):
            raise exceptions.CommandError('Swift said no')
        progress = configure.Progress(refuse, every=0)
        progress({'host': 'a'})
        progress.close()
        self.assertEqual(1, progress.seq)


class TestMerged(fakes.HttpTestCase):

    def test_counts_summed_per_host_the_last_status(self):
        results = [
            {'status': 'SUCCESS', 'playbook': 'u.yaml', 'duration': 1.5,
             'hosts': {'a': {'ok': 2, 'changed': 1}},
             'tasks': {'ran': 3, 'skipped': 1}, 'failures': []},
            {'status': 'FAILED', 'playbook': 'd.yaml', 'duration': 2,
             'hosts': {'a': {'ok': 1, 'failed': 1}, 'b': {'unreachable': 1}},
             'tasks': {'ran': 2, 'skipped': 0},
             'failures': [{'host': 'a', 'task': 't', 'message': 'm'}]}]
        found = configure.merged(results, ['u.yaml', 'd.yaml'])
        self.assertEqual('FAILED', found['status'])
        self.assertEqual({'ok': 3, 'changed': 1, 'failed': 1,
                          'unreachable': 0, 'skipped': 0}, found['hosts']['a'])
        self.assertEqual(1, found['hosts']['b']['unreachable'])
        self.assertEqual(({'ran': 5, 'skipped': 1}, 3.5, ['u.yaml', 'd.yaml']),
                         (found['tasks'], found['duration'],
                          found['playbooks']))
        self.assertEqual(1, len(found['failures']))
        self.assertEqual(
            [('u.yaml', 'SUCCESS', 3, 1.5), ('d.yaml', 'FAILED', 2, 2)],
            [(r['playbook'], r['status'], r['tasks']['ran'], r['duration'])
             for r in found['runs']])
        self.assertEqual('FAILED', configure.merged([], [])['status'])


class TestBuilt(stack_step_base.StackStepTestCase):
    """The tree made from a config-download stack (``config``) on first
    download, kept with the step, then found again without Heat."""

    def test_made_once_then_kept(self):
        from tests.unit.config import fake_heat
        from tests.unit.config import stacks
        fakes.stack_is(self.m, None)
        step = self.ask('deploy', container='p')['step']
        heat = fake_heat.FakeHeat(self.m, stacks.overcloud('p'))
        req = protocol.read('config_download', protocol.request(
            'config_download', container='p', swift_url=fakes.SWIFT,
            heat_url=fakes.HEAT))
        first = configure.download(self.store, fakes.heat_client(), dict(
            req), configure.build, ssh_user='cloud-admin')
        self.assertTrue(first['built'])
        self.assertGreater(first['heat_requests'], 0)
        archive = self.swift.objects[configs.archive_path(step['id'])][0]
        target = self.temp_dir()
        files, _ = configs.unpack(archive, target, 'it')
        self.assertEqual(first['files'], files)
        with open(target + '/' + configure.INVENTORY) as f:
            inventory = yaml.safe_load(f)
        # the admin password is in it: for its owner only
        self.assertEqual(0o600, os.stat(
            target + '/' + configure.INVENTORY).st_mode & 0o777)
        self.assertEqual('cloud-admin', inventory['p_Controller']['vars'][
            'ansible_ssh_user'])
        asked = len(heat.log)
        again = configure.download(self.store, fakes.heat_client(), dict(
            req), never)
        self.assertEqual((False, 0, first['bytes']), (
            again['built'], again['heat_requests'], again['bytes']))
        self.assertEqual(asked, len(heat.log))
