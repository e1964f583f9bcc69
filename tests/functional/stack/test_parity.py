"""deploy, update and upgrade through the deploy workflow, as a GUI drives
it (``openstack workflow execution create``), next to the real CLI: the
same recorded steps; a client killed before it saw the deploy task's
answer, and two deploys of one plan at once (small templates)."""

import hashlib
import subprocess
import time
import uuid

from tests.functional import base
from tests.functional import deploy_base

# What differs between two plans given the same steps by different
# clients: ids, times, the command line, the stack (and Mistral
# execution) each got, and who saw the end.
_SAME = ('action', 'environments', 'templates', 'lifecycle', 'objects')
_SAME_OUTCOME = ('status', 'stack_status')
_SAME_STACK = ('operation', 'environments')
_SAME_STATE = ('environments', 'files', 'inputs', 'render', 'created',
               'templates', 'release')


class TestStackParity(deploy_base.DeployTest):

    def setUp(self):
        super().setUp()
        self.gui = 'depgui-%s' % uuid.uuid4().hex[:8]
        self.addCleanup(self.delete_gui)
        for plan in (self.plan, self.gui):
            self.openstack('overcloud', 'plan', 'create', plan,
                           '--templates', self.templates)

    def delete_gui(self):
        plan, self.plan = self.plan, self.gui
        try:
            self.delete_all()
        finally:
            self.plan = plan

    def gui_step(self, fields, ok=True):
        """One step as a GUI takes it: the deploy workflow with
        ``fields``, waited for to its end (the stack's too); the newest
        history row."""
        from tripleoplanclient import protocol
        _, shown = self.gui_workflow('deploy', protocol.request(
            'deploy', container=self.gui, **fields), timeout=300)
        self.assertEqual('SUCCESS' if ok else 'ERROR', shown['State'],
                         shown.get('State info'))
        return self.plan_record(self.gui)['history'][-1]

    def upload(self, path):
        """What a GUI writes first: the user file, PUT as it is."""
        with open(path, 'rb') as f:
            data = f.read()
        name = 'user-files' + path
        status, _, _ = self.swift.request('PUT', '%s/%s' % (self.gui, name),
                                          data)
        self.assertEqual(201, status)
        md5 = hashlib.md5(data).hexdigest()
        return name, {'tree': {name: md5}, 'files': {name: {
            'source': path, 'md5': md5}}}

    def assert_same(self, cli, gui):
        """The steps and the plans after them are the same but for what
        legitimately differs (``_SAME*``)."""
        for key in _SAME:
            self.assertEqual(cli.get(key), gui.get(key), key)
        for key in _SAME_OUTCOME:
            self.assertEqual(cli['outcome'].get(key),
                             gui['outcome'].get(key), key)
        for key in _SAME_STACK:
            self.assertEqual(cli['stack'].get(key), gui['stack'].get(key),
                             key)
        self.assertEqual(cli['user'], gui['user'])
        self.assertEqual('mistral action tripleoplan.deploy',
                         gui['command'])
        ours, theirs = self.plan_record(self.plan), self.plan_record(
            self.gui)
        for key in _SAME_STATE:
            self.assertEqual(base.unmarked(ours.get(key), key),
                             theirs.get(key), key)

    def test_deploy_update_upgrade_like_the_cli(self):
        # deploy: an environment of the templates and a user file
        self.deploy('-e', self.registry, '-e', self.mine)
        cli = self.record()['history'][-1]
        name, fields = self.upload(self.mine)
        gui = self.gui_step(dict(fields, add=['registry.yaml', name]))
        self.assertEqual(('deploy', 'SUCCESS', 'CREATE_COMPLETE',
                          'mistral'), (
            gui['action'], gui['outcome']['status'],
            gui['outcome']['stack_status'], gui['outcome']['recorded_by']))
        self.assert_same(cli, gui)
        # nothing changed: Heat is not asked, for either
        self.deploy()
        gui = self.gui_step({})
        self.assertEqual(('NONE', 'SUCCESS'), (gui['stack']['operation'],
                                               gui['outcome']['status']))
        self.assert_same(self.record()['history'][-1], gui)
        # update, prepare stage: its lifecycle file for this step only
        self.openstack_json('overcloud', 'update', '--stack', self.plan,
                            '-y')
        gui = self.gui_step({'action': 'update', 'stage': 'prepare'})
        self.assertEqual('environments/lifecycle/update-prepare.yaml',
                         gui['lifecycle'])
        self.assert_same(self.record()['history'][-1], gui)
        # upgrade, converge stage, removing the user file
        self.openstack_json('overcloud', 'upgrade', '--stack', self.plan,
                            '-y', '--stage', 'converge',
                            '--remove-environment', self.mine)
        gui = self.gui_step({'action': 'upgrade', 'stage': 'converge',
                             'remove': [name]})
        self.assertEqual(['registry.yaml'], gui['environments'])
        self.assert_same(self.record()['history'][-1], gui)
        self.assertEqual(
            ['create', 'deploy', 'deploy', 'update', 'upgrade'],
            [r['action'] for r in self.plan_record(self.gui)['history']])

    def test_a_bad_or_busy_request_records_nothing(self):
        before = self.snapshot(self.gui)
        for fields, message in (
                ({'environments': ['registry.yaml']},
                 'environments is worked out by the action'),
                ({'action': 'update'}, 'Stack %s does not exist'
                 % self.gui),
                ({'remove': ['nope.yaml']}, 'nope.yaml not in its')):
            from tripleoplanclient import protocol
            _, shown = self.gui_workflow('deploy', protocol.request(
                'deploy', container=self.gui, **fields))
            self.assertEqual('ERROR', shown['State'])
            self.assertIn(message, shown['State info'])
        self.assertEqual(before, self.snapshot(self.gui))


