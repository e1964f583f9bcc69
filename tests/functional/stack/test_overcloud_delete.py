"""overcloud delete through the real CLI against the loopback Heat,
Mistral and Swift (small templates): refused without -y and a terminal,
nothing touched; the plan exported first (the tarball restores the same
objects into another container), the stack deleted and waited for, the
plan kept with a ``delete`` step; then deleted with its plan."""

import json
import os
import subprocess

from tests.functional import deploy_base


class OvercloudDeleteTest(deploy_base.DeployTest):

    def test_export_keep_plan_then_delete(self):
        self.first_deploy()
        stack_id = self.stack()['id']
        proc = subprocess.run(
            ['openstack', 'overcloud', 'delete', self.plan, '-f', 'json'],
            env=self.env, capture_output=True, text=True,
            stdin=subprocess.DEVNULL)
        self.assertEqual(3, proc.returncode, proc.stderr)
        self.assertIn('pass -y', proc.stderr)
        self.assertEqual(('REFUSED', True), (
            json.loads(proc.stdout)['status'],
            'pass -y' in json.loads(proc.stdout)['reason']))
        self.assertEqual(stack_id, self.stack()['id'])

        objects = self.swift.listing(self.plan)
        steps = len(self.record()['history'])
        target = os.path.join(self.tmp, self.plan, 'export.tar.gz')
        row = self.openstack_json('overcloud', 'delete', self.plan, '-y',
                                  '--keep-plan', '--export-file', target)
        self.assertEqual(('SUCCESS', 'DELETE_COMPLETE', 'kept', target,
                          None), (
            row['status'], row['stack_status'], row['plan_status'],
            row['export_file'], row['reason']), row)
        self.assertIsNone(self.stack())
        history = self.record()['history']
        self.assertEqual(steps + 1, len(history))
        self.assertEqual(('delete', stack_id), (
            history[-1]['action'], history[-1]['outcome']['stack_id']))

        # The export restores what the plan held before the delete.
        copy = '%s-restored' % self.plan
        self.addCleanup(self.remove_container, copy)
        with open(target, 'rb') as f:
            status, _, body = self.swift.request(
                'PUT', '%s?extract-archive=tar.gz' % copy, data=f.read(),
                headers={'Accept': 'application/json'})
        self.assertEqual(200, status, body)
        self.assertEqual(objects, self.swift.listing(copy))

        # Deleted for good: no stack to delete, the plan goes.
        row = self.openstack_json('overcloud', 'delete', self.plan, '-y',
                                  '--no-export')
        self.assertEqual(('SUCCESS', 'deleted'),
                         (row['status'], row['plan_status']), row)
        self.assertIsNone(self.swift.listing(self.plan))

    def remove_container(self, name):
        for obj in self.swift.listing(name) or ():
            self.swift.request('DELETE', '%s/%s' % (name, obj))
        self.swift.request('DELETE', name)
