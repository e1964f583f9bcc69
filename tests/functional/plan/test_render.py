"""Rendering in the real Mistral: when it runs, failures, stale outputs."""

import hashlib
import os
import subprocess
import uuid


from tests.functional import base
from tripleoplanclient import protocol


class TestRenderInMistral(base.FunctionalTest):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.templates = base.write_tree(os.path.join(cls.tmp, 'templates'), {
            'roles_data.yaml': '- name: Controller\n- name: Compute\n'
                               '- name: Storage\n',
            'puppet/role.role.j2.yaml': 'role: {{role.name}}\n',
            'overcloud.j2.yaml':
                'roles: [{% for r in roles %}{{r.name}},{% endfor %}]\n',
            'deployment/a.yaml': 'heat_template_version: wallaby\n'})
        cls.plan = 'render-%s' % uuid.uuid4().hex[:8]
        cls.created = subprocess.run(
            ['openstack', 'overcloud', 'plan', 'create', cls.plan,
             '--templates', cls.templates, '-f', 'json'],
            env=cls.env, capture_output=True, text=True)

    @classmethod
    def tearDownClass(cls):
        subprocess.run(['openstack', 'overcloud', 'plan', 'delete', '-y',
                        cls.plan], env=cls.env, capture_output=True)
        super().tearDownClass()

    def record(self):
        return self.plan_record(self.plan)

    def test_00_workbook_install_is_idempotent_and_checks_actions(self):
        result = self.openstack_json('overcloud', 'workbook', 'install')
        self.assertEqual('unchanged', result['status'])
        self.assertEqual(protocol.PROTOCOL, result['actions_protocol'])
        self.assertEqual(result['protocol'], result['actions_protocol'])

    def test_01_create_renders_in_mistral(self):
        self.assertEqual(0, self.created.returncode, self.created.stderr)
        # the execution's id once, in a line about the plan
        started = [base.started_execution(line)
                   for line in self.created.stderr.splitlines()]
        self.assertEqual(1, len(set(filter(None, started))), started)
        self.assertIn('plan %s: started in Mistral (execution '
                      % self.plan, self.created.stderr)
        self.assertEqual(b'role: Compute',
                         self.swift.get(self.plan, 'puppet/compute-role.yaml'))
        self.assertEqual(b'roles: [Controller,Compute,Storage,]',
                         self.swift.get(self.plan, 'overcloud.yaml'))
        render = self.record()['history'][0]['render']
        self.assertEqual(('SUCCESS', 4), (render['state'], render['outputs']))

    def test_02_no_render_when_no_rendering_input_changed(self):
        env = self.write('plain.yaml', 'parameter_defaults: {A: 1}\n')
        out, err = self.openstack('overcloud', 'plan', 'amend', self.plan,
                                  '-e', env)
        # Recorded by the plan_amend action on its own (one request), no
        # workflow and no render.
        self.assertRegex(err, r'Amending plan %s: done in [0-9.]+ s'
                         % self.plan)
        self.assertNotIn('execution', err)
        self.assertNotIn('Rendered', err)
        self.assertNotIn('render', self.record()['history'][-1])

    def test_03_failed_render_is_recorded_with_what_swift_holds(self):
        before = self.record()
        # --upload-file takes any bytes: the render in Mistral finds out.
        broken = self.write('broken-roles.yaml', '- name: [\n')
        out, err = self.openstack('overcloud', 'plan', 'amend', self.plan,
                                  '--upload-file', broken + '=roles_data.yaml',
                                  fail=True)
        self.assert_not_done(out, 'FAILED')
        self.assertIn('FAILED', err)
        self.assertIn('roles_data.yaml is not valid YAML', err)
        after = self.record()
        for key in ('environments', 'inputs'):
            self.assertEqual(before[key], after[key], key)
        # The uploaded file is in Swift: the record says so, and the next
        # command compares with it.
        self.assertEqual(hashlib.md5(b'- name: [\n').hexdigest(),
                         after['files']['roles_data.yaml']['md5'])
        self.assertEqual(before['history'], after['history'][:-1])
        failed = after['history'][-1]
        self.assertEqual('FAILED', failed['outcome']['status'])
        self.assertEqual('ERROR', failed['render']['state'])
        self.assertIn('not valid YAML', failed['render']['info'])
        # The rendered objects of the last good render are still there.
        self.assertEqual(b'role: Compute',
                         self.swift.get(self.plan, 'puppet/compute-role.yaml'))

    def test_04_rerun_converges_and_removes_stale_outputs(self):
        fixed = self.write('fewer-roles.yaml',
                           '- name: Controller\n- name: Compute\n')
        result = self.openstack_json('overcloud', 'plan', 'amend', self.plan,
                                     '--upload-file',
                                     fixed + '=roles_data.yaml')
        self.assertEqual('SUCCESS', result['status'])
        render = self.record()['history'][-1]['render']
        self.assertEqual(('SUCCESS', 1), (render['state'], render['removed']))
        listing = self.swift.listing(self.plan)
        self.assertNotIn('puppet/storage-role.yaml', listing)
        self.assertIn('puppet/controller-role.yaml', listing)
        self.assertEqual(b'roles: [Controller,Compute,]',
                         self.swift.get(self.plan, 'overcloud.yaml'))

    def test_05_mistral_down_is_a_clear_error_before_any_write(self):
        env = self.cloud_env(
            'nomistral', workflow_endpoint_override='http://127.0.0.1:9/v2',
            workflowv2_endpoint_override='http://127.0.0.1:9/v2')
        plan = 'nomistral-%s' % uuid.uuid4().hex[:8]
        out, err = self.openstack('overcloud', 'plan', 'create', plan,
                                  '--templates', self.templates,
                                  fail=True, env=env)
        self.assertIn('Mistral is unreachable at http://127.0.0.1:9/v2', err)
        self.assertIsNone(self.swift.listing(plan))
