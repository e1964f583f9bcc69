"""``overcloud validation ...`` and ``deploy --run-validations`` as cliff
runs them: the fake Mistral runs our validation actions' bodies on
stateful fake Swift containers, ansible-playbook for real."""

import argparse
import io
import json

from osc_lib import exceptions

from tests.unit import fakes
from tripleoplanclient.osc import validation
from tripleoplanclient.validations import results
from tripleoplanclient.workflows import executions
from tripleoplanclient.workflows import validations as client

GROUPS = (b'prep: [{description: The undercloud}]\n'
          b'pre-deployment: [{description: Before a deploy}]\n')


def playbook(task, groups='prep', requires=''):
    return ('- hosts: localhost\n  gather_facts: false\n  vars:\n'
            '    metadata: {name: N, description: d, groups: [%s]%s}\n'
            '  tasks:\n    - %s\n' % (groups, requires, task)).encode()


class TestValidationCommands(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.mistral = self.validation_services()
        self.installed.store('groups.yaml', GROUPS)
        self.installed.store('ok.yaml', playbook(
            'assert: {that: "tripleoplan_endpoints | length == 1"}',
            groups='prep, pre-deployment'))
        self.installed.store('needs-plan.yaml', playbook(
            'assert: {that: "tripleoplan_plan_problems == []"}',
            groups='pre-deployment', requires=', requires: [plan_problems]'))
        self.swift.store('custom-validations/mine.yaml', playbook(
            'name: Mine\n      fail: {msg: not today}',
            groups='pre-deployment'))

    def run_command(self, cls, *argv):
        app = fakes.make_app(fakes.ENDPOINTS)
        app.stdout = io.StringIO()
        cmd = cls(app, argparse.Namespace(verbose_level=1))
        parsed = cmd.get_parser('openstack').parse_args(
            list(argv) + ['-f', 'json'])
        code = cmd.run(parsed)
        return code, json.loads(app.stdout.getvalue() or 'null'), \
            app.stderr.getvalue()

    def test_list_with_the_plans_own(self):
        code, rows, err = self.run_command(validation.ListValidations,
                                           '--plan', 'p')
        self.assertEqual(0, code)
        self.assertEqual({'mine': 'plan', 'needs-plan': 'installed',
                          'ok': 'installed'},
                         {r['id']: r['source'] for r in rows})
        self.assertEqual({'READY'}, {r['status'] for r in rows})
        code, rows, _ = self.run_command(validation.ListValidations,
                                         '--group', 'prep')
        self.assertEqual(['ok'], [r['id'] for r in rows])

    def test_a_list_that_fails_prints_one_row_with_why(self):
        self.m.post(fakes.MISTRAL + '/action_executions', status_code=500,
                    text='the engine is down')
        code, rows, err = self.run_command(validation.ListValidations)
        self.assertEqual(3, code, err)
        self.assertEqual(1, len(rows), rows)
        self.assertEqual(list(validation.LIST_COLUMNS), list(rows[0]))
        self.assertEqual('REFUSED', rows[0]['status'])
        self.assertIn('refused the validation_list', rows[0]['problem'])

    def test_a_passing_and_a_failing_run(self):
        code, row, _ = self.run_command(validation.RunValidations, 'ok')
        self.assertEqual((0, 'PASSED', ['ok: PASSED']),
                         (code, row['status'], row['validations']))
        code, row, err = self.run_command(validation.RunValidations, 'mine',
                                          '--plan', 'p')
        self.assertEqual((1, 'FAILED'), (code, row['status']))
        self.assertEqual('mine: localhost: Mine: not today', row['message'])
        self.assertIn('mine: FAILED', err)
        code, rows, _ = self.run_command(validation.ListValidationResults,
                                         '--plan', 'p')
        self.assertEqual([('mine', 'FAILED', ['localhost'])],
                         [(r['validation'], r['status'], r['failed_hosts'])
                          for r in rows])
        code, shown, _ = self.run_command(validation.ShowValidationRun,
                                          row['run'])
        self.assertEqual(['mine: localhost: Mine: not today'],
                         shown['failures'])
        # shown as it ran: the show itself succeeded
        self.assertEqual((0, 'FAILED'), (code, shown['status']))
        # the run last written only, and a word on stderr of the others
        code, rows, err = self.run_command(validation.ListValidationResults,
                                           '--limit', '1')
        self.assertEqual(['mine'], [r['validation'] for r in rows])
        self.assertIn('Only the 1 run(s) last written; older ones: --limit or '
                      '--all.', err)
        code, rows, err = self.run_command(validation.ListValidationResults,
                                           '--all')
        self.assertEqual(['mine', 'ok'], sorted(r['validation']
                                                for r in rows))
        self.assertNotIn('last written', err)

    def test_unknown_input_is_refused_with_nothing_run(self):
        for argv, message in (
                (['nope'], 'No validation nope'),
                (['--group', 'nogroup'], 'No validation group nogroup'),
                (['ok', '--group', 'prep'], 'not both nor neither'),
                ([], 'not both nor neither')):
            code, row, err = self.run_command(validation.RunValidations,
                                              *argv)
            self.assertEqual((3, 'REFUSED'), (code, row['status']), err)
            self.assertIn(message, err)
            self.assertIn(message, row['message'])
        self.assertEqual({}, self.kept.objects)

    def test_a_reader_is_refused_before_a_run_starts(self):
        self.m.put('%s/%s' % (fakes.SWIFT, results.CONTAINER),
                   status_code=403, text='Forbidden')
        code, row, err = self.run_command(validation.RunValidations, 'ok')
        self.assertEqual((3, 'REFUSED'), (code, row['status']), err)
        self.assertIn('(a reader only reads)', err)
        self.assertIn('Nothing was run', err)
        self.assertEqual({}, self.kept.objects)

    def test_stopping_an_ended_run_is_refused(self):
        code, row, _ = self.run_command(validation.RunValidations, 'ok')
        code, stopped, err = self.run_command(validation.StopValidations,
                                              row['run'])
        self.assertEqual((3, 'REFUSED'), (code, stopped['status']))
        self.assertIn('already ended (PASSED)', err)

    def before_deploy(self, plan):
        lines = []
        workflows = executions.Workflows(fakes.mistral_client(),
                                         fakes.MISTRAL, lines.append)
        found = client.before(workflows, 'deploying', 'pre-deployment', plan,
                              fakes.SWIFT, fakes.HEAT, lines.append)
        return lines, found

    def test_deploy_refuses_on_a_failed_pre_deployment_validation(self):
        with self.assertRaisesRegex(
                exceptions.CommandError,
                r'Not deploying: 1 pre-deployment validation\(s\) did not '
                r'pass \(run e\d+\): mine FAILED: localhost: Mine: not '
                r'today\. Nothing was changed'):
            self.before_deploy('p')

    def test_a_first_deploy_runs_those_needing_no_plan(self):
        self.m.get(fakes.SWIFT + '/q', status_code=404)
        lines, found = self.before_deploy('q')
        self.assertIn('Running the pre-deployment validations: ok', lines)
        self.assertTrue(lines[-1].startswith(
            'The pre-deployment validations passed'), lines)
        # what the step records of it
        self.assertEqual({'hook': 'pre', 'group': 'pre-deployment',
                          'run': found['run'], 'status': 'PASSED'}, found)
