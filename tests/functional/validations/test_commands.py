"""Validations through the real CLI, run by ansible-playbook in the
loopback Mistral's executor: list by group, a run that passes and one
that fails (its task's message shown), a group, a long one stopped
mid-run, the results after each, another project seeing none of it,
and ``deploy --run-validations`` refusing on a failed one.
"""

import json
import os
import subprocess
import sys
import time
import uuid

from tests.functional import base


def playbook(name, task):
    return ('- hosts: localhost\n  gather_facts: false\n  vars:\n'
            '    metadata:\n      name: %s\n      description: A test\'s '
            'own.\n      groups: [prep]\n  tasks:\n    - %s\n' % (name, task))


def marked(run_id):
    """PIDs on this host whose environment names run ``run_id`` (the
    runner's marker: ``<project> <run id>``)."""
    found = []
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open('/proc/%s/environ' % pid, 'rb') as f:
                if any(v.startswith(b'TRIPLEOPLAN_VALIDATION_RUN=') and
                       v.split(b' ')[-1] == run_id.encode()
                       for v in f.read().split(b'\0')):
                    found.append(int(pid))
        except OSError:
            pass
    return found


# Tries each guarded port of the undercloud directly and through the
# proxy (http_proxy): reached = connected, or an answer other than the
# egress proxy's refusal. Then the catalog's identity endpoint, which
# must answer through the proxy.
REACH = r"""
import json, socket, sys, urllib.error, urllib.request
guarded, identity = json.loads(sys.argv[1]), sys.argv[2]
reached = []
for port in guarded:
    try:
        socket.create_connection(('127.0.0.1', port), 3).close()
        reached.append(('direct', port))
    except OSError:
        pass
    try:
        urllib.request.urlopen('http://127.0.0.1:%d/' % port, timeout=5)
        reached.append(('proxy', port))
    except urllib.error.HTTPError as exc:
        if exc.code != 403 or b'neither a service' not in exc.read():
            reached.append(('proxy', port, exc.code))
    except OSError:
        pass
try:
    urllib.request.urlopen(identity, timeout=10)
except urllib.error.HTTPError as exc:
    if exc.code >= 400:
        sys.exit('identity answered %d' % exc.code)
print(json.dumps(reached))
sys.exit(1 if reached else 0)
"""


def guarded_ports():
    """What answers on the loopback without a token."""
    sys.path.insert(0, os.path.join(base.REPO, 'tools'))
    from loopback import postgres
    from loopback import rabbitmq
    from loopback import swift_sets
    found = [p for name, p in swift_sets.ports().items() if name != 'proxy']
    return sorted(found + [postgres.port()] + list(
        rabbitmq.ports().values()))


def reach_playbook():
    return playbook('Reach guarded ports', (
        'name: Reach the guarded ports\n      command:\n        argv: '
        '["{{ ansible_playbook_python }}", "-c", %s, %s, '
        '"{{ tripleoplan_endpoints.identity }}"]' % (
            json.dumps(REACH), json.dumps(json.dumps(guarded_ports())))))


