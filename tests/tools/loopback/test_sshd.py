"""tools/loopback/sshd.py: the server's configuration, who it lets in,
what Mistral is told, and what a session sees of the loopback's state
(the mount namespace, for real when run as root)."""

import grp
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from unittest import mock

import testtools


from loopback import common
from loopback import registry
from loopback import sshd


class StateTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.state = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.state, ignore_errors=True)
        patcher = mock.patch.dict(os.environ, {
            'LOOPBACK_DIR': self.state, 'LOOPBACK_SSHD_PORT': '16999'})
        patcher.start()
        self.addCleanup(patcher.stop)


class TestConfiguration(StateTest):

    def test_one_user_by_key_on_loopback_only(self):
        conf = sshd.Sshd().configs()['server/sshd_config']
        for line in ('AllowUsers %s' % sshd.USER, 'PermitRootLogin no',
                     'AuthenticationMethods publickey',
                     'PasswordAuthentication no',
                     'KbdInteractiveAuthentication no',
                     'AllowTcpForwarding no', 'AuthorizedKeysFile %s'
                     % os.path.join(self.state, 'sshd', 'server',
                                    'authorized_keys')):
            self.assertIn(line + '\n', conf)
        self.assertNotEqual('root', sshd.USER)

    def test_each_session_in_a_network_namespace_of_its_own(self):
        command = sshd.Sshd().command()
        # the server directory's copy: the namespace covers /tmp, where
        # a checkout may lie
        served = command[command.index(os.path.join(
            self.state, 'sshd', 'server', 'inetd.py')) + 1:]
        self.assertEqual(['127.0.0.1,127.0.0.2,127.0.0.3,127.0.0.4,'
                          '127.0.0.5', '16999', '--'], served[:3])
        self.assertEqual(['--mount', '--net'], served[4:6])
        # the session is told the address the connection came to
        self.assertEqual(['{address}', os.path.join(
            self.state, 'sshd', 'servers'), str(sshd.HOME), os.path.join(
                self.state, 'sshd', 'server'), sshd.SSHD, '-i'],
            served[13:19])

    def test_as_many_servers_as_asked_for(self):
        with mock.patch.dict(os.environ, {'LOOPBACK_SSHD_SERVERS': '2'}):
            self.assertEqual(['127.0.0.1', '127.0.0.2', '127.0.0.3'],
                             sshd.addresses())
            self.assertEqual('127.0.0.2,127.0.0.3',
                             sshd.Sshd().env()['LOOPBACK_SSHD_ADDRESSES'])
        with mock.patch.dict(os.environ, {'LOOPBACK_SSHD_SERVERS': '0'}):
            self.assertEqual(['127.0.0.1'], sshd.addresses())

    def test_its_env_read_back_starts_the_same(self):
        # run-tests.sh evals `tools/loopback env` and then starts again:
        # what env exports must not be misread as a setting
        with mock.patch.dict(os.environ, {'LOOPBACK_SSHD_SERVERS': '2'}):
            exported = sshd.Sshd().env()
        with mock.patch.dict(os.environ, exported):
            self.assertEqual(5, len(sshd.addresses()))

    def test_started_before_mistral(self):
        names = list(registry.SERVICES)
        self.assertLess(names.index('sshd'), names.index('mistral'))

    def test_mistral_is_told_only_when_sshd_was_started(self):
        self.assertEqual('', sshd.validation_settings())
        with open(os.path.join(self.state, 'started'), 'w') as f:
            f.write('mistral\nsshd\n')
        told = sshd.validation_settings()
        self.assertIn('validation_ssh_user = tripleo-admin\n', told)
        self.assertIn('validation_ssh_key = %s\n' % os.path.join(
            self.state, 'sshd', 'client', 'id_ed25519'), told)
        self.assertIn('validation_ssh_port = 16999\n', told)
        # without a project: any; with one, only its plans
        servers = '127.0.0.1,127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5'
        self.assertIn('validation_servers = *:*=%s\n' % servers, told)
        self.assertIn('validation_servers = p1:*=%s\n' % servers,
                      sshd.validation_settings('p1'))


def user(uid=990, gid=990):
    return pwd.struct_passwd((sshd.USER, 'x', uid, gid, '', '/h', '/bin/sh'))


def group(name, gid, members=()):
    return grp.struct_group((name, 'x', gid, list(members)))


