"""A run from its request to its kept results (ansible-playbook for real),
and stopping one, on stateful fake Swift containers."""

import json
import os
import shutil
import socket
import sys
import tempfile

from osc_lib import exceptions

from tests.unit import fakes
from tripleoplanclient.validations import catalog
from tripleoplanclient.validations import inventory
from tripleoplanclient.validations import results
from tripleoplanclient.validations import runner
from tripleoplanclient.validations import runs

GROUPS = b'prep: [{description: The undercloud}]\n'


def playbook(name, task):
    return ('- hosts: localhost\n  gather_facts: false\n  vars:\n'
            '    metadata: {name: %s, description: d, groups: [prep]}\n'
            '  tasks:\n    - %s\n' % (name, task)).encode()


def request(**fields):
    return dict({'names': None, 'group': None, 'plan': None}, **fields)


class TestRuns(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.installed = fakes.FakeSwift(self.m, plan=catalog.CONTAINER)
        self.kept = fakes.FakeSwift(self.m, plan=results.CONTAINER)
        self.store = fakes.plan_store(workers=1)
        self.swift_info(bulk=False)
        self.installed.store('groups.yaml', GROUPS)
        self.installed.store('ok.yaml', playbook(
            'Ok', 'assert: {that: "tripleoplan_endpoints.identity == \'I\'"}'))
        self.installed.store('bad.yaml', playbook(
            'Bad', 'name: Check\n      fail: {msg: too small}'))
        self.installed.store('broken.yaml', b'- hosts: [\n')
        self.inputs = {'endpoints': {'identity': 'I'}}

    def kept_json(self, name):
        return json.loads(self.kept.objects[name][0])

    def test_a_run_keeps_each_result_and_its_summary(self):
        if runner.ansible_playbook() is None:
            self.skipTest('ansible-core is not installed')
        run, chosen = runs.start(self.store, request(
            names=['ok', 'bad', 'broken']), 'r1')
        self.assertEqual('RUNNING', self.kept_json('r1/run.json')['status'])
        done = runs.execute(self.store, run, chosen, self.inputs.get, 120)
        self.assertEqual('FAILED', done['status'])
        self.assertEqual(['PASSED', 'FAILED', 'INVALID'],
                         [v['status'] for v in done['validations']])
        self.assertEqual(done, self.kept_json('r1/run.json'))
        bad = self.kept_json('r1/bad.json')
        self.assertEqual(('Check', 'too small'), (
            bad['failures'][0]['task'], bad['failures'][0]['msg']))
        self.assertEqual(['localhost'], bad['failed_hosts'])
        self.assertIn('not YAML', self.kept_json('r1/broken.json')['message'])
        rows = [r for found in results.runs(self.store)[0]
                for r in results.rows(found)]
        self.assertEqual([('r1', 'ok', 'PASSED'), ('r1', 'bad', 'FAILED'),
                          ('r1', 'broken', 'INVALID')],
                         [(r['run'], r['validation'], r['status'])
                          for r in rows])
        self.assertEqual(([], False), results.runs(self.store, plan='other'))

    def test_unknown_names_are_refused_before_anything_is_written(self):
        self.assertRaises(exceptions.CommandError, runs.start, self.store,
                          request(names=['ok', 'nope']), 'r1')
        self.assertEqual({}, self.kept.objects)

    def test_a_stop_request_skips_what_has_not_run(self):
        run, chosen = runs.start(self.store, request(group='prep'), 'r2')
        results.request_stop(self.store, 'r2')
        done = runs.execute(self.store, run, chosen, self.inputs.get, 120)
        self.assertEqual('STOPPED', done['status'])
        self.assertEqual({'STOPPED'},
                         {v['status'] for v in done['validations']})

    def test_a_validation_needing_a_plan_is_not_run_without(self):
        self.installed.store('needs.yaml', playbook(
            'Needs', 'debug: {}').replace(
                b'groups: [prep]', b'groups: [prep], requires: [inventory]'))
        run, chosen = runs.start(self.store, request(names=['needs']), 'r3')
        done = runs.execute(self.store, run, chosen, self.inputs.get, 120)
        self.assertEqual('ERROR', done['validations'][0]['status'])
        self.assertIn('needs a plan', done['validations'][0]['message'])

    def test_the_configured_hidden_paths_are_out_of_sight(self):
        # secrets in a tree the sandbox shows (the Python environment):
        # seen until Mistral's configuration names them
        # ([tripleoplan] validation_hidden_paths)
        if runner.ansible_playbook() is None:
            self.skipTest('ansible-core is not installed')
        if shutil.which('bwrap') is None:
            self.skipTest('bubblewrap is not installed')
        place = tempfile.mkdtemp(prefix='.tripleoplan-hidden-',
                                 dir=sys.prefix)
        self.addCleanup(shutil.rmtree, place)
        with open(os.path.join(place, 'credentials'), 'w') as f:
            f.write('secret\n')
        self.installed.store('hunt.yaml', playbook(
            'Hunt', 'stat: {path: "%s/credentials"}\n      register: found\n'
            '    - assert: {that: "not found.stat.exists"}' % place))
        statuses = []
        for run_id, hidden in (('r4', None), ('r5', [place])):
            self.inputs['hidden_paths'] = hidden
            run, chosen = runs.start(self.store, request(names=['hunt']),
                                     run_id)
            statuses.append(runs.execute(self.store, run, chosen,
                                         self.inputs.get, 120)['status'])
        self.assertEqual(['FAILED', 'PASSED'], statuses)

    def on_servers(self, name, tasks, ssh, allowed='127.0.0.9'):
        """Run validation ``name`` (``tasks`` on the group overcloud) on
        plan p's one server at 127.0.0.9 (nothing listens on its port 1),
        with ``ssh`` configured, the operator letting the plan reach
        ``allowed``."""
        if runner.ansible_playbook() is None:
            self.skipTest('ansible-core is not installed')
        fakes.FakeSwift(self.m, plan='p')
        self.installed.store(name + '.yaml', (
            '- hosts: overcloud\n  gather_facts: false\n  vars:\n'
            '    metadata: {name: S, description: d, groups: [prep], '
            'requires: [inventory]}\n  tasks:\n%s' % tasks).encode())
        self.inputs.update(servers={'Compute': {'compute-0': '127.0.0.9'}},
                           ssh=dict({'port': 1}, **ssh),
                           server_networks=inventory.networks(
                               ['*:p=%s' % allowed], None, 'p'))
        run, chosen = runs.start(self.store, request(names=[name],
                                                     plan='p'), name)
        runs.execute(self.store, run, chosen, self.inputs.get, 120)
        return self.kept_json('%s/%s.json' % (name, name))

    def test_a_server_without_a_key_is_unreachable_and_says_why(self):
        found = self.on_servers(
            'mem', '    - name: Free memory\n      command: free -m\n',
            {'timeout': 2})
        self.assertEqual(('FAILED', ['compute-0']),
                         (found['status'], found['failed_hosts']))
        # ssh's words, and the egress proxy's (ssh hides its ProxyCommand's)
        # nothing listens on 127.0.0.9:1: refused at once
        self.assertIn('(cannot reach 127.0.0.9:1: Connection refused',
                      found['failures'][0]['msg'])
        self.assertIn('compute-0: Free memory: unreachable: ',
                      found['message'])
        self.assertIn('set [tripleoplan] validation_ssh_key',
                      found['message'])

    def key(self):
        import subprocess
        place = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, place)
        key = os.path.join(place, 'id_ed25519')
        subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C',
                        'the-validations-key', '-f', key], check=True)
        with open(key) as f:
            return key, f.read().splitlines()[1]

    def test_the_key_is_the_run_agents_never_a_file_in_the_sandbox(self):
        key, line = self.key()
        # a line of the private key, split so the playbook holds no copy
        half = len(line) // 2
        found = self.on_servers('key', (
            '    - delegate_to: localhost\n      command: ssh-add -L\n'
            '      register: listed\n'
            '    - delegate_to: localhost\n      shell: >-\n'
            '        grep -rlF -e "{{ a }}{{ b }}" / --exclude-dir=proc\n'
            '        --exclude-dir=sys --exclude-dir=usr 2>/dev/null\n'
            '      register: hunted\n      failed_when: hunted.rc == 0\n'
            '      vars: {a: "%s", b: "%s"}\n'
            '    - delegate_to: localhost\n      assert:\n        that:\n'
            '          - listed.stdout is search("the-validations-key")\n'
            '          - ansible_ssh_private_key_file is not defined\n'
            '          - ansible_user == "heat-admin"\n'
            % (line[:half], line[half:])),
            {'key': key, 'user': 'heat-admin', 'timeout': 2})
        self.assertEqual('PASSED', found['status'], found['message'])

    def test_a_server_the_operator_did_not_allow_is_not_reached(self):
        key, _ = self.key()
        found = self.on_servers(
            'mem', '    - name: Free memory\n      command: free -m\n',
            {'key': key, 'timeout': 2}, allowed='127.0.0.8')
        self.assertEqual(('FAILED', ['compute-0']),
                         (found['status'], found['failed_hosts']))
        # refused by the proxy, not tried: nothing listens there anyway
        msg = found['failures'][0]['msg']
        self.assertIn('127.0.0.9:1 (compute-0, named by the outputs of '
                      'stack p) is not a server the validations of plan p '
                      'may reach', msg)
        self.assertNotIn('Connection refused', msg)

    def running(self, run_id='r4', host=None):
        run = {'run': run_id, 'plan': None, 'status': 'RUNNING',
               'host': host or socket.gethostname(), 'pgid': 4242,
               'validations': [{'id': 'ok', 'status': 'RUNNING'},
                               {'id': 'bad', 'status': 'PENDING'}]}
        results.create(self.store, run)
        return run

    def test_stop_kills_the_group_and_records_stopped(self):
        self.running()
        killed = []
        clock = fakes.FakeClock()
        found = runs.stop(self.store, 'r4', kill=killed.append,
                          owns=lambda pgid, run, project: run == 'r4',
                          sleep=clock.sleep, clock=clock)
        self.assertEqual([4242], killed)
        self.assertIn('r4/stop', self.kept.objects)
        self.assertEqual('STOPPED', found['status'])
        self.assertEqual(['STOPPED', 'STOPPED'],
                         [v['status'] for v in found['validations']])
        self.assertEqual(found, self.kept_json('r4/run.json'))

    def test_stop_kills_nothing_it_cannot_prove_is_the_run(self):
        self.running()
        self.running('r5', host='elsewhere')
        killed = []
        clock = fakes.FakeClock()
        for run_id in ('r4', 'r5'):
            runs.stop(self.store, run_id, kill=killed.append,
                      owns=lambda pgid, run, project: run != 'r4',
                      sleep=clock.sleep, clock=clock)
        self.assertEqual([], killed)

    def test_stop_refuses_an_ended_or_unknown_run(self):
        results.create(self.store, {'run': 'r6', 'status': 'PASSED',
                                    'validations': []})
        with self.assertRaisesRegex(exceptions.CommandError,
                                    r'already ended \(PASSED\)'):
            runs.stop(self.store, 'r6')
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'No validation run r7 in this project'):
            runs.stop(self.store, 'r7')
        with self.assertRaisesRegex(exceptions.CommandError,
                                    'give a run id'):
            runs.stop(self.store, '../p')


