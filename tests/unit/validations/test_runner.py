"""ansible-playbook run for real (ansible-core of the test venv), against
localhost: outcomes, the child's process group, its empty environment."""

import os
import sys
import time
from unittest import mock

import testtools

from tests.unit import process_groups
from tripleoplanclient.validations import inventory
from tripleoplanclient.validations import runner

LOCAL = inventory.build(sys.executable)


def play(*tasks):
    return ('- hosts: localhost\n  gather_facts: false\n  tasks:\n' +
            ''.join('    - %s\n' % t for t in tasks)).encode()


class TestRunner(testtools.TestCase):

    def setUp(self):
        super().setUp()
        if runner.ansible_playbook() is None:
            self.skipTest('ansible-core is not installed')
        self.groups = []

    def run_play(self, text, timeout=60, **kwargs):
        return runner.run(text, {'given': 'value'}, LOCAL, timeout, 'run-1',
                          started=self.groups.append, **kwargs)

    def test_a_passing_validation(self):
        found = self.run_play(play(
            'assert: {that: "given == \'value\'"}'))
        self.assertEqual(('PASSED', 0, []),
                         (found['status'], found['rc'],
                          found['failed_hosts']), found)
        self.assertEqual(1, found['stats']['localhost']['ok'])
        self.assertEqual(1, len(found['plays']))

    def test_a_failing_task_is_named_with_its_message(self):
        found = self.run_play(play(
            'name: Enough disk\n      fail: {msg: only 1 GB free}'))
        self.assertEqual('FAILED', found['status'])
        self.assertEqual(['localhost'], found['failed_hosts'])
        self.assertEqual('localhost: Enough disk: only 1 GB free',
                         found['message'])
        self.assertEqual('only 1 GB free', found['failures'][0]['msg'])

    def test_the_playbook_gets_no_credential(self):
        secrets = {'OS_AUTH_TOKEN': 'secret-token', 'OS_PASSWORD': 'pw-x',
                   'OS_CLOUD': 'c'}
        with mock.patch.dict(os.environ, secrets):
            found = self.run_play(play(
                'assert: {that: ["lookup(\'env\', \'OS_AUTH_TOKEN\') == \'\'",'
                ' "\'secret-token\' not in lookup(\'pipe\', \'env\')",'
                ' "\'OS_\' not in lookup(\'pipe\', \'env\')"]}'))
        self.assertEqual('PASSED', found['status'], found['message'])

    def test_a_timeout_kills_the_process_group(self):
        found = self.run_play(play('command: sleep 60'), timeout=3)
        self.assertEqual('TIMEOUT', found['status'])
        self.assertLess(found['duration'], 20)
        self.assertTrue(process_groups.gone(self.groups[0]))

    def test_a_stop_request_ends_the_run(self):
        asked = []

        def stop_requested():
            asked.append(1)
            return len(asked) > 1

        found = self.run_play(play('command: sleep 60'),
                              stop_requested=stop_requested, look_every=0.3)
        self.assertEqual('STOPPED', found['status'])
        self.assertTrue(process_groups.gone(self.groups[0]))

    def test_a_playbook_that_does_not_parse_is_an_error(self):
        found = self.run_play(b'- hosts: localhost\n  tasks: [\n')
        self.assertEqual('ERROR', found['status'])
        self.assertIn('YAML', found['message'])

    def test_owns_only_a_group_of_that_run(self):
        self.assertFalse(runner.owns(os.getpid(), 'run-1'))
        self.assertFalse(runner.owns(None, 'run-1'))

    def test_owns_only_a_run_of_the_callers_project(self):
        import subprocess
        child = subprocess.Popen(
            ['sleep', '30'], env=runner.environment('run-7', 'project-a'))
        self.addCleanup(child.wait)
        self.addCleanup(child.kill)
        # until the exec, the child's environment is still this process's
        deadline = time.monotonic() + 10
        while not runner.owns(child.pid, 'run-7', 'project-a') and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertTrue(runner.owns(child.pid, 'run-7', 'project-a'))
        # another project that knows the run's id (and wrote a run
        # record naming that group in its own Swift) kills nothing
        self.assertFalse(runner.owns(child.pid, 'run-7', 'project-b'))
        self.assertFalse(runner.owns(child.pid, 'run-7'))


