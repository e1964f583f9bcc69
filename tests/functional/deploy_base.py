"""A functional test that deploys small templates to the loopback Heat.

The templates are tiny (two TestResources) so that each stack operation
takes seconds; tests of every room deploy them (stack/test_deploy is the
story of deploy, update and upgrade).
"""

import json
import os
import subprocess
import time
import uuid

from tests.functional import base

TEMPLATES = {
    'overcloud.yaml': '''heat_template_version: rocky
parameters:
  AdminPassword: {type: string, hidden: true}
  Message: {type: string, default: hello}
  Extra: {type: string, default: ''}
  Wait: {type: number, default: 0}
  Fail: {type: boolean, default: false}
resources:
  one:
    type: OS::Heat::TestResource
    properties:
      value: {list_join: ['/', [{get_param: Message}, {get_param: Extra}]]}
      wait_secs: {get_param: Wait}
      fail: {get_param: Fail}
  two:
    type: OS::Small::Thing
outputs:
  value: {value: {get_attr: [one, output]}}
  password_length:
    value:
      yaql:
        expression: $.data.len()
        data: {get_param: AdminPassword}
''',
    'thing.yaml': '''heat_template_version: rocky
resources:
  r: {type: OS::Heat::RandomString}
''',
    'registry.yaml': 'resource_registry:\n  OS::Small::Thing: thing.yaml\n',
    'roles_data.yaml': '- name: Controller\n',
    'environments/lifecycle/update-prepare.yaml':
        'parameter_defaults:\n  Extra: update-prepare\n',
    'environments/lifecycle/upgrade-prepare.yaml':
        'parameter_defaults:\n  Extra: upgrade-prepare\n',
}


class DeployTest(base.FunctionalTest):

    TEMPLATES = TEMPLATES

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.templates = base.write_tree(os.path.join(cls.tmp, 'templates'),
                                        cls.TEMPLATES)
        cls.registry = os.path.join(cls.templates, 'registry.yaml')
        cls.heat_http = base.Swift(cls.env['LOOPBACK_HEAT_URL'], cls.session)

    def setUp(self):
        super().setUp()
        self.plan = 'dep-%s' % uuid.uuid4().hex[:8]
        self.mine = self.write('%s/mine.yaml' % self.plan,
                               'parameter_defaults:\n  Message: mine\n')
        self.addCleanup(self.delete_all)

    def heat(self, method, path):
        status, _, body = self.heat_http.request(
            method, path, headers={'Accept': 'application/json'})
        return status, (json.loads(body) if body else None)

    def stack(self):
        # Heat redirects a name to name/id; urllib follows.
        status, body = self.heat('GET', 'stacks/%s' % self.plan)
        return body['stack'] if status == 200 else None

    def outputs(self):
        return {o['output_key']: o['output_value']
                for o in self.stack()['outputs']}

    def wait_stack(self, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            stack = self.stack()
            if stack is None or not stack['stack_status'].endswith(
                    '_IN_PROGRESS'):
                return stack
            time.sleep(1)
        self.fail('stack %s still busy after %d s' % (self.plan, timeout))

    def delete_all(self):
        stack = self.wait_stack()
        if stack is not None:
            self.heat('DELETE', 'stacks/%s/%s' % (self.plan, stack['id']))
            deadline = time.monotonic() + 120
            while self.stack() is not None and time.monotonic() < deadline:
                time.sleep(1)
        # On the 3-replica Swift with an object server down, a replica may
        # still list deleted objects for a while: the command then says
        # its objects are deleted and to run it again.
        for attempt in range(3):
            if self.swift.listing(self.plan) is None:
                return
            proc = subprocess.run(
                ['openstack', 'overcloud', 'plan', 'delete', '-y', self.plan],
                capture_output=True, text=True, env=self.env,
                stdin=subprocess.DEVNULL, timeout=600)
            if proc.returncode == 0:
                return
            self.assertIn('run the command again', proc.stderr)
            time.sleep(10)
        self.fail('plan %s still there after three deletes: %s'
                  % (self.plan, proc.stderr))

    def record(self):
        return self.plan_record(self.plan)

    def deploy(self, *args):
        return self.openstack_json('overcloud', 'deploy', '--stack',
                                   self.plan, *args)

    def first_deploy(self):
        return self.deploy('--templates', self.templates, '-e',
                           self.registry, '-e', self.mine)
