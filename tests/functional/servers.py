"""The loopback's sshd servers as the functional tests reach them
(``tools/loopback start sshd``): 127.0.0.1, the validations' server, and
127.0.0.2 .. each a server of its own for config-download's runs. A
login of our own checks what a run left there; a playbook hunts the
key a run must never see."""

import json
import os
import socket
import subprocess
import unittest

from tests.functional import base


def greets(address, port):
    """Whether sshd answers at ``address``:``port``."""
    try:
        with socket.create_connection((address, port), timeout=5) as s:
            return s.recv(8) == b'SSH-2.0-'
    except (OSError, OverflowError):
        return False


def required_port(env, addresses=('127.0.0.1',)):
    """sshd's port once every address greets; else the test is skipped
    (it fails when ``FUNCTIONAL_REQUIRE_SSHD`` is set)."""
    port = int(env.get('LOOPBACK_SSHD_PORT') or 0)
    if not all(greets(a, port) for a in addresses):
        why = ('sshd does not answer on %s port %d: python3 tools/loopback '
               'start sshd, then restart Mistral'
               % (', '.join(addresses), port))
        if os.environ.get('FUNCTIONAL_REQUIRE_SSHD'):
            raise AssertionError(why + ' (FUNCTIONAL_REQUIRE_SSHD is set)')
        raise unittest.SkipTest(why)
    return port


def login(env, address, command):
    """``command`` run over a login of our own to ``address`` (the
    loopback's user and key): the finished process."""
    return subprocess.run(
        ['ssh', '-i', env['LOOPBACK_SSHD_KEY'], '-p',
         str(env['LOOPBACK_SSHD_PORT']), '-o', 'StrictHostKeyChecking=no',
         '-o', 'UserKnownHostsFile=/dev/null', '-o', 'BatchMode=yes',
         '-o', 'LogLevel=ERROR',
         '%s@%s' % (env['LOOPBACK_SSHD_USER'], address), command],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def key_hunt(key, play_vars=''):
    """A play on the undercloud's side (the sandbox) that fails when it
    finds a line of private ``key`` (held in two halves) in any file
    under / but /proc, /sys and /usr, or any private key file under
    /run, /tmp, /var/tmp, /etc and /srv. ``play_vars``: more vars lines
    (indented by four)."""
    with open(key) as f:
        line = f.read().splitlines()[1]
    half = len(line) // 2
    return ('- hosts: localhost\n  gather_facts: false\n  vars:\n%s'
            '    a: "%s"\n    b: "%s"\n  tasks:\n'
            '    - name: Search every file for the key\n'
            '      shell: >-\n        grep -rlF -e "{{ a }}{{ b }}" /\n'
            '        --exclude-dir=proc --exclude-dir=sys --exclude-dir=usr\n'
            '        2>/dev/null\n'
            '      register: hunted\n      failed_when: hunted.rc == 0\n'
            '    - name: Search for any private key file\n'
            '      shell: >-\n        grep -rlE -e "BEGIN (OPENSSH|RSA|EC) '
            'PRIVATE KEY" /run /tmp /var/tmp /etc /srv\n        2>/dev/null\n'
            '      register: any_key\n      failed_when: any_key.rc == 0\n'
            % (play_vars, line[:half], line[half:]))


def run_validations(env, *args):
    """``(exit status, row, stderr)`` of ``validation run args``
    (waiting, ``-f json``)."""
    proc = subprocess.run(
        ['openstack', 'overcloud', 'validation', 'run', '--wait', '-f',
         'json'] + list(args), env=env, capture_output=True, text=True,
        stdin=subprocess.DEVNULL, timeout=900)
    assert 'Traceback' not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout), proc.stderr


class DeployedPlanTest(base.PlanTest):
    """A plan deployed in Heat whose stack's outputs name the loopback's
    sshd servers (the class's templates), validations installed first
    (``install_validations``); the stack deleted after."""

    @classmethod
    def install_validations(cls):
        cls.cli('overcloud', 'validation', 'install')

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        try:
            cls.install_validations()
            cls.cli('overcloud', 'deploy', '--stack', cls.plan, '-y')
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        subprocess.run(['openstack', 'stack', 'delete', '-y', '--wait',
                        cls.plan], env=cls.env, capture_output=True,
                       timeout=600)
        super().tearDownClass()

    def run_validations(self, *args):
        """A run of ``args`` with this plan."""
        return run_validations(self.env, '--plan', self.plan, *args)
