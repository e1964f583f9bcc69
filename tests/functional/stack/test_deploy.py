"""deploy / update / upgrade against the loopback Heat, small templates.

The templates are tiny (two TestResources: tests/functional/deploy_base)
so that each stack operation takes seconds; the tripleo-heat-templates
story is in test_deploy_tht.
"""

import json
import time

import yaml

from tests.functional import deploy_base


class TestDeployStory(deploy_base.DeployTest):

    def test_deploy_redeploy_update_upgrade(self):
        dry = self.openstack_json(
            'overcloud', 'deploy', 'preview', '--stack', self.plan,
            '--templates', self.templates, '-e', self.registry, '-e',
            self.mine)
        self.assertEqual(('CREATE', True), (dry['operation'],
                                            dry['plan_created']))
        self.assertIsNone(self.swift.listing(self.plan))
        self.assertIsNone(self.stack())

        created = self.first_deploy()
        self.assertEqual(('CREATE', 'CREATE_COMPLETE', 'SUCCESS'), (
            created['operation'], created['stack_status'],
            created['status']))
        self.assertEqual(['registry.yaml', 'user-files%s' % self.mine],
                         created['environments'])
        stack = self.stack()
        self.assertEqual(created['stack_id'], stack['id'])
        # Generated password reached Heat; the plan environment keeps it.
        self.assertEqual({'value': 'mine/', 'password_length': 25},
                         self.outputs())
        plan_env = yaml.safe_load(self.swift.get(self.plan,
                                                 'plan-environment.yaml'))
        password = plan_env['passwords']['AdminPassword']
        self.assertEqual(25, len(password))

        # Nothing changed: Heat is not called, the stack is untouched.
        again = self.first_deploy()
        self.assertEqual(('NONE', 'SUCCESS', False), (
            again['operation'], again['status'], again['rendered']))
        self.assertEqual(stack['updated_time'], self.stack()['updated_time'])
        # On record with its final outcome, the card current: what a GUI
        # or script downloads says so right away.
        from tripleoplanclient.record import index
        from tripleoplanclient.record import log
        step = self.record()['history'][-1]
        self.assertEqual(('deploy', 'SUCCESS', 'NONE'), (
            step['action'], step['outcome']['status'],
            step['stack']['operation']))
        outcome = yaml.safe_load(self.swift.get(
            self.plan, log.outcome_path(step['id'])))
        self.assertEqual('SUCCESS', outcome['outcome']['status'])
        last = index.head(self.swift.get(self.plan, log.PATH),
                          self.plan).rows[-1]
        self.assertEqual((step['id'], 'SUCCESS', 'NONE'), (
            last['id'], last['outcome']['status'],
            last['stack']['operation']))

        # update with no -e: the lifecycle file, then the recorded list.
        before = self.record()['environments']
        updated = self.openstack_json('overcloud', 'update', '--stack',
                                      self.plan, '-y')
        self.assertEqual(('UPDATE', 'UPDATE_COMPLETE'), (
            updated['operation'], updated['stack_status']))
        self.assertEqual(['environments/lifecycle/update-prepare.yaml'] +
                         before, updated['environments'])
        self.assertEqual('mine/update-prepare', self.outputs()['value'])
        # The lifecycle file belongs to that step only.
        self.assertEqual(before, self.record()['environments'])

        upgraded = self.openstack_json('overcloud', 'upgrade', '--stack',
                                       self.plan, '-y', '--stage',
                                       'converge')
        self.assertEqual(before, upgraded['environments'])
        self.assertEqual('mine/', self.outputs()['value'])

        # Passwords survive every step and never reach stdout or stderr.
        plan_env = yaml.safe_load(self.swift.get(self.plan,
                                                 'plan-environment.yaml'))
        self.assertEqual(password, plan_env['passwords']['AdminPassword'])
        out, err = self.openstack('overcloud', 'plan', 'show-history',
                                  self.plan, '-f', 'json')
        self.assertNotIn(password, out + err)
        # Heat holds it only as a hidden parameter of the stack's merged
        # environment (shown masked), in no file of the stack: the files
        # are the templates, no environment file (issue 26).
        where = 'stacks/%s/%s/' % (self.plan, stack['id'])
        _, files = self.heat('GET', where + 'files')
        self.assertTrue(files)
        self.assertTrue(all(url.endswith('/thing.yaml') for url in files),
                        sorted(files))
        self.assertNotIn('Message', json.dumps(files))
        self.assertNotIn(password, json.dumps(files))
        _, environment = self.heat('GET', where + 'environment')
        self.assertEqual('******', environment['parameter_defaults'][
            'AdminPassword'])
        self.assertEqual('mine', environment['parameter_defaults'][
            'Message'])
        self.assertNotIn(password, json.dumps(environment))
        history = json.loads(out)
        self.assertEqual(['create', 'deploy', 'deploy', 'update', 'upgrade'],
                         [s['action'] for s in history])
        outcomes = [s['outcome'] for s in history[1:]]
        self.assertEqual(['CREATE_COMPLETE', 'CREATE_COMPLETE',
                          'UPDATE_COMPLETE', 'UPDATE_COMPLETE'],
                         [o['stack_status'] for o in outcomes])
        self.assertEqual({stack['id']}, {o['stack_id'] for o in outcomes})

    def test_update_adds_and_removes_environments(self):
        self.first_deploy()
        extra = self.write('%s/extra.yaml' % self.plan,
                           'parameter_defaults:\n  Extra: extra\n')
        result = self.openstack_json(
            'overcloud', 'update', '--stack', self.plan, '-y',
            '--stage', 'converge', '-e', extra,
            '--remove-environment', self.mine)
        self.assertEqual(['registry.yaml', 'user-files%s' % extra],
                         result['environments'])
        self.assertEqual('hello/extra', self.outputs()['value'])
        self.assertEqual(result['environments'],
                         self.record()['environments'])

    def test_update_asks_and_shows_the_difference(self):
        self.first_deploy()
        before = self.snapshot(self.plan)
        err = self.fail_with('pass -y', 'overcloud', 'update', '--stack',
                             self.plan)
        self.assertIn('+ environments/lifecycle/update-prepare.yaml '
                      '(this step only, before the list)', err)
        self.assertEqual(before, self.snapshot(self.plan))