class TestResultsPages(fakes.HttpTestCase):
    """``results`` reads the runs last written, not every run ever."""

    def setUp(self):
        super().setUp()
        self.kept = fakes.FakeSwift(self.m, plan=results.CONTAINER)
        self.store = fakes.plan_store(workers=1)
        # run-00 written first ... run-09 last; odd ones of plan p
        for n in range(10):
            self.kept.store('run-%02d/run.json' % n, json.dumps({
                'run': 'run-%02d' % n, 'plan': 'p' if n % 2 else 'q',
                'started': '2026-11-26T06:%02d:00' % n}).encode())
            self.kept.store('run-%02d/check.json' % n, b'{}')

    def gets(self):
        return sorted(r.path.rsplit('/', 2)[-2] for r in self.m.request_history
                      if r.method == 'GET' and r.path.endswith('/run.json'))

    def test_the_last_written_only_each_read_once(self):
        found, more = results.runs(self.store, limit=3)
        self.assertEqual((['run-07', 'run-08', 'run-09'], True),
                         ([r['run'] for r in found], more))
        self.assertEqual(['run-07', 'run-08', 'run-09'], self.gets())

    def test_a_plans_runs_read_in_batches_until_enough(self):
        found, more = results.runs(self.store, plan='p', limit=3)
        self.assertEqual((['run-05', 'run-07', 'run-09'], True),
                         ([r['run'] for r in found], more))
        # two batches of 3: run-09..07, then run-06..04
        self.assertEqual(6, len(self.gets()))

    def test_all(self):
        found, more = results.runs(self.store)
        self.assertEqual((10, False), (len(found), more))
        found, more = results.runs(self.store, plan='p', limit=5)
        self.assertEqual((5, False), (len(found), more))


