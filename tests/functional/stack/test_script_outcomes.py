"""What a script sees through the real ``openstack`` CLI, whatever the
outcome (issue 28): ``-f json`` always parses, and the exit status tells
failed (1), refused with nothing done (3), timed out with Heat still at
work (4) and interrupted (130); ``-q`` leaves stderr empty on success.
The small templates of tests/functional/deploy_base (TestResources that
fail or wait).
"""

import json
import signal
import subprocess

from tests.functional import base
from tests.functional import deploy_base


class OutcomeTest(deploy_base.DeployTest):

    def run_cli(self, *args, timeout=300):
        """``(exit status, the row printed, stderr)`` of ``openstack args
        -f json``, no terminal."""
        proc = subprocess.run(
            ['openstack'] + [str(a) for a in args] + ['-f', 'json'],
            capture_output=True, text=True, env=self.env,
            stdin=subprocess.DEVNULL, timeout=timeout)
        self.assertNotIn('Traceback', proc.stderr)
        return proc.returncode, json.loads(proc.stdout), proc.stderr

    def env_file(self, **values):
        return self.write('%s/%s.yaml' % (self.plan, '-'.join(values)),
                          'parameter_defaults:\n' + ''.join(
                              '  %s: %s\n' % kv for kv in values.items()))


class TestFailedAndRefused(OutcomeTest):

    def test_failed_then_refused_then_quiet(self):
        code, row, err = self.run_cli(
            'overcloud', 'deploy', '--stack', self.plan, '--templates',
            self.templates, '-e', self.registry, '-e',
            self.env_file(Fail='true'))
        self.assertEqual(1, code, err)
        self.assertEqual(('FAILED', 'CREATE_FAILED', 'deploy'), (
            row['status'], row['stack_status'], row['action']))
        self.assertEqual(self.record()['history'][-1]['id'], row['id'])
        self.assertIn('recorded as FAILED', err)
        # why, in the row (one line, no stderr to parse): Heat's reason
        # and the failed resource
        self.assertIn('resources.one', row['reason'])
        self.assertIn('Test Resource failed', row['reason'])
        self.assertNotIn('\n', row['reason'])
        # and later, in the step's recorded outcome
        shown = self.run_cli('overcloud', 'plan', 'show-history',
                             self.plan)[1][-1]
        self.assertEqual(('FAILED', row['id']), (
            shown['outcome']['status'], shown['id']))
        self.assertIn('Test Resource failed', shown['outcome']['reason'])
        # update with no terminal and no -y: refused, the plan untouched
        before = self.snapshot(self.plan)
        code, row, err = self.run_cli('overcloud', 'update', '--stack',
                                      self.plan)
        self.assertEqual(3, code, err)
        self.assertIn('refusing without --yes', row.pop('reason'))
        self.assertEqual({'plan': self.plan, 'action': 'update',
                          'status': 'REFUSED'},
                         {k: v for k, v in row.items() if v is not None})
        self.assertIn('refusing without --yes', err)
        self.assertEqual(before, self.snapshot(self.plan))
        # -q: the row, and nothing on stderr when all went well
        code, row, err = self.run_cli(
            '-q', 'overcloud', 'plan', 'amend', self.plan, '--no-render',
            '-e', self.env_file(Message='quiet'))
        self.assertEqual((0, '', 'SUCCESS'), (code, err, row['status']))

    def test_amend_of_a_missing_plan_is_refused(self):
        code, row, err = self.run_cli('overcloud', 'plan', 'amend',
                                      self.plan, '-e', self.mine)
        self.assertEqual(3, code, err)
        self.assertEqual({'plan': self.plan, 'action': 'amend',
                          'status': 'REFUSED'},
                         {k: v for k, v in row.items() if v is not None})
        self.assertIsNone(self.swift.listing(self.plan))


class TestHeatStillAtWork(OutcomeTest):
    """One stack (CI's budget): its create outlives --timeout, then an
    update of it is interrupted."""

    def deploy_started(self, *args):
        """A deploy, once the client follows the stack: ``(process, its
        stderr up to then)``."""
        proc = subprocess.Popen(
            ['openstack', 'overcloud', 'deploy', '--stack', self.plan,
             '-f', 'json'] + list(args),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env,
            stdin=subprocess.DEVNULL, text=True,
            preexec_fn=base.default_sigint)
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if ' started (' in line:
                break
        return proc, ''.join(lines)

    def test_timeout_then_ctrl_c(self):
        # --timeout takes minutes as a decimal: 0.05 is 3 s, plus the
        # 10 s the client waits for Heat's own timeout event, counted from
        # its "started" line, which may come seconds after Heat began (the
        # deploy task's end, seen in Mistral): the stack needs 30 s, well
        # within Heat's own timeout (1 minute, the least it takes).
        proc, _ = self.deploy_started(
            '--templates', self.templates, '-e', self.registry,
            '-e', self.env_file(Wait=30), '--timeout', '0.05')
        out, err = proc.communicate(timeout=120)
        self.assertEqual(4, proc.returncode, err)
        row = json.loads(out)
        self.assertEqual(('TIMEOUT', 'CREATE_IN_PROGRESS'), (
            row['status'], row['stack_status']))
        self.assertEqual('Timed out after 13 s (--timeout of 0.05 minutes): '
                         'CREATE goes on in Heat', row['reason'])
        self.assertEqual('CREATE_IN_PROGRESS', self.stack()['stack_status'])
        self.assertEqual('CREATE_COMPLETE', self.wait_stack()['stack_status'])
        # Ctrl-C while the client follows an update (a new value: the
        # resource waits again)
        proc, began = self.deploy_started(
            '-e', self.env_file(Wait=8, Extra='again'))
        self.assertIn('UPDATE started', began)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        self.assertEqual(130, proc.returncode, err)
        row = json.loads(out)
        self.assertEqual(('INTERRUPTED', 'UPDATE', self.stack()['id']), (
            row['status'], row['operation'], row['stack_id']))
        self.assertIn('Interrupted: what Heat was asked goes on', err)
        self.assertIn('Interrupted: what Heat was asked goes on',
                      row['reason'])
        # The step stays open for Heat's end to settle it, as after a
        # killed client (UNKNOWN once the client was following).
        step = self.record()['history'][-1]
        self.assertEqual(row['id'], step['id'])
        self.assertIn(step['outcome']['status'], ('IN_PROGRESS', 'UNKNOWN'))
