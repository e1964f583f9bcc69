"""Hostile playbooks run for real (ansible-core of the test venv, the
system's bwrap): what the sandbox keeps out of their reach."""

import os
import shutil
import sys
import tempfile
import time
from unittest import mock

import testtools

from tripleoplanclient.validations import inventory
from tripleoplanclient.validations import runner
from tripleoplanclient.validations import sandbox

LOCAL = inventory.build(sys.executable)


def play(*tasks):
    return ('- hosts: localhost\n  gather_facts: false\n  tasks:\n' +
            ''.join('    - %s\n' % t for t in tasks)).encode()


def processes_with(text):
    """Host pids whose command line holds ``text``."""
    found = []
    for pid in os.listdir('/proc'):
        try:
            with open('/proc/%s/cmdline' % pid, 'rb') as f:
                if text.encode() in f.read():
                    found.append(pid)
        except (OSError, ValueError):
            pass
    return found


class SandboxTestCase(testtools.TestCase):
    """Skipped where ansible-core or bwrap is missing."""

    def setUp(self):
        super().setUp()
        if runner.ansible_playbook() is None:
            self.skipTest('ansible-core is not installed')
        if shutil.which('bwrap') is None:
            self.skipTest('bubblewrap is not installed')


class TestSandbox(SandboxTestCase):

    def setUp(self):
        super().setUp()
        self.groups = []

    def run_play(self, text, timeout=60, **kwargs):
        return runner.run(text, {}, LOCAL, timeout, 'run-s',
                          started=self.groups.append, **kwargs)

    def secret_file(self, under):
        """A file the executor owns, in a new directory under ``under``."""
        place = tempfile.mkdtemp(prefix='.tripleoplan-secret-', dir=under)
        self.addCleanup(shutil.rmtree, place)
        path = os.path.join(place, 'mistral.conf')
        with open(path, 'w') as f:
            f.write('[database]\nconnection = postgresql://m:pw@x/m\n')
        return path

    def test_the_executors_files_are_out_of_sight(self):
        # the executor's home, /tmp, the loopback state directory
        loopback = os.environ.get('LOOPBACK_DIR') or os.path.join(
            os.getcwd(), '.loopback')
        secrets = [self.secret_file(os.path.expanduser('~')),
                   self.secret_file(tempfile.gettempdir()),
                   os.path.join(loopback, 'mistral', 'mistral.conf'),
                   loopback, '/etc/shadow', '/etc/mistral',
                   os.path.expanduser('~/.ssh')]
        found = self.run_play(play(*[
            'stat: {path: "%s"}\n      register: st%d\n'
            '    - assert: {that: "not st%d.stat.exists"}' % (p, i, i)
            for i, p in enumerate(secrets)]))
        self.assertEqual('PASSED', found['status'], found['message'])

    def test_no_further_user_namespace_no_root_inside(self):
        found = self.run_play(play(
            'command: unshare -r id -u\n      register: root\n'
            '      failed_when: root.rc == 0'))
        self.assertEqual('PASSED', found['status'], found['message'])

    def test_the_seccomp_filter_refuses_the_kernels_less_guarded_calls(self):
        from tripleoplanclient.validations import seccomp
        calls = seccomp.refused()
        if not calls:
            self.skipTest('no seccomp filter for this machine')
        # keyrings are not namespaced; bpf and perf reach the kernel's
        # less guarded parts: EPERM (1) from the filter, whatever the
        # kernel would have said; getpid still works
        probe = ('import ctypes; libc = ctypes.CDLL(None, use_errno=True); '
                 'print([(libc.syscall(n, 0, 0, 0, 0, 0), ctypes.get_errno())'
                 ' for n in (%d, %d, %d)], '
                 'libc.syscall(39 if %r else 172) > 0)' % (
                     calls['keyctl'], calls['bpf'], calls['perf_event_open'],
                     seccomp.platform.machine() == 'x86_64'))
        found = self.run_play(play(
            'command:\n        argv: [%s, -c, "%s"]\n      register: called'
            % (sys.executable, probe),
            'assert: {that: \'called.stdout == "[(-1, 1), (-1, 1), (-1, 1)] '
            'True"\'}'))
        self.assertEqual('PASSED', found['status'], found)

    def test_of_etc_ssl_only_the_certificates(self):
        found = self.run_play(play(
            'stat: {path: /etc/ssl/private}\n      register: private',
            'stat: {path: /etc/ssl/certs}\n      register: certs',
            'assert: {that: ["not private.stat.exists", '
            '"certs.stat.isdir"]}'))
        self.assertEqual('PASSED', found['status'], found['message'])

    def test_the_scratch_has_a_size_limit(self):
        # the sandbox's own tmpfs: full at its size, the executor's disk
        # untouched
        found = self.run_play(play(
            'shell: head -c 300000000 /dev/zero > "$HOME/big"\n'
            '      register: filled\n      failed_when: filled.rc == 0',
            'assert: {that: \'"No space left" in filled.stderr\'}'))
        self.assertEqual('PASSED', found['status'], found['message'])

    def test_the_runner_reads_no_file_the_playbook_chose(self):
        """What the old runner read in the scratch (result.json, stderr)
        made a symlink to an executor-only file, a FIFO, /dev/zero and a
        sparse 20 GB file: none is read now (results come through the
        runner's pipes), the run's own result stands."""
        secret = self.secret_file(os.path.expanduser('~'))
        for trap in ('ln -sf %s "$HOME/result.json"' % secret,
                     'mkfifo "$HOME/result.json" "$HOME/stderr"',
                     'ln -sf /dev/zero "$HOME/stderr"',
                     'truncate -s 20G "$HOME/stderr"'):
            found = self.run_play(play(
                'shell: %s\n      ignore_errors: true' % trap,
                'name: Last\n      debug: {msg: done}'), timeout=60)
            self.assertEqual('PASSED', found['status'], (trap, found))
            self.assertEqual('Last', found['plays'][0]['tasks'][-1]['name'])
            self.assertNotIn('pw@x', str(found))

    def test_what_a_playbook_writes_on_the_result_pipe_is_bounded(self):
        # 30 MB without an end of line (and the callback's next line
        # glued to it) are dropped; the lines after it are the run's
        found = self.run_play(play(
            'shell: head -c 30000000 /dev/zero | tr "\\\\0" x > '
            '/proc/$(pgrep -o -f ansible-playbook)/fd/1',
            'debug: {msg: one}', 'name: Last\n      debug: {msg: done}'))
        self.assertEqual('PASSED', found['status'], found)
        self.assertEqual('Last', found['plays'][0]['tasks'][-1]['name'])
        self.assertEqual(3, found['stats']['localhost']['ok'])
        self.assertLess(len(str(found)), 100000)

    def test_an_unreadable_key_runs_nothing(self):
        found = runner.run(play('command: "true"'), {}, LOCAL, 60, 'run-k',
                           ssh_key='/nonexistent/id_rsa')
        self.assertEqual('ERROR', found['status'])
        self.assertIn('/nonexistent/id_rsa ([tripleoplan] '
                      'validation_ssh_key', found['message'])

    def test_a_key_the_agent_cannot_load_runs_nothing(self):
        key = self.secret_file(os.path.expanduser('~'))
        os.chmod(key, 0o600)
        found = runner.run(play('command: "true"'), {}, LOCAL, 60, 'run-k',
                           ssh_key=key)
        self.assertEqual('ERROR', found['status'])
        self.assertIn('could not be loaded into the run\'s ssh-agent',
                      found['message'])
        self.assertNotIn('pw@x', found['message'])

    def test_it_writes_only_in_its_scratch_directory(self):
        venv_file = os.path.join(sys.prefix, 'tripleoplan-sandbox-pwned')
        tmp_file = os.path.join(tempfile.gettempdir(),
                                'tripleoplan-sandbox-pwned')
        self.addCleanup(lambda: [os.path.exists(p) and os.unlink(p)
                                 for p in (venv_file, tmp_file)])
        found = self.run_play(play(*[
            'file: {path: "%s", state: touch}\n      ignore_errors: true\n'
            '      register: w%d\n    - assert: {that: w%d is failed}'
            % (p, i, i) for i, p in enumerate(
                [venv_file, '/usr/tripleoplan-sandbox-pwned',
                 '/etc/tripleoplan-sandbox-pwned'])] + [
            # /tmp is its own: writable, gone with the run
            'file: {path: "%s", state: touch}' % tmp_file,
            'file: {path: "{{ lookup(\'env\', \'HOME\') }}/kept", '
            'state: touch}']))
        self.assertEqual('PASSED', found['status'], found['message'])
        self.assertFalse(os.path.exists(tmp_file))
        self.assertFalse(os.path.exists(venv_file))

    def test_it_runs_as_nobody_and_sees_no_process_of_the_executor(self):
        with mock.patch.dict(os.environ, {'EXECUTOR_SECRET': 'sekrit-x1'}):
            found = self.run_play(play(
                'command: id -u\n      register: uid',
                'shell: grep -l sekrit-x1 /proc/*/environ\n'
                '      register: seen\n      failed_when: seen.rc == 0',
                'assert: {that: ["uid.stdout == \'65534\'", '
                '"\'sekrit\' not in lookup(\'pipe\', \'env\')"]}'))
        self.assertEqual('PASSED', found['status'], found['message'])

    def assert_gone(self, mark, within=15):
        """No ``sleep mark`` is left once the kernel has ended what the
        run started (a busy host takes its time): one that escaped the
        run (777 s) is still there then."""
        argv = 'sleep\0%s\0' % mark
        deadline = time.monotonic() + within
        while processes_with(argv) and time.monotonic() < deadline:
            time.sleep(0.2)
        self.assertEqual([], processes_with(argv))

    def marker(self):
        """A sleep's seconds that no other test process uses at the same
        time (a unit run beside this one)."""
        return '777.%d' % os.getpid()

    def test_a_stop_ends_every_process_it_started(self):
        asked = []

        def stop_requested():
            asked.append(1)
            return len(asked) > 3

        mark = self.marker()
        found = self.run_play(play(
            # a process of its own session, which a group kill misses
            'shell: setsid sleep %s > /dev/null 2>&1 < /dev/null &' % mark,
            'command: sleep 60'), stop_requested=stop_requested,
            look_every=0.5)
        self.assertEqual('STOPPED', found['status'])
        self.assert_gone(mark)

    def test_a_timeout_ends_every_process_it_started(self):
        mark = self.marker()
        found = self.run_play(play(
            'shell: setsid sleep %s > /dev/null 2>&1 < /dev/null &' % mark,
            'command: sleep 60'), timeout=4)
        self.assertEqual('TIMEOUT', found['status'])
        self.assert_gone(mark)

    def _refused(self, bwrap_script):
        bin_dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, bin_dir)
        if bwrap_script:
            path = os.path.join(bin_dir, 'bwrap')
            with open(path, 'w') as f:
                f.write(bwrap_script)
            os.chmod(path, 0o755)
        marker = os.path.join(bin_dir, 'ran')
        with mock.patch.dict(os.environ, {'PATH': bin_dir}):
            found = self.run_play(play(
                'file: {path: "%s", state: touch}' % marker))
        self.assertEqual('ERROR', found['status'])
        self.assertIn('install the "bubblewrap" package', found['message'])
        self.assertFalse(os.path.exists(marker))
        return found

    def test_refused_without_bwrap(self):
        found = self._refused(None)
        self.assertIn('bwrap is not installed', found['message'])

    def test_refused_when_bwrap_cannot_make_its_namespaces(self):
        found = self._refused(
            '#!/bin/sh\necho "bwrap: No permissions to create new '
            'namespace" >&2\nexit 1\n')
        self.assertIn('No permissions to create new namespace',
                      found['message'])

    def test_a_secret_directory_inside_an_allowed_tree_is_covered(self):
        home = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, home)
        tree = os.path.join(home, 'venv')
        inner = os.path.join(tree, 'etc-mistral')
        os.makedirs(inner)
        inputs = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, inputs)
        argv = sandbox.command(['true'], inputs, [tree],
                               secrets=[inner, home])
        pairs = [argv[i:i + 2] for i in range(len(argv))]
        self.assertIn(['--tmpfs', inner], pairs)
        # a directory above the allowed tree is simply not mounted
        self.assertNotIn(['--tmpfs', os.path.dirname(tree)], pairs)
        self.assertNotIn(['--ro-bind', os.path.dirname(tree)], pairs)