MODULE = b'''from ansible.module_utils.basic import AnsibleModule


def main():
    module = AnsibleModule(argument_spec={'word': {'type': 'str'}})
    module.exit_json(changed=False, said='up: %s' % module.params['word'])


main()
'''


class TestRunsWithTheContainersRoles(fakes.HttpTestCase):
    """A validation in tripleo-validations' form: its role and module
    from the container, mounted read-only in the sandbox."""

    def setUp(self):
        super().setUp()
        if runner.ansible_playbook() is None or shutil.which('bwrap') is None:
            self.skipTest('ansible-core or bubblewrap is not installed')
        self.installed = fakes.FakeSwift(self.m, plan=catalog.CONTAINER)
        fakes.FakeSwift(self.m, plan=results.CONTAINER)
        self.store = fakes.plan_store(workers=1)
        self.swift_info(bulk=False)
        cache = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, cache)
        self.inputs = {'endpoints': {}, 'support_cache': cache}
        self.installed.store('groups.yaml', GROUPS)
        for vid, role in (('up', 'up'), ('lost', 'nope')):
            self.installed.store('validation-playbooks/%s.yaml' % vid, (
                '- hosts: undercloud\n  gather_facts: false\n  vars:\n'
                '    metadata: {name: U, description: d, groups: [prep]}\n'
                '  roles: [%s]\n' % role).encode())
        self.installed.store('roles/up/tasks/main.yml', (
            b'- upmod: {word: hi}\n  register: found\n'
            b'- assert: {that: "found.said == \'up: hi\'"}\n'
            b'- name: The tree is read-only\n'
            b'  file: {path: "{{ role_path }}/written", state: touch}\n'
            b'  register: wrote\n  failed_when: wrote is succeeded\n'))
        self.installed.store('library/upmod.py', MODULE)

    def test_the_role_and_module_of_the_container_are_used(self):
        run, chosen = runs.start(self.store, request(names=['up', 'lost']),
                                 'r1')
        done = runs.execute(self.store, run, chosen, self.inputs.get, 120)
        self.assertEqual(['PASSED', 'ERROR'],
                         [v['status'] for v in done['validations']],
                         done['validations'])
        self.assertIn("the role 'nope' was not found",
                      done['validations'][1]['message'])