class TestKilledBeforeTheAnswer(deploy_base.DeployTest):

    def test_the_workflow_records_the_step_and_its_end(self):
        self.first_deploy()
        extra = self.write('%s/extra.yaml' % self.plan,
                           'parameter_defaults:\n  Extra: late\n')
        # The files are written and Mistral has the request: the client
        # dies before the deploy task answered (no step id known to it).
        self.killed_once_started('overcloud', 'deploy', '--stack', self.plan,
                                 '-e', extra)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            # One read per round: the step seen and the count must be of
            # the same history.
            history = self.record()['history']
            step = history[-1]
            if len(history) == 3 and step['action'] == 'deploy' and \
                    step['outcome']['status'] != 'IN_PROGRESS':
                break
            time.sleep(1)
        self.assertEqual(('deploy', 'SUCCESS', 'UPDATE_COMPLETE', 'mistral'),
                         (step['action'], step['outcome']['status'],
                          step['outcome']['stack_status'],
                          step['outcome'].get('recorded_by')))
        self.assertIn('user-files' + extra, step['environments'])
        self.assertEqual('late', self.outputs()['value'].split('/')[1])


class TestTwoDeploysAtOnce(deploy_base.DeployTest):

    def test_one_runs_the_other_is_refused_or_failed_on_record(self):
        """What the design guarantees: Heat runs one operation at a time;
        a deploy that finds the stack busy is refused before it records
        anything (the client's check, then the action's), or, when both
        passed the checks at once, its step is on record FAILED with
        Heat's refusal. No step stays open, and the plan's list holds
        what each recorded step asked for."""
        self.first_deploy()
        paths = [self.write('%s/at-once-%d.yaml' % (self.plan, i),
                            'parameter_defaults:\n  Wait: 20\n'
                            '  Extra: once%d\n' % i) for i in range(2)]
        procs = [subprocess.Popen(
            ['openstack', 'overcloud', 'deploy', '--stack', self.plan, '-e',
             path, '-f', 'json'], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, env=self.env,
            stdin=subprocess.DEVNULL) for path in paths]
        ended = [p.communicate(timeout=600) + (p.returncode,) for p in procs]
        self.assertEqual([0, 1], sorted(min(rc, 1) for _, _, rc in ended),
                         [err for _, err, _ in ended])
        loser = [err for _, err, rc in ended if rc][0]
        self.assertRegex(loser, r'IN_PROGRESS|in progress|Heat refused')
        self.wait_stack()
        history = self.record()['history'][2:]
        self.assertIn(len(history), (1, 2))
        self.assertEqual(1, sum(r['outcome']['status'] == 'SUCCESS'
                                for r in history))
        self.assertTrue(all(r['outcome']['status'] in ('SUCCESS', 'FAILED')
                            for r in history), history)
        state = self.record()
        for row in history:
            self.assertLessEqual(set(row['environments']), set(
                state['environments']) | {
                'user-files' + p for p in paths})
        recorded = {e for r in history for e in r['environments']
                    if e.startswith('user-files') and 'at-once' in e}
        self.assertEqual(recorded, {e for e in state['environments']
                                    if 'at-once' in e})
