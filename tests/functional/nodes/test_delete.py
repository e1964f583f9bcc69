"""overcloud node delete and overcloud delete --unprovision through the
real CLI, against the loopback Ironic (fake hardware), Heat, Mistral and
Swift: three Computes provisioned into a plan of small templates whose
role is a ResourceGroup the THT way (tests/functional/fixtures/
scale-templates), deployed; the middle one deleted; the two others keep
their name, index and address in Heat, and a later update (Heat asked)
brings nothing back; a Mistral client's own request the same; then the
overcloud deleted with its nodes.
"""

import json
import os
import subprocess
import time
import uuid

import yaml

from tests.functional import base

ENVIRONMENT = 'baremetal-environment.yaml'
TEMPLATES = os.path.join(os.path.dirname(__file__), '..', 'fixtures',
                         'scale-templates')


class NodeDeleteTest(base.FunctionalTest):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        from tripleoplanclient.nodes import ironic
        cls.ironic = ironic.Ironic(cls.session, base.ironic_url(cls.env))
        # the servers' login key (no ~/.ssh on a CI machine)
        cls.key = os.path.join(cls.tmp, 'id_ed25519')
        subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '',
                        '-f', cls.key], check=True)

    def setUp(self):
        super().setUp()
        self.plan = 'scale-%s' % uuid.uuid4().hex[:8]
        self.rc = 'tpc-scale-%s' % uuid.uuid4().hex[:8]
        self.addCleanup(subprocess.run, [
            'openstack', 'overcloud', 'plan', 'delete', '-y', self.plan],
            env=self.env, capture_output=True)
        self.addCleanup(subprocess.run, [
            'openstack', 'stack', 'delete', '--wait', '-y', self.plan],
            env=self.env, capture_output=True)
        self.nodes = [self.node() for _ in range(3)]

    def wait(self, node, state, timeout=60, field='provision_state'):
        deadline = time.monotonic() + timeout
        while True:
            got = self.ironic.node(node)
            if got[field] == state:
                return got
            self.assertLess(time.monotonic(), deadline, got)
            time.sleep(0.2)

    def node(self):
        node = self.ironic.create_node({
            'name': 'tpc-scale-%s' % uuid.uuid4().hex[:12],
            'driver': 'fake-hardware', 'resource_class': self.rc,
            'inspect_interface': 'no-inspect'})['uuid']
        self.addCleanup(self.remove, node)
        self.ironic.provision(node, 'manage')
        self.wait(node, 'manageable')
        self.ironic.power(node, 'power off')
        self.wait(node, None, field='target_power_state')
        self.ironic.provision(node, 'provide')
        self.wait(node, 'available')
        return node

    def remove(self, node):
        got = self.ironic.node(node)
        if got['provision_state'] == 'active':
            self.ironic.provision(node, 'deleted')
            got = self.wait(node, 'available')
        if got['provision_state'] == 'available':
            self.ironic.provision(node, 'manage')
            self.wait(node, 'manageable')
        self.ironic.delete_node(node)

    def outputs(self):
        out = {}
        for key in ('servers', 'addresses'):
            out[key] = self.openstack_json('stack', 'output', 'show',
                                           self.plan, key)['output_value']
        return out

    def history(self):
        return self.plan_record(self.plan)['history']

    def test_delete_the_middle_one_then_the_overcloud(self):
        bm = self.write('%s/bm.yaml' % self.plan, yaml.safe_dump([{
            'name': 'Compute', 'count': 3,
            'defaults': {'resource_class': self.rc}}]))
        self.openstack('overcloud', 'plan', 'create', self.plan,
                       '--templates', TEMPLATES, '-e',
                       os.path.join(TEMPLATES, 'registry.yaml'))
        rows = self.openstack_json('overcloud', 'node', 'provision',
                                   '--stack', self.plan, bm,
                                   '--overcloud-ssh-key', self.key + '.pub')
        node_of = {r['hostname']: r['node'] for r in rows}
        deployed = self.openstack_json('overcloud', 'deploy', '--stack',
                                       self.plan)
        self.assertEqual('CREATE_COMPLETE', deployed['stack_status'])
        host = ['%s-novacompute-%d' % (self.plan, i) for i in range(3)]
        before = self.outputs()
        self.assertEqual({str(i): host[i] for i in range(3)},
                         before['servers'])
        self.assertEqual(3, len(set(before['addresses'].values())))
        steps = len(self.history())

        # An unknown name: refused, every server named, nothing changed.
        proc = subprocess.run(
            ['openstack', 'overcloud', 'node', 'delete', '--stack',
             self.plan, '-y', host[1], 'Compute/7', '-f', 'json'],
            env=self.env, capture_output=True, text=True)
        self.assertEqual(3, proc.returncode, proc.stderr)
        self.assertIn('no server Compute/7', proc.stderr)
        self.assertIn('Compute/1 (%s)' % host[1], proc.stderr)
        self.assertIn('no server Compute/7', json.loads(proc.stdout)['reason'])
        self.assertEqual(steps, len(self.history()))

        # The middle one, by its node's name: one update step.
        row = self.openstack_json('overcloud', 'node', 'delete', '--stack',
                                  self.plan, '-y', node_of[host[1]])
        self.assertEqual(('SUCCESS', None), (row['status'], row['reason']),
                         row)
        self.assertEqual([('Compute', 1, host[1], 'available')], [
            (s['role'], s['index'], s['hostname'], s['state'])
            for s in row['servers']])
        after = self.outputs()
        self.assertEqual({k: {i: v for i, v in before[k].items()
                              if i != '1'} for k in before}, after)
        history = self.history()
        self.assertEqual(steps + 1, len(history))
        self.assertEqual(('update', row['step']), (history[-1]['action'],
                                                   history[-1]['id']))
        self.assertIn('node delete', history[-1]['command'])
        values = yaml.safe_load(self.swift.get(self.plan, ENVIRONMENT))[
            'parameter_defaults']
        self.assertEqual((2, [{'resource_list': ['1']}]), (
            values['ComputeCount'], values['ComputeRemovalPolicies']))
        released = self.ironic.node(node_of[host[1]])
        self.assertEqual(('available', None), (
            released['provision_state'], released['instance_uuid']))
        self.assertNotIn('tripleoplan', released['extra'])

        # A later update that Heat walks: nothing back, nothing renamed.
        extra = self.write('%s/extra.yaml' % self.plan,
                           'parameter_defaults: {ComputeRemovalPolicies'
                           'Mode: append}\n')
        updated = self.openstack_json('overcloud', 'update', '--stack',
                                      self.plan, '-y', '-e', extra)
        self.assertEqual(('SUCCESS', 'UPDATE'), (updated['status'],
                                                 updated['operation']))
        self.assertEqual(after, self.outputs())

        # What a GUI does: the workflow with a request of its own, by
        # Role/index; the same rules.
        from tripleoplanclient import protocol
        _, shown = self.gui_workflow('node_delete', protocol.request(
            'node_delete', container=self.plan, nodes=['Compute/2']))
        self.assertEqual('SUCCESS', shown['State'])
        self.assertEqual({k: {'0': v['0']} for k, v in after.items()},
                         self.outputs())
        self.assertEqual('available', self.ironic.node(node_of[host[2]])[
            'provision_state'])
        values = yaml.safe_load(self.swift.get(self.plan, ENVIRONMENT))[
            'parameter_defaults']
        self.assertEqual((1, [{'resource_list': ['1', '2']}]), (
            values['ComputeCount'], values['ComputeRemovalPolicies']))

        # The overcloud deleted with its nodes: stack and plan gone.
        row = self.openstack_json('overcloud', 'delete', self.plan, '-y',
                                  '--unprovision', '--no-export')
        self.assertEqual(('SUCCESS', 'DELETE_COMPLETE', 'deleted', None), (
            row['status'], row['stack_status'], row['plan_status'],
            row['export_file']), row)
        self.assertIsNone(self.swift.listing(self.plan))
        got = self.ironic.node(node_of[host[0]])
        self.assertEqual(('available', None), (
            got['provision_state'], got['instance_uuid']))
        self.assertNotIn('tripleoplan', got['extra'])
