"""ansible_run.run (no Mistral) against the loopback sshd's servers at
127.0.0.2 and 127.0.0.3, each a server of its own (``tools/loopback
start sshd``: its own home, the same user, port and key), and an address
where nothing listens.

A small tree: a play that writes a file on each server, runs a command,
fails on one server and cannot reach the third; tags, skip-tags and
limit; a timeout. An SSH login afterwards finds each server's file on
that server only. A play in the sandbox looks for the login's private
key everywhere it can and finds nothing (the run's ssh-agent holds it
outside). Skipped when sshd does not answer, unless
``FUNCTIONAL_REQUIRE_SSHD`` is set.
"""

import os
import shutil
import tempfile
import unittest
import uuid

import testtools

from tests.functional import base
from tests.functional import servers
from tripleoplanclient.config import ansible_run
from tripleoplanclient.validations import runner

SERVERS = ('127.0.0.2', '127.0.0.3')
# an address of the loopback network where nothing listens
NOBODY = '127.0.0.250'

INVENTORY = '''all:
  vars:
    ansible_python_interpreter: auto_silent
  children:
    Controller:
      hosts:
        controller-0: {ansible_host: %s}
    Compute:
      hosts:
        compute-0: {ansible_host: %s}
    Gone:
      hosts:
        gone-0: {ansible_host: %s}
''' % (SERVERS + (NOBODY,))

PLAYBOOK = '''- name: Deploy steps
  hosts: Controller,Compute,Gone
  gather_facts: false
  tasks:
    - name: Write the marker
      copy:
        dest: "~/marker-{{ inventory_hostname }}-{{ run }}"
        content: "{{ inventory_hostname }}"
      tags: [write]
    - name: Run a command
      command: id -un
      register: who
      tags: [write]
    - name: Tagged to be skipped
      file: {path: "~/skipped-{{ run }}", state: touch}
      tags: [unwanted]
    - name: Compute refuses
      fail: {msg: "compute-0 says no"}
      when: inventory_hostname == "compute-0"
      tags: [refuse]
'''

SLOW = '''- hosts: Controller
  gather_facts: false
  tasks:
    - command: sleep 120
'''


class TestRunOnServers(testtools.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        env = base.loopback_env()
        cls.port = servers.required_port(env, SERVERS)
        if runner.ansible_playbook() is None:
            raise unittest.SkipTest('ansible-core is not installed')
        cls.env = env
        cls.user = env['LOOPBACK_SSHD_USER']
        cls.key = env['LOOPBACK_SSHD_KEY']

    def setUp(self):
        super().setUp()
        self.tree = tempfile.mkdtemp(prefix='config-tree-')
        self.addCleanup(shutil.rmtree, self.tree, ignore_errors=True)
        for name, text in (('inventory.yaml', INVENTORY),
                           ('deploy_steps_playbook.yaml', PLAYBOOK),
                           ('slow.yaml', SLOW)):
            with open(os.path.join(self.tree, name), 'w') as f:
                f.write(text)
        self.run_id = uuid.uuid4().hex[:12]
        self.events = []

    def run_book(self, playbook='deploy_steps_playbook.yaml', timeout=300,
                 **kwargs):
        return ansible_run.run(
            self.tree, playbook, 'inventory.yaml',
            ssh={'user': self.user, 'key': self.key, 'port': self.port,
                 'timeout': 10},
            servers=[(a, self.port) for a in SERVERS + (NOBODY,)],
            timeout=timeout, extra_vars={'run': self.run_id},
            progress=self.events.append, run_id=self.run_id, **kwargs)

    def on(self, address, command):
        """``command``'s stdout over a login of our own to ``address``."""
        done = servers.login(self.env, address, command)
        self.assertEqual(0, done.returncode, done.stderr)
        return done.stdout.split()

    def test_a_run_on_two_servers_and_one_gone(self):
        found = self.run_book(skip_tags=['unwanted'])
        self.assertEqual('FAILED', found['status'], found)
        failures = {(f['host'], f['task'], f['status']): f['message']
                    for f in found['failures']}
        self.assertEqual('compute-0 says no', failures[
            ('compute-0', 'Compute refuses', 'failed')])
        # why, in the proxy's words (ssh does not show them)
        self.assertIn('cannot reach %s:%d: Connection refused' % (
            NOBODY, self.port), failures[
            ('gone-0', 'Write the marker', 'unreachable')])
        self.assertEqual(2, len(failures))
        self.assertEqual(
            {'ok': 2, 'changed': 2, 'failed': 0, 'unreachable': 0,
             'skipped': 1}, found['hosts']['controller-0'])
        self.assertEqual(1, found['hosts']['gone-0']['unreachable'])
        self.assertIn('%s:%d' % (NOBODY, self.port),
                      ' '.join(found['unreached']))
        self.assertEqual(
            [('controller-0', 'Write the marker', 'changed'),
             ('controller-0', 'Run a command', 'changed'),
             ('controller-0', 'Compute refuses', 'skipped')],
            [(e['host'], e['task'], e['status']) for e in self.events
             if e['host'] == 'controller-0'])
        who = [e for e in self.events if e['task'] == 'Run a command']
        self.assertEqual({'controller-0', 'compute-0'},
                         {e['host'] for e in who})
        # each server has its own file, the other's is not there
        marker = 'marker-%%s-%s' % self.run_id
        self.assertEqual([marker % 'controller-0'], self.on(
            SERVERS[0], 'ls ~ | grep %s || true' % self.run_id))
        self.assertEqual([marker % 'compute-0'], self.on(
            SERVERS[1], 'ls ~ | grep %s || true' % self.run_id))
        self.assertEqual(['compute-0'], self.on(
            SERVERS[1], 'cat ~/%s' % marker % 'compute-0'))

    def test_tags_and_limit(self):
        found = self.run_book(tags=['write', 'unwanted'], limit='Controller')
        self.assertEqual('SUCCESS', found['status'], found)
        self.assertEqual(['controller-0'], sorted(found['hosts']))
        self.assertEqual(
            ['Write the marker', 'Run a command', 'Tagged to be skipped'],
            [e['task'] for e in self.events])
        self.assertEqual(['skipped-%s' % self.run_id], self.on(
            SERVERS[0], 'ls ~ | grep skipped-%s || true' % self.run_id))
        self.assertEqual([], self.on(
            SERVERS[1], 'ls ~ | grep %s || true' % self.run_id))

    def test_a_timeout(self):
        found = self.run_book('slow.yaml', timeout=15)
        self.assertEqual('TIMEOUT', found['status'])
        self.assertLess(found['duration'], 60)

    def test_no_private_key_inside_the_sandbox(self):
        with open(os.path.join(self.tree, 'hunt.yaml'), 'w') as f:
            f.write(servers.key_hunt(self.key))
        found = self.run_book('hunt.yaml')
        self.assertEqual('SUCCESS', found['status'], found)
        self.assertEqual(2, found['tasks']['ran'])
