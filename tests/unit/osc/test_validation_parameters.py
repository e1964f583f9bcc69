"""``overcloud validation run`` with extra vars, a limit, labels and a
skiplist; ``show <validation>``, ``show parameter``, ``group list`` and
``list``'s filters, as cliff runs them: the fake Mistral runs our
validation actions' bodies on stateful fake Swift containers,
ansible-playbook for real."""

import argparse
import io
import json
import os
import shutil
import tempfile

from osc_lib import exceptions
import yaml

from tests.unit import fakes
from tripleoplanclient.osc import validation
from tripleoplanclient.osc import validation_details
from tripleoplanclient.osc import validation_parameters
from tripleoplanclient.validations import results

GROUPS = (b'prep: [{description: The undercloud}]\n'
          b'post: [{description: After a deploy}]\n')
SECRET = 'hunter2-sekrit'


def playbook(task, groups='prep', labels='', extra=''):
    return ('- hosts: localhost\n  gather_facts: false\n  vars:\n'
            '    metadata: {name: N, description: d, groups: [%s]%s}\n%s'
            '  tasks:\n    - %s\n' % (groups, labels, extra, task)).encode()


class TestValidationParameterCommands(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.mistral = self.validation_services()
        self.installed.store('groups.yaml', GROUPS)
        self.installed.store('ram.yaml', playbook(
            'assert: {that: "min_ram | int >= 8"}',
            labels=', categories: [hardware], products: [tripleo]',
            extra='    min_ram: 4\n'))
        # shown, not run (the sandbox has no roles here)
        self.installed.store('disk.yaml', playbook(
            'debug: {}', groups='',
            extra='    min_disk: 4\n    db_password: "{{ db_password }}"\n'
                  '  roles: [units]\n'))
        self.installed.store('roles/units/defaults/main.yml',
                             b'ram_unit: MB\n')
        self.installed.store('login.yaml', playbook(
            'fail: {msg: "refused {{ db_password }}"}', groups='post'))
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def run_command(self, cls, *argv):
        app = fakes.make_app(fakes.ENDPOINTS)
        app.stdout = io.StringIO()
        cmd = cls(app, argparse.Namespace(verbose_level=1))
        parsed = cmd.get_parser('openstack').parse_args(
            list(argv) + ['-f', 'json'])
        code = cmd.run(parsed)
        return code, json.loads(app.stdout.getvalue() or 'null'), \
            app.stderr.getvalue()

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def test_extra_vars_from_a_file_and_the_command_line(self):
        code, row, _ = self.run_command(validation.RunValidations, 'ram')
        self.assertEqual((1, 'FAILED'), (code, row['status']))
        path = self.write('vars.yaml', 'min_ram: 2\n')
        code, row, _ = self.run_command(
            validation.RunValidations, 'ram', '--extra-vars-file', path)
        self.assertEqual((1, 'FAILED'), (code, row['status']))
        # the command line wins
        code, row, _ = self.run_command(
            validation.RunValidations, 'ram', '--extra-vars-file', path,
            '--extra-vars', 'min_ram=64')
        self.assertEqual((0, 'PASSED'), (code, row['status']))
        kept = results.load_run(fakes.plan_store(), row['run'])
        self.assertEqual({'min_ram': '64'}, kept['extra_vars'])

    def test_a_secret_is_masked_in_the_row_progress_and_results(self):
        code, row, err = self.run_command(
            validation.RunValidations, 'login', '--extra-vars',
            'db_password=' + SECRET)
        self.assertEqual((1, 'FAILED'), (code, row['status']))
        self.assertIn('refused ***', row['message'])
        self.assertIn('refused ***', err)
        code, shown, _ = self.run_command(validation.ShowValidationRun,
                                          row['run'])
        self.assertIn('login: localhost: fail: refused ***',
                      shown['failures'][0])
        code, rows, _ = self.run_command(validation.ListValidationResults)
        everything = json.dumps([row, shown, rows]) + err + ''.join(
            d.decode() for d, _ in self.kept.objects.values())
        self.assertNotIn(SECRET, everything)
        # the workflow's input (kept by Mistral) has it sealed; only an
        # unsaved action run saw it
        started = [r.json() for r in self.m.request_history
                   if r.method == 'POST' and r.url.endswith('/executions')]
        self.assertEqual(1, len(started))
        request = json.loads(started[0]['input'])['request']
        self.assertNotIn(SECRET, json.dumps(started))
        self.assertEqual((None, True), (request['extra_vars'],
                                        bool(request['sealed_vars'])))
        sealing = [r.json() for r in self.m.request_history
                   if r.method == 'POST' and
                   r.url.endswith('/action_executions') and
                   r.json()['name'] == 'tripleoplan.validation_seal']
        self.assertEqual([{'run_sync': True, 'save_result': False}],
                         [json.loads(r['params']) for r in sealing])

    def test_by_category_with_a_skiplist(self):
        path = self.write('skip.yaml', 'ram: {hosts: all, reason: known}\n')
        code, row, err = self.run_command(
            validation.RunValidations, '--category', 'hardware',
            '--skiplist', path)
        self.assertEqual((0, 'PASSED', ['ram: SKIPPED']),
                         (code, row['status'], row['validations']))
        self.assertIn('ram: SKIPPED (0.0 s): skipped (skiplist): known', err)

    def test_bad_input_is_refused_with_nothing_run(self):
        bad_file = self.write('bad.yaml', 'a: &x 1\nb: *x\n')
        for argv, message in (
                (['ram', '--extra-vars', 'tripleoplan_plan=x'],
                 'the run\'s own'),
                (['ram', '--extra-vars', 'novalue'], 'give NAME=VALUE'),
                (['ram', '--extra-vars-file', bad_file], bad_file),
                (['ram', '--extra-vars-file', self.tmp + '/none'],
                 'No such file'),
                (['ram', '--limit', '@hosts'], '--limit @hosts'),
                (['ram', '--skiplist', bad_file], bad_file),
                (['ram', '--category', 'hardware'], 'not both nor neither'),
                (['--product', 'nope'], 'No validation in product nope')):
            code, row, err = self.run_command(validation.RunValidations,
                                              *argv)
            self.assertEqual((3, 'REFUSED'), (code, row['status']), err)
            self.assertIn(message, err)
        self.assertEqual({}, self.kept.objects)

    def test_show_a_validation_and_its_parameters(self):
        code, shown, _ = self.run_command(validation.ShowValidationRun,
                                          'ram')
        self.assertEqual(
            (0, 'ram', ['prep'], ['hardware'], ['tripleo'], 'installed',
             {'min_ram': 4}),
            (code, shown['id'], shown['groups'], shown['categories'],
             shown['products'], shown['source'], shown['parameters']))
        code, shown, _ = self.run_command(validation.ShowValidationRun,
                                          'disk')
        self.assertEqual({'min_disk': 4, 'db_password': '***',
                          'ram_unit': 'MB'}, shown['parameters'])
        self.assertEqual('READY', shown['status'])
        code, shown, err = self.run_command(validation.ShowValidationRun,
                                            'nope')
        # a validation's row: its id, the status and why
        self.assertEqual((3, 'nope', 'REFUSED'), (
            code, shown['id'], shown['status']))
        self.assertEqual(list(validation_parameters.SHOW_COLUMNS),
                         list(shown))
        self.assertIn('No validation nope', shown['problem'])
        self.assertIn('No validation nope', err)

    def test_show_parameter_downloads_a_vars_file_for_a_run(self):
        path = os.path.join(self.tmp, 'params.yaml')
        code, rows, err = self.run_command(
            validation_details.ShowValidationParameters, 'ram', 'disk',
            '--download', path)
        self.assertEqual(0, code)
        self.assertEqual([['ram', 'min_ram', 4],
                          ['disk', 'db_password', '***'],
                          ['disk', 'min_disk', 4],
                          ['disk', 'ram_unit', 'MB']],
                         [[r['validation'], r['parameter'], r['default']]
                          for r in rows])
        self.assertIn('Wrote 4 parameter(s) of ram, disk to %s' % path, err)
        with open(path) as f:
            written = yaml.safe_load(f)
        self.assertEqual({'min_ram': 4, 'ram_unit': 'MB', 'min_disk': 4,
                          'db_password': '{{ db_password }}'}, written)
        self.assertEqual(0o600, os.stat(path).st_mode & 0o777)
        # refused over an existing file, which stays
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'params.yaml exists'):
            self.run_command(validation_details.ShowValidationParameters,
                             'ram', '--download', path)
        with open(path) as f:
            self.assertEqual(written, yaml.safe_load(f))
        # the file as a run's vars: its min_ram fails, the command line's
        # passes
        for argv, status in (([], 'FAILED'),
                             (['--extra-vars', 'min_ram=9'], 'PASSED')):
            code, row, _ = self.run_command(
                validation.RunValidations, 'ram', '--extra-vars-file', path,
                '--extra-vars', 'db_password=x', *argv)
            self.assertEqual(status, row['status'])

    def test_group_list_and_list_filters(self):
        code, rows, _ = self.run_command(
            validation_details.ListValidationGroups)
        self.assertEqual([('post', 'After a deploy', 1),
                          ('prep', 'The undercloud', 1)],
                         [(r['group'], r['description'], r['validations'])
                          for r in rows])
        for argv, ids in ((['--category', 'hardware'], ['ram']),
                          (['--product', 'tripleo', '--group', 'post'],
                           ['login', 'ram']),
                          (['--category', 'none'], [])):
            code, rows, _ = self.run_command(validation.ListValidations,
                                             *argv)
            self.assertEqual(ids, [r['id'] for r in rows])
        code, rows, _ = self.run_command(validation.ListValidations)
        ram = [r for r in rows if r['id'] == 'ram'][0]
        self.assertEqual((['hardware'], ['tripleo']),
                         (ram['categories'], ram['products']))
