"""ansible_run.run for real (ansible-core of the test venv) against
local hosts, as the validations' runner tests do: events and outcomes,
the tree written from the sandbox, tags/skip-tags/limit, masking, the
process group ended on timeout and stop, arguments refused."""

import os
import shutil
import subprocess
import sys
import tempfile
from unittest import mock

import fixtures
import testtools

from tests.unit import process_groups
from tripleoplanclient.common import exceptions
from tripleoplanclient.config import ansible_run
from tripleoplanclient.validations import runner

INVENTORY = '''all:
  vars:
    ansible_connection: local
    ansible_python_interpreter: %s
  hosts:
    one: {}
    two: {}
''' % sys.executable


def play(*tasks, hosts='all'):
    return ('- name: The play\n  hosts: %s\n  gather_facts: false\n'
            '  tasks:\n' % hosts +
            ''.join('    - %s\n' % t for t in tasks))


class RunTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        if runner.ansible_playbook() is None:
            self.skipTest('ansible-core is not installed')
        self.tree = tempfile.mkdtemp(prefix='config-tree-')
        self.addCleanup(shutil.rmtree, self.tree, ignore_errors=True)
        self.write('inventory.yaml', INVENTORY)
        self.events, self.groups = [], []

    def write(self, name, text):
        with open(os.path.join(self.tree, name), 'w') as f:
            f.write(text)

    def run_play(self, text, timeout=120, **kwargs):
        self.write('play.yaml', text)
        kwargs.setdefault('progress', self.events.append)
        kwargs.setdefault('ssh', {})
        return ansible_run.run(
            self.tree, 'play.yaml', 'inventory.yaml', servers=[],
            timeout=timeout, started=self.groups.append, **kwargs)


class TestOutcomes(RunTest):

    def test_each_task_result_per_host_then_the_counts(self):
        found = self.run_play(play(
            'name: Say\n      debug: {msg: "hello {{ inventory_hostname }}"}',
            'name: Write\n      copy: {dest: "{{ playbook_dir }}/'
            '{{ inventory_hostname }}.txt", content: "written"}',
            'name: Never\n      debug: {msg: no}\n      when: false'))
        self.assertEqual(('SUCCESS', 0, None),
                         (found['status'], found['rc'], found['message']))
        for host in ('one', 'two'):
            self.assertEqual(
                [('Say', 'ok', 'hello %s' % host), ('Write', 'changed'),
                 ('Never', 'skipped')],
                [(e['task'], e['status']) +
                 ((e['message'],) if e['task'] == 'Say' else ())
                 for e in self.events if e['host'] == host])
        self.assertEqual(6, len(self.events))
        self.assertEqual({'The play'}, {e['play'] for e in self.events})
        self.assertEqual(
            {'ok': 2, 'changed': 1, 'failed': 0, 'unreachable': 0,
             'skipped': 1}, found['hosts']['one'])
        self.assertEqual({'ran': 2, 'skipped': 1}, found['tasks'])
        # the tree is written from inside the sandbox
        with open(os.path.join(self.tree, 'two.txt')) as f:
            self.assertEqual('written', f.read())
        self.assertEqual(
            ('play.yaml', [], [], None),
            (found['playbook'], found['tags'], found['skip_tags'],
             found['limit']))

    def test_a_failed_task_names_host_task_and_message(self):
        found = self.run_play(play(
            'name: Check\n      fail: {msg: "broken on {{ inventory_hostname'
            ' }}"}\n      when: inventory_hostname == "two"',
            'name: Tolerated\n      command: "false"\n'
            '      ignore_errors: true'))
        self.assertEqual('FAILED', found['status'])
        self.assertEqual([{'host': 'two', 'task': 'Check',
                           'status': 'failed', 'message': 'broken on two'}],
                         found['failures'])
        self.assertEqual('two: Check: broken on two', found['message'])
        tolerated = [e for e in self.events if e['task'] == 'Tolerated']
        self.assertEqual([('one', 'failed', True)],
                         [(e['host'], e['status'], e['ignored'])
                          for e in tolerated])
        self.assertEqual(0, found['hosts']['one']['failed'])

    def test_secrets_and_no_log_never_show(self):
        found = self.run_play(play(
            'name: Hidden\n      debug: {msg: "{{ admin_password }}"}\n'
            '      no_log: true',
            'name: Leaky\n      fail: {msg: "db {{ admin_password }} and '
            '{{ given }}; token: abc123"}'),
            extra_vars={'admin_password': 'pw-7f3e', 'given': 'other-9c1d'},
            secrets=['other-9c1d'])
        everything = repr((found, self.events))
        for secret in ('pw-7f3e', 'other-9c1d', 'abc123'):
            self.assertNotIn(secret, everything)
        self.assertEqual('the output of this task is hidden (no_log)',
                         self.events[0]['message'])
        self.assertEqual('FAILED', found['status'])

    def test_a_playbook_that_does_not_parse_fails_with_why(self):
        found = self.run_play('- hosts: all\n  tasks: [\n')
        self.assertEqual(('FAILED', []), (found['status'],
                                          found['failures']))
        self.assertNotEqual(0, found['rc'])
        self.assertIn('YAML', found['message'])

    def test_the_playbook_gets_no_credential(self):
        with mock.patch.dict(os.environ, {'OS_PASSWORD': 'pw-x',
                                          'OS_AUTH_TOKEN': 'tok-y'}):
            found = self.run_play(play(
                'assert: {that: ["\'OS_\' not in '
                'lookup(\'pipe\', \'env\')"]}'))
        self.assertEqual('SUCCESS', found['status'], found['message'])

    def test_a_failing_progress_does_not_stop_the_run(self):
        def progress(event):
            raise RuntimeError('swift is down')

        logged = self.useFixture(fixtures.FakeLogger())
        found = self.run_play(play('debug: {msg: a}', 'debug: {msg: b}'),
                              progress=progress)
        self.assertEqual(('SUCCESS', {'ran': 2, 'skipped': 0}),
                         (found['status'], found['tasks']))
        # said once, with its reason, in the executor's log
        self.assertEqual(1, logged.output.count(
            'config-download progress failed'))
        self.assertIn('RuntimeError: swift is down', logged.output)


