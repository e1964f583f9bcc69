"""A validation run's JUnit XML through the real CLI, run by
ansible-playbook in the loopback Mistral's executor: ``validation run
--junitxml`` with a passing and a failing validation writes one testcase
each (the failed task's message in its ``failure``), and ``validation
show RUN --junitxml`` writes the same bytes later."""

import json
import os
import subprocess
from xml.etree import ElementTree

from tests.functional import base


def playbook(name, task):
    return ('- hosts: localhost\n  gather_facts: false\n  vars:\n'
            '    metadata:\n      name: %s\n      description: A test\'s '
            'own.\n      groups: [prep]\n  tasks:\n    - %s\n' % (name, task))


class TestJunit(base.PlanTest):

    PREFIX = 'junit'
    TEMPLATES = {
        'overcloud.yaml': 'heat_template_version: rocky\n',
        'custom-validations/junit-passes.yaml': playbook(
            'Passes', 'assert: {that: "tripleoplan_plan | length > 0"}'),
        'custom-validations/junit-fails.yaml': playbook(
            'Fails', 'name: Free space\n      fail: '
            '{msg: "<junit> 3 GB free ]]> 5 GB needed"}'),
    }

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.cli('overcloud', 'validation', 'install')

    def test_run_and_show_write_the_same_junitxml(self):
        path = os.path.join(self.tmp, 'out', 'run.xml')
        os.makedirs(os.path.dirname(path))
        proc = subprocess.run(
            ['openstack', 'overcloud', 'validation', 'run', '--plan',
             self.plan, 'junit-passes', 'junit-fails', '--junitxml', path,
             '-f', 'json'], env=self.env, capture_output=True, text=True,
            stdin=subprocess.DEVNULL, timeout=600)
        self.assertNotIn('Traceback', proc.stderr)
        row = json.loads(proc.stdout)
        self.assertEqual((1, 'FAILED'), (proc.returncode, row['status']),
                         proc.stderr)
        self.assertIn('JUnit XML of validation run %s written to %s.'
                      % (row['run'], path), proc.stderr)
        with open(path, 'rb') as f:
            written = f.read()
        self.assertEqual(['run.xml'], os.listdir(os.path.dirname(path)))
        suite = ElementTree.fromstring(written).find('testsuite')
        self.assertEqual((row['run'], '2', '1', '0', '0'), (
            suite.get('name'), suite.get('tests'), suite.get('failures'),
            suite.get('errors'), suite.get('skipped')))
        self.assertEqual(
            [('junit-passes', 'localhost', []),
             ('junit-fails', 'localhost', ['failure'])],
            [(c.get('classname'), c.get('name'), [v.tag for v in c])
             for c in suite.iter('testcase')])
        failure = suite.find('testcase/failure')
        self.assertEqual(('Free space', '<junit> 3 GB free ]]> 5 GB needed'),
                         (failure.get('type'), failure.get('message')))
        self.assertEqual({'plan': self.plan, 'status': 'FAILED',
                          'names': 'junit-passes, junit-fails'},
                         {p.get('name'): p.get('value')
                          for p in suite.find('properties')
                          if p.get('name') in ('plan', 'status', 'names')})

        again = os.path.join(self.tmp, 'again.xml')
        shown = self.openstack_json('overcloud', 'validation', 'show',
                                    row['run'], '--junitxml', again)
        self.assertEqual(row['run'], shown['run'])
        with open(again, 'rb') as f:
            self.assertEqual(written, f.read())

    def test_no_wait_is_refused_with_nothing_run(self):
        before = self.openstack_json('overcloud', 'validation', 'results',
                                     '--plan', self.plan)
        path = os.path.join(self.tmp, 'never.xml')
        out, err = self.openstack(
            'overcloud', 'validation', 'run', '--plan', self.plan,
            'junit-passes', '--no-wait', '--junitxml', path, '-f', 'json',
            fail=True)
        self.assertEqual('REFUSED', json.loads(out)['status'])
        self.assertIn('--junitxml needs the run\'s end', err)
        self.assertFalse(os.path.exists(path))
        self.assertEqual(before, self.openstack_json(
            'overcloud', 'validation', 'results', '--plan', self.plan))
