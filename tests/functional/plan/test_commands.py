"""``openstack overcloud plan`` against real Swift and THT 18.0.0."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import uuid

import yaml

from tests.functional import base

STEPS = 'user-environments/log/'
NETWORKS = 'network-data-samples/default-network-isolation.yaml'


class TestPlanLifeCycle(base.FunctionalTest):
    """One THT 18.0.0 plan, created once, amended by the tests in order."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tht = base.tht_dir()
        cls.plan = 'func-%s' % uuid.uuid4().hex[:8]
        own = os.path.join(cls.tmp, 'own')
        os.makedirs(os.path.join(own, 'scripts'))
        with open(os.path.join(own, 'scripts', 'hello.sh'), 'w') as f:
            f.write('#!/bin/sh\necho hello\n')
        with open(os.path.join(own, 'hello.yaml'), 'w') as f:
            f.write('heat_template_version: wallaby\nresources:\n'
                    '  config:\n    type: OS::Heat::SoftwareConfig\n'
                    '    properties:\n'
                    '      config: {get_file: scripts/hello.sh}\n')
        cls.own_env = os.path.join(own, 'own-env.yaml')
        with open(cls.own_env, 'w') as f:
            f.write('# operator settings\nresource_registry:\n'
                    '  OS::TripleO::NodeExtraConfigPost: ./hello.yaml\n'
                    '  OS::TripleO::Services::Ptp: %s/deployment/time/'
                    'ptp-baremetal-ansible.yaml\n'
                    'parameter_defaults:\n  NtpServer: [pool.ntp.org]\n'
                    % cls.tht)
        cls.roles = os.path.join(own, 'roles.yaml')
        with open(os.path.join(cls.tht, 'roles_data.yaml')) as f:
            roles = yaml.safe_load(f)
        with open(cls.roles, 'w') as f:
            yaml.safe_dump([r for r in roles
                            if r['name'] in ('Controller', 'Compute')], f)
        cls.created = subprocess.run(
            ['openstack', 'overcloud', 'plan', 'create', cls.plan,
             '--templates', cls.tht,
             '-e', os.path.join(cls.tht, 'environments', 'docker-ha.yaml'),
             '-e', os.path.join(cls.tht, 'environments',
                                'network-environment.yaml'),
             '-e', cls.own_env, '-r', cls.roles, '-n', os.path.join(
                 cls.tht, NETWORKS), '-f', 'json'],
            capture_output=True, text=True, env=cls.env,
            stdin=subprocess.DEVNULL, timeout=600)

    @classmethod
    def tearDownClass(cls):
        subprocess.run(['openstack', 'overcloud', 'plan', 'delete', '-y',
                        cls.plan], capture_output=True, env=cls.env)
        super().tearDownClass()

    def record(self):
        return self.plan_record(self.plan)

    def user_path(self, local):
        return 'user-files' + local

    def test_01_create_stores_everything_in_one_container(self):
        self.assertEqual(0, self.created.returncode, self.created.stderr)
        result = json.loads(self.created.stdout)
        own = self.user_path(self.own_env)
        self.assertEqual(['environments/docker-ha.yaml',
                          'environments/network-environment.yaml', own],
                         result['environments'])
        listing = self.swift.listing(self.plan)
        status, headers, _ = self.swift.request('HEAD', self.plan)
        self.assertEqual('plan',
                         headers.get('X-Container-Meta-Usage-Tripleo'))
        # The whole templates tree, byte for byte, at its relative paths.
        local = {}
        for top, dirs, names in os.walk(self.tht):
            # Build metadata of the sdist is not part of the templates.
            dirs[:] = [d for d in dirs if not d.endswith('.egg-info')]
            for name in names:
                path = os.path.join(top, name)
                with open(path, 'rb') as f:
                    local[os.path.relpath(path, self.tht)] = (
                        hashlib.md5(f.read()).hexdigest())
        for path, md5 in local.items():
            self.assertEqual(md5, listing.get(path), path)
        # User files, and what they reference, under user-files/.
        for path in (own, self.user_path(self.roles),
                     self.user_path(os.path.join(os.path.dirname(
                         self.own_env), 'hello.yaml')),
                     self.user_path(os.path.join(os.path.dirname(
                         self.own_env), 'scripts', 'hello.sh'))):
            self.assertIn(path, listing)
        # + the 4 user files + plan-environment.yaml with the generated
        # passwords (THT 18 has none of its own).
        self.assertNotIn('plan-environment.yaml', local)
        self.assertEqual(result['added'], len(local) + 5)
        plan_env = yaml.safe_load(self.swift.get(self.plan,
                                                 'plan-environment.yaml'))
        self.assertIn('KeystoneFernetKeys', plan_env['passwords'])
        stored = yaml.safe_load(self.swift.get(self.plan, own))
        reg = stored['resource_registry']
        self.assertEqual('./hello.yaml',
                         reg['OS::TripleO::NodeExtraConfigPost'])
        # The absolute THT path became a plan path relative to the copy.
        target = os.path.normpath(os.path.join(
            os.path.dirname(own), reg['OS::TripleO::Services::Ptp']))
        self.assertEqual('deployment/time/ptp-baremetal-ansible.yaml',
                         target)
        rec = self.record()
        self.assertEqual(result['environments'], rec['environments'])
        self.assertEqual(self.user_path(self.roles),
                         rec['inputs']['roles_data'])
        self.assertEqual(self.own_env, rec['files'][own]['source'])
        self.assertEqual(['create'], [s['action'] for s in rec['history']])
        self.assertEqual(result['id'], rec['history'][0]['id'])
        self.assertEqual([result['id']], [
            n.rsplit('-', 1)[1][:-len('.yaml')] for n in listing
            if n.startswith(STEPS)])

    def test_01b_rendered_in_swift_as_by_thts_own_renderer(self):
        self.assertEqual(0, self.created.returncode, self.created.stderr)
        copy = os.path.join(self.tmp, 'tht-copy')
        shutil.copytree(self.tht, copy)
        shutil.copy(self.roles, os.path.join(copy, 'plan-roles.yaml'))
        before = base.read_tree(copy)
        ran = subprocess.run(
            [sys.executable, os.path.join(copy, 'tools',
                                          'process-templates.py'),
             '-p', copy, '-r', 'plan-roles.yaml', '-n', NETWORKS],
            capture_output=True, text=True)
        self.assertEqual(0, ran.returncode, ran.stderr)
        after = base.read_tree(copy)
        theirs = {p: d for p, d in after.items() if before.get(p) != d}
        self.assertIn('puppet/controller-role.yaml', sorted(theirs))
        self.assertIn('environments/network-environment.yaml',
                      sorted(theirs))
        self.assertNotIn('puppet/cephstorage-role.yaml', sorted(theirs))
        for path, data in theirs.items():
            self.assertEqual(data, self.swift.get(self.plan, path), path)
        record = self.record()
        self.assertEqual('SUCCESS', record['history'][0]['render']['state'])
        self.assertTrue(record['history'][0]['render']['execution'])
        self.assertEqual(len(theirs),
                         record['history'][0]['render']['outputs'])

    def test_02_create_of_an_existing_plan_is_refused(self):
        before = self.snapshot(self.plan)
        self.fail_with('already exists', 'overcloud', 'plan', 'create',
                       self.plan, '--templates', self.tht)
        self.assertEqual(before, self.snapshot(self.plan))

    def test_03_amend_adds_updates_in_place_and_removes(self):
        extra = self.write('extra.yaml', 'parameter_defaults:\n  A: 1\n')
        result = self.openstack_json('overcloud', 'plan', 'amend', self.plan,
                                     '-e', extra)
        self.assertEqual(2, [s['id'] for s in self.record()['history']]
                         .index(result['id']) + 1)
        self.assertEqual(1, result['added'])
        envs = result['environments']
        self.assertEqual(self.user_path(extra), envs[-1])
        # The same files again, the first one changed: updated in place.
        with open(self.own_env, 'a') as f:
            f.write('  NtpPool: 1\n')
        result = self.openstack_json('overcloud', 'plan', 'amend', self.plan,
                                     '-e', extra, '-e', self.own_env)
        self.assertEqual(envs, result['environments'])
        self.assertEqual((0, 1), (result['added'], result['changed']))
        stored = self.swift.get(self.plan, self.user_path(self.own_env))
        self.assertIn(b'NtpPool: 1', stored)
        # Nothing changed: no step.
        before = self.snapshot(self.plan)
        result = self.openstack_json('overcloud', 'plan', 'amend', self.plan,
                                     '-e', extra)
        self.assertEqual('UNCHANGED', result['status'])
        self.assertEqual(before, self.snapshot(self.plan))
        result = self.openstack_json(
            'overcloud', 'plan', 'amend', self.plan,
            '--remove-environment', 'environments/docker-ha.yaml')
        self.assertEqual(envs[1:], result['environments'])
        self.assertIn('environments/docker-ha.yaml',
                      self.swift.listing(self.plan))

    def test_04_upload_file(self):
        cert = self.write('cert.pem', 'PEM\n')
        self.openstack_json('overcloud', 'plan', 'amend', self.plan,
                            '--upload-file', cert + '=ssl/overcloud.pem',
                            '--upload-file', cert)
        self.assertEqual(b'PEM\n',
                         self.swift.get(self.plan, 'ssl/overcloud.pem'))
        self.assertEqual(b'PEM\n',
                         self.swift.get(self.plan, self.user_path(cert)))

    def test_05_show_history_parses(self):
        history = self.openstack_json('overcloud', 'plan', 'show-history',
                                      self.plan)
        self.assertEqual(['create', 'amend', 'amend', 'amend', 'amend'],
                         [s['action'] for s in history])
        self.assertEqual(list(range(1, 6)), [s['step'] for s in history])
        self.assertEqual(5, len({s['id'] for s in history}))
        for step in history:
            self.assertEqual({'status': 'SUCCESS'}, step['outcome'])
            self.assertRegex(step['time'], r'^\d{4}-\d\d-\d\dT.*Z$')
            self.assertIsInstance(step['environments'], list)

    def test_06_concurrent_amends_lose_no_step(self):
        a = self.write('conc-a.yaml', 'parameter_defaults: {A: 1}\n')
        b = self.write('conc-b.yaml', 'parameter_defaults: {B: 1}\n')
        procs = [subprocess.Popen(
            ['openstack', 'overcloud', 'plan', 'amend', self.plan, '-e', f,
             '-f', 'json'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=self.env) for f in (a, b)]
        ids = []
        for p in procs:
            out, err = p.communicate(timeout=300)
            self.assertEqual(0, p.returncode, err)
            ids.append(json.loads(out)['id'])
        rec = self.record()
        self.assertEqual(7, len(rec['history']))
        self.assertEqual(list(range(1, 8)),
                         [s['step'] for s in rec['history']])
        self.assertEqual(sorted(ids), sorted(s['id'] for s in
                                             rec['history'][-2:]))
        for f in (a, b):
            self.assertIn(self.user_path(f), rec['environments'])

    def test_07_export_holds_the_whole_container(self):
        out = os.path.join(self.tmp, 'plan.tar.gz')
        result = self.openstack_json('overcloud', 'plan', 'export',
                                     self.plan, '--output-file', out)
        listing = self.swift.listing(self.plan)
        self.assertEqual(len(listing), result['objects'])
        with tarfile.open(out) as tar:
            names = tar.getnames()
            steps = {n: tar.extractfile(n).read() for n in names
                     if n.startswith(STEPS)}
        self.assertEqual(sorted(listing), sorted(names))
        self.assertEqual(7, len(steps))
        # the columns of export --step: the current step's, the last in
        # the record's order (Swift's timestamps of the step objects, not
        # their names: the names carry the time each writer made its step,
        # and test_06's two amends may land in the other order)
        self.assertEqual(7, result['step'])
        self.assertEqual(self.record()['history'][-1]['id'], result['id'])
        self.assertEqual(1, len([n for n in steps if result['id'] in n]))
        for name, data in steps.items():
            self.assertEqual(self.swift.get(self.plan, name), data)
        err = self.fail_with('exists; pass --force-overwrite', 'overcloud',
                             'plan', 'export', self.plan, '--output-file',
                             out)
        self.assertIn(out, err)
        self.openstack('overcloud', 'plan', 'export', self.plan,
                       '--output-file', out, '--force-overwrite')

    def test_08_list_shows_the_plan(self):
        plans = self.openstack_json('overcloud', 'plan', 'list')
        self.assertIn(self.plan, [p['Plan'] for p in plans])