class TestUser(testtools.TestCase):

    def check(self, found, groups):
        with mock.patch('pwd.getpwnam', return_value=found), \
                mock.patch('grp.getgrall', return_value=groups), \
                mock.patch('grp.getgrgid', side_effect=lambda gid: next(
                    g for g in groups if g.gr_gid == gid)):
            sshd.ensure_user()

    def test_an_unprivileged_user_is_used(self):
        self.check(user(), [group(sshd.USER, 990), group('users', 100)])

    def test_root_or_a_privileged_group_is_refused(self):
        for found, groups in (
                (user(uid=0), [group(sshd.USER, 990)]),
                (user(gid=0), [group('root', 0)]),
                (user(), [group(sshd.USER, 990),
                          group('sudo', 27, [sshd.USER])])):
            self.assertRaisesRegex(common.LoopbackError, 'is privileged',
                                   self.check, found, groups)


def stages():
    """The stage directories of sshd.HIDE in /run."""
    return {n for n in os.listdir('/run') if n.startswith('loopback-sshd.')}


class TestHidden(StateTest):
    """A session's view: the state directory empty but for the server's
    files (read-only), a /tmp of its own."""

    def test_the_state_is_out_of_sight(self):
        if os.geteuid() != 0 or not shutil.which('unshare'):
            self.skipTest('needs root and unshare (mount namespaces)')
        server = os.path.join(self.state, 'sshd', 'server')
        common.write_if_changed(
            common.Path(server) / 'authorized_keys', 'key\n')
        common.write_if_changed(
            common.Path(self.state) / 'mistral' / 'mistral.conf', 'secret\n')
        outside = tempfile.NamedTemporaryFile(dir='/tmp')
        self.addCleanup(outside.close)
        # /run is the host's: another start of the loopback's sshd (a run
        # beside this one) has its own stage there for a moment, and one
        # that failed half-way left its own
        staged = stages()
        probe = subprocess.run(
            sshd.hidden(['/bin/sh', '-c',
                         'cd "$0" && find . | sort; '
                         'touch sshd/server/x || echo read-only; ls -A /tmp',
                         self.state], common.Path(self.state),
                        common.Path(server)),
            capture_output=True, text=True, timeout=30)
        if 'Operation not permitted' in probe.stderr:
            self.skipTest('mount namespaces refused: %s' % probe.stderr)
        self.assertEqual(0, probe.returncode, probe.stderr)
        found = probe.stdout.split()
        self.assertEqual(['.', './sshd', './sshd/server',
                          './sshd/server/authorized_keys', './sshd/servers',
                          'read-only'], found[:6])
        # /tmp holds the way to the state (made there), nothing of ours
        self.assertEqual([os.path.relpath(self.state, '/tmp').split('/')[0]]
                         if self.state.startswith('/tmp/') else [],
                         found[6:])
        self.assertNotIn(os.path.basename(outside.name), found)
        # nothing left behind outside
        self.assertFalse(os.path.exists(os.path.join(server, 'x')))
        deadline = time.monotonic() + 10
        while stages() - staged and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(set(), stages() - staged)


class TestSession(StateTest):
    """A session's view on a server of its own: that server's home and
    /tmp, no other server's files."""

    def test_each_address_its_own_home_and_tmp(self):
        if os.geteuid() != 0 or not shutil.which('unshare') or \
                not os.path.isdir(sshd.HOME):
            self.skipTest('needs root, unshare and the user\'s home')
        homes = common.Path(self.state) / 'sshd' / 'servers'
        # sshd's own files (its configuration): in sight of every session,
        # also when the state lies under /tmp (tempfile's: it does here)
        server = common.Path(self.state) / 'sshd' / 'server'
        server.mkdir(parents=True)
        (server / 'sshd_config').touch()
        for address in ('127.0.0.2', '127.0.0.3'):
            for part in ('home', 'tmp'):
                (homes / address / part).mkdir(parents=True)
                (homes / address / part / ('mine-' + address)).touch()
        staged = {n for n in os.listdir('/run')
                  if n.startswith('loopback-session.')}
        seen = {}
        # (a state under /tmp lies under the server's own /tmp: gone, but
        # for sshd's files)
        for address in ('127.0.0.2', '127.0.0.3'):
            argv = [address if a == '{address}' else a
                    for a in sshd.session([
                        '/bin/sh', '-c',
                        'ls "$0"; ls /tmp | grep mine; '
                        'ls -A "$1" 2>/dev/null || true; ls "$2"',
                        str(sshd.HOME), str(homes), str(server)], homes,
                        server)]
            probe = subprocess.run(argv, capture_output=True, text=True,
                                   timeout=30)
            if 'Operation not permitted' in probe.stderr:
                self.skipTest('namespaces refused: %s' % probe.stderr)
            self.assertEqual(0, probe.returncode, probe.stderr)
            seen[address] = probe.stdout.split()
        self.assertEqual({'127.0.0.2': ['mine-127.0.0.2', 'mine-127.0.0.2',
                                        'sshd_config'],
                          '127.0.0.3': ['mine-127.0.0.3', 'mine-127.0.0.3',
                                        'sshd_config']}, seen)
        # an address without a server of its own gets no session
        refused = subprocess.run(
            ['127.0.0.9' if a == '{address}' else a
             for a in sshd.session(['true'], homes, server)],
            capture_output=True, timeout=30)
        self.assertNotEqual(0, refused.returncode)
        self.assertEqual(staged, {n for n in os.listdir('/run')
                                  if n.startswith('loopback-session.')})