class TestShippedAgainstServers(testtools.TestCase):
    """The shipped deployed-servers check on an inventory of two servers
    that do not answer: each a failed host, named with its address."""

    def test_unreachable_servers_are_failed_hosts(self):
        from tripleoplanclient.validations import shipped
        if runner.ansible_playbook() is None:
            self.skipTest('ansible-core is not installed')
        roles = inventory.servers([
            {'output_key': 'RoleNetHostnameMap', 'output_value': {
                'Controller': {'ctlplane': ['c-0', 'c-1']}}},
            {'output_key': 'RoleNetIpMap', 'output_value': {
                'Controller': {'ctlplane': ['127.0.0.1', '127.0.0.1']}}}])
        found = runner.run(
            shipped.files()['deployed-servers-reachable.yaml'],
            {'ssh_port': 1}, inventory.build(sys.executable, roles), 60,
            'run-2', targets=[('127.0.0.1', 1)])
        self.assertEqual(('FAILED', ['c-0', 'c-1']),
                         (found['status'], found['failed_hosts']))
        # connected to for real, through the egress proxy
        self.assertIn('c-0 (127.0.0.1) does not answer on port 1 '
                      '(tripleoplan egress: cannot reach 127.0.0.1:1: '
                      'Connection refused)', found['message'])


class TestShippedDiskSpace(testtools.TestCase):
    """check-disk-space measures the undercloud's /, which the sandbox
    does not mount: asked of the undercloud."""

    def test_the_undercloud_root_file_system_is_measured(self):
        from tripleoplanclient.validations import shipped
        if runner.ansible_playbook() is None:
            self.skipTest('ansible-core is not installed')
        here = os.statvfs('/')
        free_gb = here.f_bavail * here.f_frsize / 1073741824.0
        text = shipped.files()['check-disk-space.yaml']
        found = runner.run(text, {'minimum_free_gb': 0},
                           inventory.build(sys.executable), 60, 'run-d')
        self.assertEqual('PASSED', found['status'], found['message'])
        told = found['plays'][0]['tasks'][1]['hosts']['localhost']['msg']
        self.assertAlmostEqual(free_gb, float(told.split()[0]), delta=0.5)
        found = runner.run(text, {'minimum_free_gb': 10 ** 9},
                           inventory.build(sys.executable), 60, 'run-d')
        self.assertEqual('FAILED', found['status'])
        self.assertRegex(found['message'], r'/ has [0-9.]+ GB free, less '
                         r'than 1000000000 GB: free some space')


def servers(address='127.0.0.9'):
    return inventory.servers([
        {'output_key': 'RoleNetHostnameMap', 'output_value': {
            'Compute': {'ctlplane': ['compute-0']}}},
        {'output_key': 'RoleNetIpMap', 'output_value': {
            'Compute': {'ctlplane': [address]}}}])


class TestServersOverSsh(testtools.TestCase):
    """A task on a server runs on that server, over SSH: one that does
    not answer (127.0.0.9, port 1: nothing listens) is unreachable, not
    checked on the undercloud in its name."""

    def setUp(self):
        super().setUp()
        if runner.ansible_playbook() is None:
            self.skipTest('ansible-core is not installed')

    def test_an_unreachable_server_is_a_failed_host_with_the_reason(self):
        text = (b'- hosts: localhost\n  gather_facts: false\n  tasks:\n'
                b'    - assert: {that: "ansible_connection == \'local\'"}\n'
                b'- hosts: Compute\n  gather_facts: false\n  tasks:\n'
                b'    - name: Free memory\n      command: free -m\n')
        begin = time.monotonic()
        found = runner.run(text, {}, inventory.build(
            sys.executable, servers(), {'timeout': 2, 'port': 1}), 60,
            'run-3', targets=[('127.0.0.9', 1)])
        self.assertLess(time.monotonic() - begin, 30)
        self.assertEqual(('FAILED', ['compute-0']),
                         (found['status'], found['failed_hosts']), found)
        self.assertEqual(1, found['stats']['localhost']['ok'])
        self.assertEqual(1, found['stats']['compute-0']['unreachable'])
        failure = found['failures'][0]
        self.assertEqual(('compute-0', 'unreachable', 'Free memory'),
                         (failure['host'], failure['status'],
                          failure['task']))
        # nothing listens on 127.0.0.9:1: refused at once
        self.assertIn('(cannot reach 127.0.0.9:1: Connection refused',
                      failure['msg'])
        self.assertIn('compute-0: Free memory: unreachable: ',
                      found['message'])
        self.assertIn('127.0.0.9:1', found['message'])

    def test_a_server_not_in_the_targets_is_refused_by_the_proxy(self):
        text = (b'- hosts: Compute\n  gather_facts: false\n  tasks:\n'
                b'    - name: Free memory\n      command: free -m\n')
        found = runner.run(text, {}, inventory.build(
            sys.executable, servers('127.0.0.1'), {'timeout': 5}), 60,
            'run-4')
        self.assertEqual(('FAILED', ['compute-0']),
                         (found['status'], found['failed_hosts']), found)
        self.assertIn('127.0.0.1:22 is neither a service of the catalog '
                      'nor a server of the plan', found['failures'][0]['msg'])
