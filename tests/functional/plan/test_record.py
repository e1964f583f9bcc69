"""The record is the whole truth: concurrent writers and a killed client,
against the real Swift, Mistral and Heat (small templates)."""

import json
import os
import signal
import subprocess
import time
import uuid

import yaml

from tests.functional import base
from tests.functional import deploy_base
from tests.functional import library_base

WRITERS = 16
ROUNDS = 5


class TestConcurrentWriters(deploy_base.DeployTest):

    def run_round(self, commands):
        """Start every command at once; ``[(rc, stdout, stderr)]``."""
        procs = [subprocess.Popen(
            ['openstack'] + cmd, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, env=self.env,
            stdin=subprocess.DEVNULL) for cmd in commands]
        return [_finish(p) for p in procs]

    def test_sixteen_writers_five_rounds_lose_nothing(self):
        self.first_deploy()
        kinds = {}          # step id -> ('add', plan path) | ('remove', ...)
        removable = []
        refused = 0
        for rnd in range(ROUNDS):
            commands, meaning = [], []
            for w in range(WRITERS - 2):
                path = self.write('%s/r%d-w%02d.yaml' % (self.plan, rnd, w),
                                  'parameter_defaults:\n  R%dW%d: 1\n'
                                  % (rnd, w))
                commands.append(['overcloud', 'plan', 'amend', self.plan,
                                 '-e', path, '--no-render', '-f', 'json'])
                meaning.append(('add', 'user-files' + path))
            if removable:
                gone = removable.pop(0)
                commands.append(['overcloud', 'plan', 'amend', self.plan,
                                 '--remove-environment', gone, '-f',
                                 'json'])
                meaning.append(('remove', gone))
            commands.append(['overcloud', 'deploy', '--stack', self.plan,
                             '-f', 'json'])
            meaning.append(('deploy', None))
            for (rc, out, err), what in zip(self.run_round(commands),
                                            meaning):
                self.assertNotIn('Traceback', err)
                if rc != 0:
                    # A command that cannot land says so and leaves no step.
                    self.assert_not_done(out)
                    self.assertTrue(err.strip())
                    refused += 1
                    continue
                result = json.loads(out)
                self.assertEqual('SUCCESS', result['status'], err)
                self.assertNotIn(result['id'], kinds)
                kinds[result['id']] = what
                if what[0] == 'add':
                    removable.append(what[1])
        history = self.openstack_json('overcloud', 'plan', 'show-history',
                                      self.plan)
        ids = [row['id'] for row in history]
        self.assertEqual(len(ids), len(set(ids)))
        self.assertEqual(list(range(1, len(ids) + 1)),
                         [row['step'] for row in history])
        # Every SUCCESS is one step on record, and nothing else is.
        lost = set(kinds) - set(ids)
        self.assertEqual(set(), lost)
        self.assertEqual(set(ids[2:]), set(kinds))
        # The environment list is every change, in history order.
        # (A stack step shows the list Heat received: its writer's view.)
        envs = list(history[1]['environments'])
        added = set(envs)
        for row in history[2:]:
            kind, path = kinds[row['id']]
            if kind == 'add':
                envs.append(path)
                added.add(path)
            elif kind == 'remove':
                envs.remove(path)
            if kind == 'deploy':
                self.assertLessEqual(set(row['environments']), added)
            else:
                self.assertEqual(envs, row['environments'], row['step'])
        self.assertEqual(envs, self.plan_record(self.plan)['environments'])
        print('\n%d writers x %d rounds: %d SUCCESS, %d refused, %d steps '
              'recorded, %d lost' % (WRITERS, ROUNDS, len(kinds), refused,
                                     len(ids) - 2, len(lost)))


class SlowDeployTest(deploy_base.DeployTest):

    def slow_deploy(self, seconds):
        """A deployed stack, then a deploy whose stack update takes
        ``seconds``: ``(process, its -e file, when it began)`` once Heat
        runs the update."""
        self.first_deploy()
        slow = self.write('%s/slow.yaml' % self.plan,
                          'parameter_defaults:\n  Wait: %d\n'
                          '  Extra: slow\n' % seconds)
        began = time.monotonic()
        proc = subprocess.Popen(
            ['openstack', 'overcloud', 'deploy', '--stack', self.plan, '-e',
             slow], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=self.env, stdin=subprocess.DEVNULL, text=True,
            start_new_session=True, preexec_fn=base.default_sigint)
        while (self.stack() or {}).get('stack_status') != \
                'UPDATE_IN_PROGRESS' and time.monotonic() < began + 120:
            time.sleep(0.5)
        return proc, slow, began


