"""tools/tht_config/measure.py: the loopback inventory and Ansible
configuration it prepares, and the report it makes of a run's results."""

import contextlib
import io
import json
import os
import shutil
import socket
import tempfile
from unittest import mock

import testtools
import yaml

from tht_config import measure

INVENTORY = {
    'Undercloud': {'hosts': {'undercloud': {}},
                   'vars': {'ansible_connection': 'local',
                            'ansible_host': 'localhost'}},
    'Controller': {'hosts': {'overcloud-controller-0': {
        'ansible_host': '127.0.0.2'}}},
    'Compute': {'hosts': {'overcloud-novacompute-0': {
        'ansible_host': '127.0.0.3'}}},
    'overcloud': {'children': {'Controller': {}, 'Compute': {}}},
}


class TestPrepare(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.work = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.work)
        self.config = os.path.join(self.work, 'config')
        os.mkdir(self.config)
        self.port = self.listen('127.0.0.2', 0)
        patcher = mock.patch.dict(os.environ, {
            'LOOPBACK_SSHD_PORT': str(self.port),
            'LOOPBACK_SSHD_USER': 'someone', 'LOOPBACK_DIR': '/state'})
        patcher.start()
        self.addCleanup(patcher.stop)

    def listen(self, address, port):
        """sshd's stand-in: a socket listening on address."""
        server = socket.socket()
        server.bind((address, port))
        server.listen()
        self.addCleanup(server.close)
        return server.getsockname()[1]

    def prepare(self, inventory):
        with open(os.path.join(self.config,
                               'tripleo-ansible-inventory.yaml'), 'w') as f:
            yaml.safe_dump(inventory, f)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            measure.prepare(self.config, self.work, '/venv')
        with open(os.path.join(self.work, 'inventory.yaml')) as f:
            written = yaml.safe_load(f)
        with open(os.path.join(self.work, 'extra-vars.json')) as f:
            extra = json.load(f)
        with open(os.path.join(self.work, 'ansible.cfg')) as f:
            cfg = f.read()
        return written, extra, cfg, err.getvalue()

    def test_every_host_over_ssh_unprivileged(self):
        self.listen('127.0.0.1', self.port)
        written, extra, cfg, err = self.prepare(INVENTORY)
        # 127.0.0.2 answers; 127.0.0.3 does not: moved to 127.0.0.1
        self.assertEqual('127.0.0.2', written['Controller']['hosts'][
            'overcloud-controller-0']['ansible_host'])
        self.assertEqual('127.0.0.1', written['Compute']['hosts'][
            'overcloud-novacompute-0']['ansible_host'])
        self.assertIn('overcloud-novacompute-0: no sshd', err)
        self.assertNotIn('overcloud-controller-0', err)
        # the undercloud's plays too, by ssh, not local as root
        self.assertEqual({'ansible_connection': 'ssh',
                          'ansible_host': '127.0.0.1',
                          'ansible_python_interpreter': '/usr/bin/python3'},
                         written['Undercloud']['vars'])
        self.assertEqual({'ansible_connection': 'ssh',
                          'ansible_port': self.port, 'ansible_user': 'someone',
                          'ansible_ssh_user': 'someone',
                          'ansible_ssh_private_key_file':
                          '/state/sshd/client/id_ed25519',
                          'ansible_become': False,
                          'ansible_python_interpreter': '/usr/bin/python3'},
                         extra)
        self.assertIn('strategy_plugins = /venv/share/ansible/plugins/'
                      'strategy\n', cfg)
        self.assertIn('callbacks_enabled = tht_measure\n', cfg)

    def test_undercloud_on_a_server_without_127_0_0_1(self):
        inventory = yaml.safe_load(yaml.safe_dump(INVENTORY))
        del inventory['Compute']
        written, _, _, err = self.prepare(inventory)
        self.assertEqual('', err)
        self.assertEqual('127.0.0.2', written['Undercloud']['vars'][
            'ansible_host'])

    def test_no_sshd_for_a_host(self):
        error = self.assertRaises(SystemExit, self.prepare, INVENTORY)
        self.assertIn('no sshd on 127.0.0.3:%d' % self.port, str(error))

    def test_refuses_an_address_off_loopback(self):
        inventory = yaml.safe_load(yaml.safe_dump(INVENTORY))
        inventory['Compute']['hosts']['overcloud-novacompute-0'][
            'ansible_host'] = '192.0.2.7'
        error = self.assertRaises(SystemExit, self.prepare, inventory)
        self.assertIn('192.0.2.7', str(error))


LISTED_ALL = '''
playbook: deploy_steps_playbook.yaml

  play #1 (Controller): Step 0	TAGS: []
    tasks:
      Gather facts	TAGS: [always]
      Configure podman	TAGS: [container_config, host_config]
      Write hieradata	TAGS: [host_config]
'''
LISTED_RUN = '''
  play #1 (Controller): Step 0	TAGS: []
    tasks:
      Gather facts	TAGS: [always]
'''


class TestReport(testtools.TestCase):

    def report(self, records):
        work = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, work)
        paths = [os.path.join(work, n) for n in ('r.jsonl', 'a', 'b')]
        for path, text in zip(paths, (
                ''.join(json.dumps(r) + '\n' for r in records),
                LISTED_ALL, LISTED_RUN)):
            with open(path, 'w') as f:
                f.write(text)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            measure.report(*paths, '12.34', '2')
        return json.loads(out.getvalue())

    def test_counts_by_status_and_tag(self):
        def record(task, tags, host, status, seconds=0.5, message=''):
            return {'play': 'p', 'task': task, 'action': 'a', 'tags': tags,
                    'host': host, 'status': status, 'seconds': seconds,
                    'message': message}
        report = self.report([
            record('Gather facts', ['always'], 'c0', 'ok'),
            record('Gather facts', ['always'], 'n0', 'changed', 2.0),
            record('Only on c0', [], 'n0', 'skipped'),
            record('Root only', ['host_config', 'x'], 'c0', 'failed',
                   message='Permission denied')])
        self.assertEqual((2, 12.3, 4, 3, 1), (
            report['rc'], report['seconds'], report['results'],
            report['ran'], report['skipped_by_condition']))
        self.assertEqual({'changed': 1, 'failed': 1, 'ok': 1,
                          'skipped': 1}, report['status'])
        self.assertEqual({'always': {'changed': 1, 'ok': 1},
                          '(none)': {'skipped': 1},
                          'host_config': {'failed': 1},
                          'x': {'failed': 1}}, report['by_tag'])
        self.assertEqual([{'host': 'c0', 'play': 'p', 'task': 'Root only',
                           'tags': ['host_config', 'x'],
                           'message': 'Permission denied'}],
                         report['failures'])
        self.assertEqual((3, 1), (report['listed_tasks'],
                                  report['listed_tasks_selected']))
        # each task left out by tag counted under each of its tags
        self.assertEqual({'container_config': 1, 'host_config': 2},
                         report['listed_tasks_not_selected_by_tag'])
        self.assertEqual('n0', report['slowest'][0]['host'])