class TestSelection(RunTest):

    TASKS = play('name: Tagged a\n      debug: {msg: a}\n      tags: [a]',
                 'name: Tagged b\n      debug: {msg: b}\n      tags: [b]')

    def ran(self):
        return sorted({(e['host'], e['task']) for e in self.events})

    def test_tags(self):
        found = self.run_play(self.TASKS, tags=['b'])
        self.assertEqual([('one', 'Tagged b'), ('two', 'Tagged b')],
                         self.ran())
        self.assertEqual(['b'], found['tags'])

    def test_skip_tags_and_limit(self):
        found = self.run_play(self.TASKS, skip_tags=['a'], limit='two',
                              forks=1)
        self.assertEqual([('two', 'Tagged b')], self.ran())
        self.assertEqual((['a'], 'two'), (found['skip_tags'],
                                          found['limit']))

    def test_an_inventory_outside_the_tree_is_copied_in(self):
        outside = tempfile.NamedTemporaryFile('w', suffix='.yaml')
        self.addCleanup(outside.close)
        outside.write(INVENTORY.replace('two: {}', 'three: {}'))
        outside.flush()
        self.write('play.yaml', self.TASKS)
        found = ansible_run.run(self.tree, 'play.yaml', outside.name,
                                ssh={}, servers=[], timeout=120,
                                progress=self.events.append, tags=['a'])
        self.assertEqual('SUCCESS', found['status'], found['message'])
        self.assertEqual([('one', 'Tagged a'), ('three', 'Tagged a')],
                         self.ran())


class TestEnding(RunTest):

    def test_a_timeout_ends_the_process_group(self):
        found = self.run_play(play('command: sleep 60'), timeout=4)
        self.assertEqual('TIMEOUT', found['status'])
        self.assertLess(found['duration'], 30)
        self.assertTrue(process_groups.gone(self.groups[0]))

    def test_a_stop_request_ends_the_process_group(self):
        asked = []

        def stop_requested():
            asked.append(1)
            return len(asked) > 1

        found = self.run_play(play('command: sleep 60'),
                              stop_requested=stop_requested, look_every=0.3)
        self.assertEqual('STOPPED', found['status'])
        self.assertTrue(process_groups.gone(self.groups[0]))


class TestRefused(RunTest):

    def test_arguments_that_are_not_valid_run_nothing(self):
        self.write('play.yaml', play('debug: {msg: a}'))
        outside = os.path.join(os.path.dirname(self.tree), 'x.yaml')
        for playbook, more in (
                ('../x.yaml', {}), (outside, {}), ('missing.yaml', {}),
                ('play.yaml', {'tags': ['a b']}),
                ('play.yaml', {'skip_tags': ['-e@/etc/passwd x']}),
                ('play.yaml', {'limit': 'one\ntwo'}),
                ('play.yaml', {'forks': 0}), ('play.yaml', {'forks': '5'})):
            self.assertRaises(exceptions.CommandError, ansible_run.run,
                              self.tree, playbook, 'inventory.yaml', ssh={},
                              servers=[], timeout=10, **more)
        self.assertEqual([], self.groups)

    def test_a_program_that_is_not_there_is_a_failure_with_why(self):
        self.write('play.yaml', play('debug: {msg: a}'))
        found = ansible_run.run(
            self.tree, 'play.yaml', 'inventory.yaml', ssh={}, servers=[],
            timeout=10, ansible_playbook='/nonexistent/ansible-playbook')
        self.assertEqual(('FAILED', None), (found['status'], found['rc']))
        self.assertIn('config_ansible_playbook', found['message'])


class TestKey(RunTest):

    def test_the_key_is_held_outside(self):
        if not shutil.which('ssh-agent') or not shutil.which('ssh-keygen'):
            self.skipTest('openssh-client is not installed')
        keys = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, keys)
        key = os.path.join(keys, 'id_ed25519')
        subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '',
                        '-f', key], check=True, stdin=subprocess.DEVNULL)
        found = self.run_play(play(
            'stat: {path: "%s"}\n      register: key' % key,
            'command: ssh-add -l\n      register: held',
            'assert: {that: ["not key.stat.exists", '
            '"\'ED25519\' in held.stdout"]}', hosts='one'),
            ssh={'key': key})
        self.assertEqual('SUCCESS', found['status'], found['message'])
