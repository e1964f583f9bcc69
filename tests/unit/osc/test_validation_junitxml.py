"""``overcloud validation run --junitxml`` and ``validation show RUN
--junitxml`` as cliff runs them: the fake Mistral runs our validation
actions' bodies on stateful fake Swift containers, ansible-playbook for
real."""

import argparse
import io
import json
import os
from xml.etree import ElementTree

from tests.unit import fakes
from tripleoplanclient.osc import validation

GROUPS = b'prep: [{description: The undercloud}]\n'


def playbook(task):
    return ('- hosts: localhost\n  gather_facts: false\n  vars:\n'
            '    metadata: {name: N, description: d, groups: [prep]}\n'
            '  tasks:\n    - %s\n' % task).encode()


class TestJunitxml(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.mistral = self.validation_services()
        self.installed.store('groups.yaml', GROUPS)
        self.installed.store('ok.yaml', playbook('ping:'))
        self.installed.store('bad.yaml', playbook(
            'name: Disk space\n      fail: {msg: "only 1 GB ]]> free"}'))
        self.dir = self.temp_dir()
        self.file = os.path.join(self.dir, 'junit.xml')

    def run_command(self, cls, *argv):
        app = fakes.make_app(fakes.ENDPOINTS)
        app.stdout = io.StringIO()
        cmd = cls(app, argparse.Namespace(verbose_level=1))
        parsed = cmd.get_parser('openstack').parse_args(
            list(argv) + ['-f', 'json'])
        code = cmd.run(parsed)
        return code, app.stdout.getvalue(), app.stderr.getvalue()

    def test_a_failed_run_writes_its_junitxml_and_show_the_same(self):
        code, out, err = self.run_command(
            validation.RunValidations, 'ok', 'bad', '--junitxml', self.file)
        row = json.loads(out)
        self.assertEqual((1, 'FAILED'), (code, row['status']), err)
        self.assertIn('JUnit XML of validation run %s written to %s.'
                      % (row['run'], self.file), err)
        self.assertNotIn(self.file, out)
        with open(self.file, 'rb') as f:
            written = f.read()
        suite = ElementTree.fromstring(written).find('testsuite')
        self.assertEqual((row['run'], '2', '1', '0', '0'), (
            suite.get('name'), suite.get('tests'), suite.get('failures'),
            suite.get('errors'), suite.get('skipped')))
        self.assertEqual([('ok', 'localhost', None),
                          ('bad', 'localhost', 'failure')],
                         [(c.get('classname'), c.get('name'),
                           c[0].tag if len(c) else None)
                          for c in suite.iter('testcase')])
        failure = suite.find('testcase/failure')
        self.assertEqual(('Disk space', 'only 1 GB ]]> free'),
                         (failure.get('type'), failure.get('message')))
        # nothing but the file beside it: written, then renamed
        self.assertEqual(['junit.xml'], os.listdir(self.dir))

        again = os.path.join(self.dir, 'again.xml')
        code, out, err = self.run_command(
            validation.ShowValidationRun, row['run'], '--junitxml', again)
        self.assertEqual(0, code, err)
        self.assertEqual(row['run'], json.loads(out)['run'])
        with open(again, 'rb') as f:
            self.assertEqual(written, f.read())

    def test_a_passed_run_replaces_the_file(self):
        with open(self.file, 'w') as f:
            f.write('old')
        code, out, err = self.run_command(
            validation.RunValidations, 'ok', '--junitxml', self.file)
        self.assertEqual((0, 'PASSED'), (code, json.loads(out)['status']))
        with open(self.file, 'rb') as f:
            suite = ElementTree.fromstring(f.read()).find('testsuite')
        self.assertEqual(('1', '0'), (suite.get('tests'),
                                      suite.get('failures')))

    def test_refused_before_a_run_starts(self):
        for argv, message in (
                (['--no-wait', '--junitxml', self.file],
                 '--junitxml needs the run\'s end: drop --no-wait'),
                (['--junitxml', os.path.join(self.dir, 'no', 'j.xml')],
                 'give a file in a directory you may write to'),
                (['--junitxml', self.dir],
                 'give a file in a directory you may write to'),
                (['--junitxml', '-'], 'stdout is the run\'s row')):
            code, out, err = self.run_command(validation.RunValidations,
                                              'ok', *argv)
            self.assertEqual((3, 'REFUSED'),
                             (code, json.loads(out)['status']), err)
            self.assertIn(message, err)
        self.assertEqual({}, self.kept.objects)
        self.assertEqual([], os.listdir(self.dir))

    def test_show_of_an_unknown_run_writes_nothing(self):
        run = 'f0e1d2c3-0000-4000-8000-000000000009'
        code, out, err = self.run_command(validation.ShowValidationRun,
                                          run, '--junitxml', self.file)
        row = json.loads(out)
        # the run's row: its id, the status and why
        self.assertEqual((3, run, 'REFUSED'), (
            code, row['run'], row['status']))
        self.assertEqual(list(validation.SHOW_RUN_COLUMNS), list(row))
        self.assertIn('No validation run', row['message'])
        self.assertIn('No validation run', err)
        self.assertEqual([], os.listdir(self.dir))