class TestInetd(testtools.TestCase):
    """inetd.py, for real: each connection runs the command on it."""

    def test_a_command_per_connection(self):
        import socket
        with socket.socket() as probe:
            probe.bind(('127.0.0.1', 0))
            port = probe.getsockname()[1]
        served = subprocess.Popen(
            [sys.executable, os.path.join(
                os.path.dirname(sshd.__file__), 'inetd.py'),
             '127.0.0.1', str(port), '--', '/bin/sh', '-c',
             'read line; echo "got $line"'])
        self.addCleanup(served.wait)
        self.addCleanup(served.terminate)
        answers = []
        for word in ('one', 'two'):
            deadline = time.monotonic() + 10
            while True:
                try:
                    conn = socket.create_connection(('127.0.0.1', port), 1)
                    break
                except OSError:
                    self.assertLess(time.monotonic(), deadline)
                    time.sleep(0.05)
            with conn:
                # 1 s was for the connect: the command's answer comes once
                # a busy host has started it
                conn.settimeout(60)
                conn.sendall(word.encode() + b'\n')
                answers.append(conn.makefile().read())
        self.assertEqual(['got one\n', 'got two\n'], answers)

    def test_each_address_is_told_to_its_command(self):
        import socket
        with socket.socket() as probe:
            probe.bind(('127.0.0.1', 0))
            port = probe.getsockname()[1]
        served = subprocess.Popen(
            [sys.executable, os.path.join(
                os.path.dirname(sshd.__file__), 'inetd.py'),
             '127.0.0.1,127.0.0.2', str(port), '--', '/bin/echo',
             'on', '{address}'])
        self.addCleanup(served.wait)
        self.addCleanup(served.terminate)
        answers = []
        for address in ('127.0.0.2', '127.0.0.1'):
            deadline = time.monotonic() + 10
            while True:
                try:
                    conn = socket.create_connection((address, port), 1)
                    break
                except OSError:
                    self.assertLess(time.monotonic(), deadline)
                    time.sleep(0.05)
            with conn:
                conn.settimeout(60)
                answers.append(conn.makefile().read())
        self.assertEqual(['on 127.0.0.2\n', 'on 127.0.0.1\n'], answers)


class TestPythonOutsideTmp(testtools.TestCase):

    def test_a_python_under_tmp_gives_way_to_the_system_one(self):
        venv = tempfile.mkdtemp(prefix='venv-', dir='/tmp')
        self.addCleanup(shutil.rmtree, venv, ignore_errors=True)
        # a venv made with --copies: its python is a file under /tmp
        copy = os.path.join(venv, 'python3')
        shutil.copy(sys.executable, copy)
        found = sshd.python_outside_tmp(copy)
        self.assertFalse(found.startswith('/tmp/'), found)
        self.assertTrue(os.access(found, os.X_OK))

    def test_a_symlinked_venv_python_is_followed_out_of_tmp(self):
        venv = tempfile.mkdtemp(prefix='venv-', dir='/tmp')
        self.addCleanup(shutil.rmtree, venv, ignore_errors=True)
        link = os.path.join(venv, 'python3')
        os.symlink(os.path.realpath(sys.executable), link)
        self.assertEqual(os.path.realpath(sys.executable),
                         sshd.python_outside_tmp(link))