class TestKilledClient(SlowDeployTest):

    def test_a_killed_deploy_is_on_record_and_mended(self):
        proc, slow, began = self.slow_deploy(40)
        # 20 s into the deploy, once Heat runs it, the client dies.
        time.sleep(max(0, 20 - (time.monotonic() - began)))
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        self.assertEqual('UPDATE_IN_PROGRESS', self.stack()['stack_status'])
        history = self.openstack_json('overcloud', 'plan', 'show-history',
                                      self.plan)
        step = history[-1]
        self.assertEqual(('deploy', 'IN_PROGRESS'), (
            step['action'], step['outcome']['status']))
        self.assertIn('user-files' + slow, step['environments'])
        # Meanwhile a second operation is refused, naming the step.
        before = self.snapshot(self.plan)
        self.fail_with(r'operation in progress \(step %d, deploy, started '
                       r'by' % step['step'], 'overcloud', 'deploy',
                       '--stack', self.plan)
        self.assertEqual(before, self.snapshot(self.plan))
        # Once Heat is done, the deploy workflow in Mistral, which followed
        # the stack all along, records the real outcome.
        self.assertEqual('UPDATE_COMPLETE', self.wait_stack()['stack_status'])
        deadline = time.monotonic() + 60
        while self.plan_record(self.plan)['history'][-1]['outcome'][
                'status'] == 'IN_PROGRESS' and time.monotonic() < deadline:
            time.sleep(1)
        self.assertEqual('mistral', self.plan_record(self.plan)['history'][
            -1]['outcome'].get('recorded_by'))
        history = self.openstack_json('overcloud', 'plan', 'show-history',
                                      self.plan)
        self.assertEqual(step['id'], history[-1]['id'])
        self.assertEqual(('SUCCESS', 'UPDATE_COMPLETE'), (
            history[-1]['outcome']['status'],
            history[-1]['outcome']['stack_status']))
        # And the next deploy builds on it.
        again = self.deploy()
        self.assertEqual(('SUCCESS', step['environments']), (
            again['status'], again['environments']))


def _finish(proc):
    out, err = proc.communicate(timeout=600)
    return proc.returncode, out, err


class TestInterruptedClient(SlowDeployTest):

    def test_ctrl_c_leaves_an_unknown_step_that_heat_settles(self):
        proc, _, _ = self.slow_deploy(15)
        # Heat runs the update as soon as the deploy task asked it; the
        # client follows it only once it saw that task end in Mistral (its
        # "started" line), which may take seconds more. Interrupted before,
        # it has no outcome of its own to record (the step stays
        # IN_PROGRESS, as after a killed client): wait for that line.
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if ' started (' in line:
                break
        self.assertIn(' started (', lines[-1] if lines else '',
                      ''.join(lines))
        time.sleep(2)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        self.assertNotEqual(0, proc.returncode)
        # Its row, as known when interrupted (issue 28).
        self.assertRegex(out, r'\| status +\| INTERRUPTED +\|')
        step = self.plan_record(self.plan)['history'][-1]
        self.assertEqual('UNKNOWN', step['outcome']['status'])
        self.assertIn('KeyboardInterrupt', step['outcome']['reason'])
        self.wait_stack()
        history = self.openstack_json('overcloud', 'plan', 'show-history',
                                      self.plan)
        self.assertEqual((step['id'], 'SUCCESS'), (
            history[-1]['id'], history[-1]['outcome']['status']))


class TestIndex(base.FunctionalTest):
    """user-environments/environments.yaml, downloaded as a script does
    (a plain GET, a plain YAML loader), right after each kind of step,
    with no reader of the log in between."""

    def index(self, plan):
        status, _, body = self.swift.request(
            'GET', '%s/user-environments/environments.yaml' % plan)
        self.assertEqual(200, status)
        return yaml.safe_load(body)

    def assert_current(self, plan, result, environments):
        index = self.index(plan)
        last = index['history'][-1]
        self.assertEqual(environments, index['environments'])
        self.assertEqual((result['id'], result['action'], environments),
                         (last['id'], last['action'], last['environments']))
        self.assertEqual(len(index['history']), last['step'])
        self.assertEqual(index['steps'], len(index['history']))
        for field in ('time', 'user', 'command'):
            self.assertTrue(last[field], field)
        self.assertEqual('SUCCESS', last['outcome']['status'])
        return index

    def test_current_after_create_amend_settings_and_restore(self):
        templates = base.write_tree(os.path.join(self.tmp, 'index'),
                                    library_base.TEMPLATES)
        plan = 'index-%s' % uuid.uuid4().hex[:8]
        self.addCleanup(self.openstack, 'overcloud', 'plan', 'delete', '-y',
                        plan)
        registry = 'overcloud-resource-registry-puppet.yaml'
        created = self.openstack_json(
            'overcloud', 'plan', 'create', plan, '--templates', templates,
            '-e', os.path.join(templates, registry), '--no-render')
        index = self.assert_current(plan, created, [registry])
        self.assertEqual(templates, index['templates'])
        self.assertIn('digest', index['release'])
        mine = self.write('mine/x.yaml', 'parameter_defaults: {Needed: x}\n')
        amended = self.openstack_json('overcloud', 'plan', 'amend', plan,
                                      '-e', mine, '--no-render')
        every = [registry, 'user-files' + mine]
        self.assert_current(plan, amended, every)
        enabled = self.openstack_json(
            'overcloud', 'plan', 'capabilities', 'set', plan, '--enable',
            'environments/mode-a.yaml')
        every.append('environments/mode-a.yaml')
        self.assert_current(plan, enabled, every)
        values = self.openstack_json('overcloud', 'plan', 'parameters',
                                     'set', plan, 'Needed=index')
        index = self.assert_current(plan, values, every)
        self.assertEqual(['create', 'amend', 'capabilities', 'parameters'],
                         [r['action'] for r in index['history']])
        restored = self.openstack_json('overcloud', 'plan', 'restore', plan,
                                       '--step', '1')
        index = self.assert_current(plan, restored, [registry])
        self.assertEqual(5, len(index['history']))
        # What the log says, row for row.
        shown = self.openstack_json('overcloud', 'plan', 'show-history',
                                    plan)
        self.assertEqual([(r['id'], r['environments']) for r in shown],
                         [(r['id'], r['environments'])
                          for r in self.index(plan)['history']])
