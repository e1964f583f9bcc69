"""Plan commands that look at Heat (the loopback Heat, no Keystone)."""

import json
import os
import time
import uuid

from tests.functional import base


class TestDeleteWithStack(base.FunctionalTest):

    def heat(self, method, path, body=None):
        url = self.env['LOOPBACK_HEAT_URL'].rstrip('/')
        heat = base.Swift(url, self.session)   # plain JSON over HTTP
        data = json.dumps(body).encode() if body is not None else None
        return heat.request(method, path, data=data, headers={
            'Content-Type': 'application/json',
            'Accept': 'application/json'})

    def wait_gone(self, name, timeout=300):
        # generous: Heat's engine is shared with the other worker's stacks
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status, _, _ = self.heat('GET', 'stacks/%s' % name)
            if status == 404:
                return
            time.sleep(0.5)
        self.fail('stack %s still there after %d s' % (name, timeout))

    def test_delete_refuses_while_the_stack_exists(self):
        templates = base.write_tree(os.path.join(self.tmp, 't'), {
            'overcloud.yaml': 'heat_template_version: wallaby\n'})
        plan = 'stacked-%s' % uuid.uuid4().hex[:8]
        self.openstack('overcloud', 'plan', 'create', plan, '--templates',
                       templates, '--no-render')
        status, _, body = self.heat('POST', 'stacks', {
            'stack_name': plan, 'template': {
                'heat_template_version': 'wallaby',
                'resources': {'r': {'type': 'OS::Heat::RandomString'}}}})
        self.assertEqual(201, status, body)
        stack_id = json.loads(body)['stack']['id']
        try:
            before = self.snapshot(plan)
            self.fail_with('Stack %s exists: delete the stack before its '
                           'plan' % plan, 'overcloud', 'plan', 'delete',
                           '-y', plan)
            self.assertEqual(before, self.snapshot(plan))
        finally:
            self.heat('DELETE', 'stacks/%s/%s' % (plan, stack_id))
            self.wait_gone(plan)
        self.openstack('overcloud', 'plan', 'delete', '-y', plan)
        self.assertIsNone(self.swift.listing(plan))
