"""The real thing: tripleo-heat-templates 18.0.0 through deploy and update.

Deployed servers (1 controller, 1 compute), rendered in Mistral, created
and then updated by the loopback Heat: several minutes. Deleting that stack
takes Heat minutes more, so the test only starts the delete; the next run
finishes it and removes the plan (a fixed name) before it begins.
"""

import json
import os
import subprocess
import time

import yaml

from tests.functional import base

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        'fixtures')
UPDATE_PREPARE = 'environments/lifecycle/update-prepare.yaml'
PLAN = 'tht-story'


def _strings(data):
    if isinstance(data, dict):
        for key, value in data.items():
            yield str(key)
            yield from _strings(value)
    elif isinstance(data, list):
        for value in data:
            yield from _strings(value)
    else:
        yield str(data)


class TestTHTDeployUpdate(base.FunctionalTest):

    def setUp(self):
        super().setUp()
        self.tht = base.tht_dir()
        self.plan = PLAN
        self.remove(wait=True)
        self.addCleanup(self.remove, wait=False)

    def remove(self, wait):
        subprocess.run(['openstack', 'stack', 'delete', '-y', self.plan] +
                       (['--wait'] if wait else []), env=self.env,
                       capture_output=True, timeout=900)
        if wait:
            subprocess.run(['openstack', 'overcloud', 'plan', 'delete', '-y',
                            self.plan], env=self.env, capture_output=True)
            self.assertIsNone(self.swift.listing(self.plan))

    def test_deploy_then_update_without_environment_files(self):
        own = [os.path.join(FIXTURES, name) for name in (
            'tht18-deployed-server.yaml', 'tht18-container-images.yaml')]
        args = ['overcloud', 'deploy', '--stack', self.plan, '--templates',
                self.tht, '-e', os.path.join(
                    self.tht, 'overcloud-resource-registry-puppet.yaml')]
        for path in own:
            args += ['-e', path]
        started = time.monotonic()
        created = self.openstack_json(*args)
        created_s = time.monotonic() - started
        environments = ['overcloud-resource-registry-puppet.yaml'] + [
            'user-files' + path for path in own]
        self.assertEqual(('CREATE', 'CREATE_COMPLETE', 'SUCCESS'), (
            created['operation'], created['stack_status'],
            created['status']))
        self.assertEqual(environments, created['environments'])
        self.assertTrue(created['rendered'])

        started = time.monotonic()
        updated = self.openstack_json('overcloud', 'update', '--stack',
                                      self.plan, '-y')
        updated_s = time.monotonic() - started
        self.assertEqual(('UPDATE', 'UPDATE_COMPLETE', 'SUCCESS'), (
            updated['operation'], updated['stack_status'],
            updated['status']))
        self.assertEqual(environments + [UPDATE_PREPARE],
                         updated['environments'])
        self.assertEqual(created['stack_id'], updated['stack_id'])
        self.assertFalse(updated['rendered'])

        history = self.openstack_json('overcloud', 'plan', 'show-history',
                                      self.plan)
        self.assertEqual(['create', 'deploy', 'update'],
                         [s['action'] for s in history])
        self.assertEqual(['SUCCESS'] * 3,
                         [s['outcome']['status'] for s in history])
        self.assertEqual(['CREATE_COMPLETE', 'UPDATE_COMPLETE'],
                         [s['outcome']['stack_status'] for s in history[1:]])
        self.assertEqual(environments + [UPDATE_PREPARE],
                         history[-1]['environments'])
        # The update step names its lifecycle file; the plan's list does
        # not keep it.
        record = self.plan_record(self.plan)
        self.assertEqual(UPDATE_PREPARE, record['history'][2]['lifecycle'])
        # The deploy began with the plan's create step, which rendered.
        self.assertEqual({'step': history[0]['id'], 'rendered': True},
                         record['history'][1]['plan_created'])
        self.assertEqual(environments, record['environments'])
        # Heat has every generated password only as a hidden parameter of
        # the stack's environment: in no file of the stack, masked there.
        passwords = yaml.safe_load(self.swift.get(
            self.plan, 'plan-environment.yaml'))['passwords']
        self.assertIn('AdminPassword', passwords)
        heat = base.Swift(self.env['LOOPBACK_HEAT_URL'])
        where = 'stacks/%s/%s/' % (self.plan, created['stack_id'])
        seen = {}
        for part in ('files', 'environment'):
            status, _, body = heat.request(
                'GET', where + part, headers={'Accept': 'application/json'})
            self.assertEqual(200, status)
            seen[part] = json.loads(body)
        self.assertEqual('******', seen['environment'][
            'parameter_defaults']['AdminPassword'])
        # Every string in them, decoded (keys hold newlines).
        seen = {part: '\n'.join(_strings(data))
                for part, data in seen.items()}
        self.assertEqual([], [name for name, value in passwords.items()
                              if str(value) in seen['files']])
        # Only those the stack's templates declare reach it (hidden, so
        # masked), but one THT 18 declares a plain string (an id).
        self.assertLessEqual(set(
            name for name, value in passwords.items()
            if str(value) in seen['environment']), {'CephClusterFSID'})
        print(json.dumps({'create_s': round(created_s),
                          'update_s': round(updated_s)}))