class TestValidations(base.PlanTest):

    PREFIX = 'valid'
    TEMPLATES = {
        'overcloud.yaml': 'heat_template_version: rocky\n',
        'custom-validations/failing-check.yaml': playbook(
            'Failing check', 'name: The check that fails\n      fail: '
            '{msg: "failed on purpose: 3 GB free, 5 GB needed"}'),
        'custom-validations/slow-check.yaml': playbook(
            'Slow check', 'command: sleep 300'),
        # long enough that it still runs when the validation before it
        # is told, however late the client's look (every 3 s) comes
        'custom-validations/sleepy-check.yaml': playbook(
            'Sleepy check', 'command: sleep 20'),
        'custom-validations/broken-check.yaml': '- hosts: [\n',
        'custom-validations/reach-guarded.yaml': reach_playbook(),
        'custom-validations/predeploy-check.yaml': playbook(
            'Before a deploy', 'fail: {msg: predeploy failed on purpose}'
        ).replace('groups: [prep]', 'groups: [pre-deployment]'),
    }

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.cli('overcloud', 'validation', 'install')
        tag = uuid.uuid4().hex[:8]
        password = 'pw-%s' % uuid.uuid4().hex
        cls.other_project = 'tpc-valid-%s' % tag
        cls.other_user = 'tpc-valid-%s' % tag
        cls.cli('project', 'create', '--domain', 'default', cls.other_project)
        cls.cli('user', 'create', '--domain', 'default', '--password',
                password, cls.other_user)
        cls.cli('role', 'add', '--project', cls.other_project, '--user',
                cls.other_user, 'member')
        cls.other_env = cls.cloud_env('valid-other', auth={
            'username': cls.other_user, 'password': password,
            'project_name': cls.other_project})
        cls.reader = 'tpc-valid-reader-%s' % tag
        cls.cli('user', 'create', '--domain', 'default', '--password',
                password, cls.reader)
        cls.cli('role', 'add', '--project', 'admin', '--user', cls.reader,
                'reader')
        cls.reader_env = cls.cloud_env('valid-reader', auth={
            'username': cls.reader, 'password': password})

    @classmethod
    def tearDownClass(cls):
        for args in (('user', 'delete', cls.other_user, cls.reader),
                     ('project', 'delete', cls.other_project)):
            subprocess.run(['openstack'] + list(args), env=cls.env,
                           capture_output=True, timeout=600)
        super().tearDownClass()

    def run_validations(self, *args, fail=False):
        proc = subprocess.run(
            ['openstack', 'overcloud', 'validation', 'run', '--plan',
             self.plan, '-f', 'json'] + list(args), env=self.env,
            capture_output=True, text=True, stdin=subprocess.DEVNULL,
            timeout=600)
        self.assertNotIn('Traceback', proc.stderr)
        return proc.returncode, json.loads(proc.stdout), proc.stderr

    def results(self, env=None):
        out, _ = self.openstack('overcloud', 'validation', 'results',
                                '--plan', self.plan, '-f', 'json',
                                env=env or self.env)
        return json.loads(out)

    def test_list_by_group_with_the_plans_own(self):
        listed = self.openstack_json('overcloud', 'validation', 'list',
                                     '--group', 'prep', '--plan', self.plan)
        found = {v['id']: v for v in listed}
        for vid in ('check-disk-space', 'check-free-memory',
                    'check-cpu-count', 'clock-in-sync', 'dns-resolution',
                    'failing-check', 'slow-check'):
            self.assertIn('prep', found[vid]['groups'])
        self.assertEqual('plan', found['failing-check']['source'])
        self.assertNotIn('plan-templates-valid', found)
        every = {v['id']: v for v in self.openstack_json(
            'overcloud', 'validation', 'list', '--plan', self.plan)}
        self.assertGreaterEqual(len(every) - 3, 8)
        self.assertIn('not YAML', every['broken-check']['problem'])

    def test_the_undercloud_is_reached_only_through_its_endpoints(self):
        # Swift's storage servers and memcached, Postgres and RabbitMQ
        # answer without a token: neither directly nor through the
        # egress proxy; the identity endpoint through it
        rc, found, _ = self.run_validations('reach-guarded')
        self.assertEqual((0, 'PASSED'), (rc, found['status']),
                         found['message'])

    def test_a_passing_and_a_failing_run_and_their_results(self):
        rc, passed, _ = self.run_validations('check-disk-space')
        self.assertEqual((0, 'PASSED'), (rc, passed['status']))
        rc, failed, err = self.run_validations('failing-check')
        self.assertEqual((1, 'FAILED'), (rc, failed['status']))
        self.assertIn('failed on purpose: 3 GB free, 5 GB needed',
                      failed['message'])
        self.assertIn('The check that fails', failed['message'])
        self.assertIn('failed on purpose', err)
        self.assertEqual(['localhost'], failed['failed_hosts'])
        rows = {(r['run'], r['validation']): r for r in self.results()}
        self.assertEqual('PASSED', rows[
            (passed['run'], 'check-disk-space')]['status'])
        self.assertEqual('FAILED', rows[
            (failed['run'], 'failing-check')]['status'])
        shown = self.openstack_json('overcloud', 'validation', 'show',
                                    failed['run'])
        self.assertIn('failing-check: localhost: The check that fails: '
                      'failed on purpose', ' '.join(shown['failures']))
        # an unknown validation is refused before a run starts
        rc, refused, err = self.run_validations('no-such-check')
        self.assertEqual((3, 'REFUSED'), (rc, refused['status']))
        self.assertIn('No validation no-such-check', err)

    def test_wait_tells_each_validation_as_it_ends(self):
        proc = subprocess.Popen(
            ['openstack', 'overcloud', 'validation', 'run', '--plan',
             self.plan, 'check-cpu-count', 'sleepy-check', '-f', 'json'],
            env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL, text=True)
        told = None
        for line in proc.stderr:
            if line.startswith('check-cpu-count: PASSED'):
                told = time.monotonic()
                break
        rest = proc.stderr.read()
        proc.wait(600)
        ended = time.monotonic()
        self.assertIsNotNone(told, rest)
        # the sleepy one (20 s) was still running when the first was told
        self.assertGreater(ended - told, 5)
        self.assertIn('sleepy-check: PASSED', rest)
        # told once: not again with the rest at the end
        self.assertNotIn('check-cpu-count: PASSED', rest)

    def test_a_group_run(self):
        rc, run, _ = self.run_validations('--group', 'pre-deployment')
        statuses = dict(v.split(': ') for v in run['validations'])
        self.assertEqual('PASSED', statuses['check-disk-space'])
        self.assertEqual('PASSED', statuses['plan-templates-valid'])
        self.assertNotIn('failing-check', statuses)   # the plan's own: prep
        self.assertNotIn('slow-check', statuses)
        self.assertEqual((1, 'FAILED'), (rc, statuses['predeploy-check']))

    def test_deploy_runs_the_pre_deployment_validations_first(self):
        before = self.snapshot(self.plan)
        proc = subprocess.run(
            ['openstack', 'overcloud', 'deploy', '--stack', self.plan,
             '--run-validations', '-f', 'json'], env=self.env,
            capture_output=True, text=True, stdin=subprocess.DEVNULL,
            timeout=600)
        self.assertEqual(3, proc.returncode, proc.stderr)
        self.assertEqual('REFUSED', json.loads(proc.stdout)['status'])
        self.assertIn('predeploy-check FAILED: localhost', proc.stderr)
        self.assertIn('predeploy failed on purpose', proc.stderr)
        self.assertIn('Nothing was changed', proc.stderr)
        self.assertEqual(before, self.snapshot(self.plan))

    def test_stop_a_long_run(self):
        rc, started, _ = self.run_validations('slow-check', '--no-wait')
        self.assertEqual((0, 'RUNNING'), (rc, started['status']))
        run = started['run']
        deadline = time.monotonic() + 120
        while not marked(run):
            self.assertLess(time.monotonic(), deadline, 'never started')
            time.sleep(0.5)
        begun = time.monotonic()
        stopped = self.openstack_json('overcloud', 'validation', 'stop', run)
        self.assertEqual('STOPPED', stopped['status'])
        self.assertEqual(['slow-check: STOPPED'], stopped['validations'])
        self.assertLess(time.monotonic() - begun, 30)
        self.assertEqual([], marked(run))
        rows = [r for r in self.results() if r['run'] == run]
        self.assertEqual(['STOPPED'], [r['status'] for r in rows])
        out, err = self.openstack('overcloud', 'validation', 'stop', run,
                                  fail=True)
        self.assertIn('already ended (STOPPED)', err)

    def test_a_run_past_its_timeout(self):
        begun = time.monotonic()
        rc, run, err = self.run_validations('slow-check', 'check-cpu-count',
                                            '--timeout', '4')
        self.assertEqual((4, 'TIMEOUT'), (rc, run['status']))
        self.assertEqual(['slow-check: TIMEOUT', 'check-cpu-count: TIMEOUT'],
                         run['validations'])
        self.assertIn('did not end within 4 s', run['message'])
        self.assertLess(time.monotonic() - begun, 60)
        self.assertEqual([], marked(run['run']))

    def test_a_reader_sees_results_but_cannot_run(self):
        rc, passed, _ = self.run_validations('check-cpu-count')
        rows = self.results(env=self.reader_env)
        self.assertIn((passed['run'], 'PASSED'),
                      [(r['run'], r['status']) for r in rows])
        listed = json.loads(self.openstack(
            'overcloud', 'validation', 'list', '-f', 'json',
            env=self.reader_env)[0])
        self.assertIn('check-cpu-count', [v['id'] for v in listed])
        before = self.swift.listing('tripleo-validations-results')
        proc = subprocess.run(
            ['openstack', 'overcloud', 'validation', 'run',
             'check-cpu-count', '-f', 'json'], env=self.reader_env,
            capture_output=True, text=True, stdin=subprocess.DEVNULL,
            timeout=600)
        # refused before a run starts, not a run that FAILED
        self.assertEqual((3, 'REFUSED'), (proc.returncode, json.loads(
            proc.stdout)['status']), proc.stderr)
        self.assertIn('not allowed', proc.stderr)
        self.assertIn('Nothing was run', proc.stderr)
        self.assert_only_other_plans_runs(
            before, self.swift.listing('tripleo-validations-results'))

    def assert_only_other_plans_runs(self, before, after):
        """What changed in the project's results container between two
        listings is of other runs only: those of other test classes that
        run validations at the same time (the SSH ones, with a plan; node
        import's hook, a group without one). The reader's run, had it
        started, has no plan and names check-cpu-count."""
        before, after = before or {}, after or {}
        changed = {name for name in set(before) | set(after)
                   if before.get(name) != after.get(name)}
        for run in sorted({name.split('/', 1)[0] for name in changed}):
            data = self.swift.get('tripleo-validations-results',
                                  '%s/run.json' % run)
            found = json.loads(data) if data else {}
            self.assertFalse(
                found.get('plan') in (None, self.plan) and
                found.get('names') in (None, ['check-cpu-count']),
                'run %s written: %s' % (run, sorted(
                    n for n in changed if n.startswith(run + '/'))))

    def test_another_project_sees_nothing(self):
        rc, passed, _ = self.run_validations('check-cpu-count')
        self.assertEqual([], self.results(env=self.other_env))
        out, err = self.openstack('overcloud', 'validation', 'show',
                                  passed['run'], '-f', 'json', fail=True,
                                  env=self.other_env)
        message = 'No validation run %s in this project' % passed['run']
        self.assertIn(message, err)
        # the row all the same, with why
        shown = json.loads(out)
        self.assertEqual(passed['run'], shown['run'])
        self.assertIn(message, shown['message'])
        out, err = self.openstack('overcloud', 'validation', 'list',
                                  '-f', 'json', fail=True,
                                  env=self.other_env)
        message = 'No validations are installed in this project'
        self.assertIn(message, err)
        [row] = json.loads(out)
        self.assertIn(message, row['problem'])
        self.assertEqual('REFUSED', row['status'])