class TestDeployFaults(deploy_base.DeployTest):

    def test_update_or_upgrade_of_an_unknown_stack(self):
        for action in ('update', 'upgrade'):
            self.fail_with(r'Stack %s does not exist: run "openstack '
                           r'overcloud deploy --stack %s" first'
                           % (self.plan, self.plan), 'overcloud', action,
                           '--stack', self.plan, '-y')
        self.assertIsNone(self.swift.listing(self.plan))

    def test_template_error_is_recorded_and_a_rerun_converges(self):
        self.first_deploy()
        before = self.record()
        bad = self.write('%s/bad.yaml' % self.plan,
                         'resource_registry:\n'
                         '  OS::Small::Thing: OS::No::Such::Type\n')
        reason = (r'Heat refused the stack update: The Resource Type '
                  r'\(OS::Small::Thing\) could not be found')
        self.fail_with(reason, 'overcloud', 'deploy', '--stack', self.plan,
                       '-e', bad)
        after = self.record()
        step = after['history'][-1]
        self.assertEqual('FAILED', step['outcome']['status'])
        self.assertRegex(step['outcome']['reason'], '^' + reason)
        # The plan is what was asked for; the outcome says Heat refused it.
        self.assertEqual(before['environments'] + ['user-files' + bad],
                         after['environments'])
        self.assertEqual('CREATE_COMPLETE', self.stack()['stack_status'])
        rerun = self.deploy('--remove-environment', bad)
        self.assertEqual(('SUCCESS', before['environments']), (
            rerun['status'], rerun['environments']))

    def test_failed_stack_names_the_resource_and_a_rerun_converges(self):
        self.first_deploy()
        fail = self.write('%s/fail.yaml' % self.plan,
                          'parameter_defaults:\n  Fail: true\n')
        err = self.fail_with(r'failed: %s:one: .*Test Resource failed'
                             % self.plan, 'overcloud', 'deploy', '--stack',
                             self.plan, '-e', fail)
        self.assertIn('UPDATE_FAILED', err)
        step = self.record()['history'][-1]
        self.assertEqual(('FAILED', 'UPDATE_FAILED'), (
            step['outcome']['status'], step['outcome']['stack_status']))
        # Fixed by taking the file out of the plan again.
        rerun = self.deploy('--remove-environment', fail)
        self.assertEqual(('UPDATE', 'UPDATE_COMPLETE'), (
            rerun['operation'], rerun['stack_status']))
        self.assertNotIn('user-files%s' % fail, rerun['environments'])

    def test_timeout_busy_stack_and_rerun(self):
        self.first_deploy()
        # TestResource waits only when its value changes (and again when
        # the stack is deleted). The client gives up 3 s (+10 s of grace)
        # after Mistral's deploy task answered (Heat took the update by
        # then): everything from then on up to the refused update
        # below must happen while Heat still works. On a loaded machine
        # the command's start, Mistral and the next commands add seconds:
        # with 30 s the margin was ~10 s, hence 45.
        seconds = 45
        wait = self.write('%s/wait.yaml' % self.plan,
                          'parameter_defaults:\n  Wait: %d\n'
                          '  Extra: slow\n' % seconds)
        started = time.monotonic()
        self.fail_with('TIMEOUT', 'overcloud', 'deploy', '--stack',
                       self.plan, '-e', wait, '--timeout', '0.05')
        # Back before Heat could have ended (a client that waited for the
        # stack would take longer than its Wait).
        self.assertLess(time.monotonic() - started, seconds - 3)
        self.assertEqual('TIMEOUT',
                         self.record()['history'][-1]['outcome']['status'])
        # Still running in Heat: nothing may start on top of it.
        self.assertEqual('UPDATE_IN_PROGRESS', self.stack()['stack_status'])
        before = self.snapshot(self.plan)
        self.fail_with(r'Stack operation in progress \(step \d+, deploy, '
                       r'started by', 'overcloud', 'update', '--stack',
                       self.plan, '-y')
        self.assertEqual(before, self.snapshot(self.plan))
        self.assertEqual('UPDATE_COMPLETE', self.wait_stack()['stack_status'])
        rerun = self.deploy('-e', wait)
        self.assertEqual(('SUCCESS', 'UPDATE_COMPLETE'), (
            rerun['status'], rerun['stack_status']))
        self.assertIn('user-files%s' % wait, rerun['environments'])

    def test_no_wait_returns_in_progress(self):
        self.first_deploy()
        extra = self.write('%s/extra.yaml' % self.plan,
                           'parameter_defaults:\n  Extra: later\n')
        result = self.deploy('-e', extra, '--no-wait')
        self.assertEqual(('IN_PROGRESS', 'UPDATE_IN_PROGRESS'), (
            result['status'], result['stack_status']))
        self.assertEqual('UPDATE_COMPLETE', self.wait_stack()['stack_status'])

    def test_heat_unreachable(self):
        self.first_deploy()
        before = self.snapshot(self.plan)
        config = yaml.safe_load(open(self.env['OS_CLIENT_CONFIG_FILE']))
        cloud = config['clouds'][self.env['OS_CLOUD']]
        cloud['orchestration_endpoint_override'] = 'http://127.0.0.1:9/v1/x'
        path = self.write('%s/clouds.yaml' % self.plan, yaml.safe_dump(config))
        env = dict(self.env, OS_CLIENT_CONFIG_FILE=path)
        for action in ('deploy', 'update'):
            out, err = self.openstack('overcloud', action, '--stack',
                                      self.plan, '-y', fail=True, env=env)
            self.assertIn('Cannot reach Heat at http://127.0.0.1:9/v1/x',
                          err)
            self.assert_not_done(out, 'REFUSED')
        self.assertEqual(before, self.snapshot(self.plan))