class TestSecretPlaces(testtools.TestCase):

    def test_the_operators_hidden_paths_besides_the_usual_ones(self):
        found = sandbox.secret_places(
            {'HOME': '/home/mistral', 'LOOPBACK_DIR': '/srv/loopback'},
            ['/etc/tripleoplan/mistral.conf'], hidden=['/srv/state'])
        for place in ('/root', '/etc/mistral', '/home/mistral',
                      '/etc/tripleoplan', '/srv/state'):
            self.assertIn(os.path.realpath(place), found)
        # the test harness's variables mean nothing to the product
        self.assertNotIn('/srv/loopback', found)


class TestNetwork(SandboxTestCase):
    """The sandbox's network is its own: the executor's loopback ports
    (here two listeners standing for memcached and a Swift storage
    server, and the one target the run is given) are reached only
    through the egress proxy, and only the target."""

    def setUp(self):
        super().setUp()
        self.target, self.guarded = self.listener(), self.listener()

    def listener(self):
        import socket
        sock = socket.socket()
        sock.bind(('127.0.0.1', 0))
        sock.listen(8)
        self.addCleanup(sock.close)
        return sock.getsockname()[1]

    def connect_task(self, port):
        return ('command:\n        argv: [%s, -c, "import socket; '
                'socket.create_connection((\'127.0.0.1\', %d), 5)"]'
                % (sys.executable, port))

    def test_no_port_of_the_executor_is_reached_directly(self):
        for port in (self.guarded, self.target):
            found = runner.run(play(self.connect_task(port)), {}, LOCAL, 60,
                               'run-n', targets=[('127.0.0.1', self.target)])
            self.assertEqual('FAILED', found['status'], found)
            self.assertIn('Connection refused', found['message'])

    def test_the_proxy_carries_the_target_and_refuses_the_rest(self):
        def probe(port):
            return ('command:\n        argv: "{{ tripleoplan_probe + '
                    '[\'127.0.0.1\', \'%d\'] }}"' % port)
        found = runner.run(play(probe(self.target)), {}, LOCAL, 60, 'run-n',
                           targets=[('127.0.0.1', self.target)])
        self.assertEqual('PASSED', found['status'], found['message'])
        found = runner.run(play(probe(self.guarded)), {}, LOCAL, 60,
                           'run-n', targets=[('127.0.0.1', self.target)])
        self.assertEqual('FAILED', found['status'])
        self.assertIn('127.0.0.1:%d is neither a service of the catalog nor '
                      'a server of the plan' % self.guarded,
                      found['failures'][0]['msg'])
