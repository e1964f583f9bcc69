"""Validations on a deployed server, over a real SSH login.

The plan's stack has no resources, only the outputs that name its
servers (``RoleNetHostnameMap``, ``RoleNetIpMap``): one Controller at
127.0.0.1, where the loopback's ``sshd`` listens (``tools/loopback start
sshd``, before Mistral, whose configuration then names its user, key and
port). A validation on ``hosts: overcloud`` runs in Mistral's sandbox,
logs in through the egress proxy and runs its tasks on the server as
the dedicated user, who sees neither the loopback's state nor its
services (the session's own network namespace: only the Swift port is
tried); a wrong user or key is refused by sshd, and the
server is a failed host with ssh's reason. Skipped when sshd does not
answer, unless ``FUNCTIONAL_REQUIRE_SSHD`` is set (``tools/run-tests.sh``
sets it where it starts sshd): there a silent sshd fails the test.
"""

import json
import os
import socket
import subprocess
import unittest
import urllib.parse

from tests.functional import base

SERVER = 'overcloud-controller-0'
STACK = '''heat_template_version: rocky
outputs:
  RoleNetHostnameMap:
    value: {Controller: {ctlplane: [%s]}}
  RoleNetIpMap:
    value: {Controller: {ctlplane: ['127.0.0.1']}}
''' % SERVER


def sshd_port(env):
    """The loopback sshd's port, once it greets (see the docstring)."""
    port = int(env.get('LOOPBACK_SSHD_PORT') or 0)
    try:
        with socket.create_connection(('127.0.0.1', port), timeout=5) as s:
            greeting = s.recv(8)
    except (OSError, OverflowError) as exc:
        greeting = str(exc)
    if greeting != b'SSH-2.0-':
        why = ('sshd does not answer on 127.0.0.1:%d (%r): python3 '
               'tools/loopback start sshd, then restart Mistral'
               % (port, greeting))
        if os.environ.get('FUNCTIONAL_REQUIRE_SSHD'):
            raise AssertionError(why + ' (FUNCTIONAL_REQUIRE_SSHD is set)')
        raise unittest.SkipTest(why)
    return port


def on_the_server(name, tasks, play_vars=''):
    """A plan's own validation whose tasks run on the servers."""
    return ('- hosts: overcloud\n  gather_facts: false\n  vars:\n'
            '    metadata:\n      name: %s\n      description: A test\'s '
            'own.\n      groups: [post-deployment]\n'
            '      requires: [inventory]\n%s  tasks:\n%s'
            % (name, play_vars, tasks))


class TestValidationsOverSsh(base.PlanTest):

    PREFIX = 'valssh'

    @classmethod
    def setUpClass(cls):
        env = base.loopback_env()
        sshd_port(env)
        cls.user = env['LOOPBACK_SSHD_USER']
        cls.sshd_log = env['LOOPBACK_SSHD_LOG']
        # what the server must not see: the loopback's state
        secret = os.path.join(env['LOOPBACK_DIR'], 'mistral', 'mistral.conf')
        swift = urllib.parse.urlsplit(env['LOOPBACK_SWIFT_URL']).port
        cls.TEMPLATES = {
            'overcloud.yaml': STACK,
            'roles_data.yaml': '- name: Controller\n',
            'custom-validations/who-runs-there.yaml': on_the_server(
                'Who runs there', '''\
    - name: Who I am on the server
      command: id -un
      register: who
    - name: What the server shows of the undercloud's loopback
      stat: {path: %s}
      register: secret
    - name: What the server reaches of the undercloud's services
      command: >-
        python3 -c "import socket;
        socket.create_connection(('127.0.0.1', %d), 2)"
      register: service
      failed_when: false
    - name: Logged in as the validations' user, not root, state unseen
      assert:
        that:
          - who.stdout == "%s"
          - not secret.stat.exists
          - service.rc != 0
        success_msg: "{{ inventory_hostname }}: ran as {{ who.stdout }}"
''' % (secret, swift, cls.user)),
            # a play may set its own login: sshd decides
            'custom-validations/as-root.yaml': on_the_server(
                'As root', '    - command: id -un\n',
                '    ansible_user: root\n'),
            'custom-validations/with-another-key.yaml': on_the_server(
                'With another key', '    - command: id -un\n',
                '    ansible_ssh_private_key_file: /nonexistent/key\n'),
        }
        super().setUpClass()
        try:
            cls.cli('overcloud', 'validation', 'install')
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

    def run_validations(self, *names):
        proc = subprocess.run(
            ['openstack', 'overcloud', 'validation', 'run', '--plan',
             self.plan, '--wait', '-f', 'json'] + list(names),
            env=self.env, capture_output=True, text=True,
            stdin=subprocess.DEVNULL, timeout=600)
        self.assertNotIn('Traceback', proc.stderr)
        return proc.returncode, json.loads(proc.stdout), proc.stderr

    def sshd_says(self, offset):
        with open(self.sshd_log, 'rb') as f:
            f.seek(offset)
            return f.read().decode('utf-8', 'replace')

    def test_tasks_run_on_the_server_as_the_ssh_user(self):
        mark = os.path.getsize(self.sshd_log)
        rc, run, err = self.run_validations('who-runs-there',
                                            'deployed-servers-reachable')
        self.assertEqual((0, 'PASSED'), (rc, run['status']), err)
        self.assertEqual(['who-runs-there: PASSED',
                          'deployed-servers-reachable: PASSED'],
                         run['validations'])
        kept = json.loads(self.swift.get(
            'tripleo-validations-results',
            '%s/who-runs-there.json' % run['run']))
        checked = kept['plays'][0]['tasks'][-1]['hosts']
        self.assertEqual({SERVER: {'status': 'ok', 'msg': '%s: ran as %s' % (
            SERVER, self.user)}}, checked)
        self.assertEqual([SERVER], list(kept['stats']))
        self.assertIn('Accepted publickey for %s from 127.0.0.1'
                      % self.user, self.sshd_says(mark))
        rows = [r for r in self.results() if r['run'] == run['run']]
        self.assertEqual({'PASSED'}, {r['status'] for r in rows})

    def test_a_wrong_user_or_key_is_refused_by_the_server(self):
        mark = os.path.getsize(self.sshd_log)
        rc, run, _ = self.run_validations('as-root', 'with-another-key')
        self.assertEqual((1, 'FAILED'), (rc, run['status']))
        self.assertEqual(['as-root: FAILED', 'with-another-key: FAILED'],
                         run['validations'])
        self.assertEqual([SERVER], run['failed_hosts'])
        shown = self.openstack_json('overcloud', 'validation', 'show',
                                    run['run'])
        failures = ' '.join(shown['failures'])
        for who in ('root', self.user):
            self.assertIn('%s@127.0.0.1: Permission denied (publickey)'
                          % who, failures)
        self.assertIn('as-root: %s: command: ' % SERVER, failures)
        self.assertIn('unreachable', run['message'])
        self.assertIn('User root from 127.0.0.1 not allowed because not '
                      'listed in AllowUsers', self.sshd_says(mark))
        rows = [r for r in self.results() if r['run'] == run['run']]
        self.assertEqual([[SERVER], [SERVER]],
                         [r['failed_hosts'] for r in rows])

    def results(self):
        out, _ = self.openstack('overcloud', 'validation', 'results',
                                '--plan', self.plan, '-f', 'json')
        return json.loads(out)
