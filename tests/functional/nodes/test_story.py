"""The node story of issue 29 through the real ``openstack`` CLI: a
nodes.json of three fake-hardware nodes, refused with every mistake
named, then imported; introspected (the test plays the ramdisk agent,
the one place it speaks REST as the hardware would); tagged, listed,
provided; one controller and one compute provisioned into a small plan,
deployed on, unprovisioned. Each bad input on the way (the nodes file, a
baremetal file, more nodes than there are) leaves Ironic as it was.

The nodes have names, MACs and a resource class of their own (the
loopback Ironic is shared by two test workers): allocation sees only
them. Skipped when Ironic does not answer.
"""

import json
import os
import subprocess
import threading
import time
import uuid

import yaml

from tests.functional import base
from tests.functional import deploy_base
from tests.functional import ironic_base

ENVIRONMENT = 'baremetal-environment.yaml'
# deploy_base's small templates, with the deployed-server parameters the
# provisioned environment sets: a resource per server, the hostnames out
TEMPLATES = dict(deploy_base.TEMPLATES, **{'overcloud.yaml': '''\
heat_template_version: rocky
parameters:
  AdminPassword: {type: string, hidden: true}
  ControllerCount: {type: number, default: 0}
  ComputeCount: {type: number, default: 0}
  HostnameMap: {type: json, default: {}}
  NodePortMap: {type: json, default: {}}
resources:
  controllers:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: ControllerCount}
      resource_def:
        type: OS::Heat::TestResource
        properties: {value: controller-%index%}
  computes:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: ComputeCount}
      resource_def:
        type: OS::Heat::TestResource
        properties: {value: compute-%index%}
  two:
    type: OS::Small::Thing
outputs:
  servers:
    value: [{get_attr: [controllers, output]}, {get_attr: [computes, output]}]
  hostnames: {value: {get_param: HostnameMap}}
  ports: {value: {get_param: NodePortMap}}
'''})


class Agent(threading.Thread):
    """The ramdisk of each node: once its node waits in ``inspect wait``,
    posts its inventory to /v1/continue_inspection (no token), once."""

    def __init__(self, case, nodes):
        super().__init__(daemon=True)
        self.case, self.left = case, dict(nodes)     # name -> mac
        self.stop, self.errors = threading.Event(), []

    def run(self):
        while self.left and not self.stop.is_set():
            try:
                for name, mac in list(self.left.items()):
                    status, node = self.case.call('GET', '/nodes/%s' % name)
                    if status != 200 or \
                            node['provision_state'] != 'inspect wait':
                        continue
                    body = {'inventory': ironic_base.inventory(mac),
                            'root_disk':
                                ironic_base.inventory(mac)['disks'][0]}
                    status, answer = self.case.call(
                        'POST', '/continue_inspection', body, token=False)
                    if status != 202:
                        self.errors.append((name, status, answer))
                    del self.left[name]
            except Exception as exc:    # told by the test, not lost
                self.errors.append(repr(exc))
                return
            self.stop.wait(0.3)


class NodesStoryTest(base.FunctionalTest, ironic_base.IronicCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.templates = base.write_tree(os.path.join(cls.tmp, 'templates'),
                                        TEMPLATES)
        # the servers' login user's key (overcloud node provision)
        cls.key = os.path.join(cls.tmp, 'id_ed25519')
        subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '',
                        '-f', cls.key], check=True)

    def setUp(self):
        super().setUp()
        tag = uuid.uuid4().hex[:8]
        self.prefix = 'tpc-story-%s' % tag
        self.rc = 'tpc-story-%s' % tag
        self.plan = 'story-%s' % tag
        self.macs = [ironic_base.random_mac() for _ in range(3)]
        self.names = ['%s-%d' % (self.prefix, i) for i in range(3)]
        # node import matches a node by its BMC too: nodes/test_import's
        # are 127.0.0.1 ports 20000-60002, these above them
        self.bmc_port = 60010 + int(tag[:4], 16) % 5000
        # (cleanups run last first: stack, then plan, then nodes)
        self.addCleanup(self.delete_nodes)
        self.addCleanup(subprocess.run, [
            'openstack', 'overcloud', 'plan', 'delete', '-y', self.plan],
            env=self.env, capture_output=True, timeout=600)
        self.addCleanup(subprocess.run, [
            'openstack', 'stack', 'delete', '--wait', '-y', self.plan],
            env=self.env, capture_output=True, timeout=600)

    # -- Ironic as it is, for our nodes ----------------------------------
    def ours(self):
        """Our nodes (name -> the fields an operation changes) and every
        port with one of our MACs (mac -> node uuid), anywhere in
        Ironic."""
        nodes = self.ok(200, 'GET', '/nodes?detail=True&limit=1000')['nodes']
        ports = self.ok(200, 'GET', '/ports?detail=True&limit=1000')['ports']
        return ({n['name']: {k: n[k] for k in (
            'uuid', 'provision_state', 'power_state', 'instance_uuid',
            'properties', 'extra', 'updated_at', 'resource_class')}
            for n in nodes if (n['name'] or '').startswith(self.prefix)},
            {p['address']: p['node_uuid'] for p in ports
             if p['address'] in self.macs})

    def allocations(self):
        return self.ok(200, 'GET', '/allocations?resource_class=%s'
                       % self.rc)['allocations']

    def delete_nodes(self):
        for name, node in self.ours()[0].items():
            state = node['provision_state']
            if state == 'active':
                self.call('PUT', '/nodes/%s/states/provision' % name,
                          {'target': 'deleted'})
                self.wait_state(name, ('available',))
            elif state == 'inspect wait':
                self.call('PUT', '/nodes/%s/states/provision' % name,
                          {'target': 'abort'})
                self.wait_state(name, ('inspect failed',))
            status, answer = self.call('DELETE', '/nodes/%s' % name)
            self.assertEqual(204, status, answer)

    def wait_state(self, name, states, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.ok(200, 'GET', '/nodes/%s' % name)[
                    'provision_state'] in states:
                return
            time.sleep(0.3)

    # -- the CLI ---------------------------------------------------------
    def refused(self, *args):
        """Run a command that must fail: (exit status, stdout, stderr)."""
        proc = subprocess.run(['openstack'] + [str(a) for a in args],
                              env=self.env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=600)
        self.assertNotEqual(0, proc.returncode, proc.stdout)
        self.assertNotIn('Traceback', proc.stderr)
        return proc.returncode, proc.stdout, proc.stderr

    def history(self):
        return self.openstack_json('overcloud', 'plan', 'show-history',
                                   self.plan)

    def nodes_file(self, name, nodes):
        return self.write('%s/%s' % (self.plan, name),
                          json.dumps({'nodes': nodes}, indent=1))

    def baremetal_file(self, name, roles):
        return self.write('%s/%s' % (self.plan, name), yaml.safe_dump(roles))

    def roles(self, controllers=1, computes=1):
        return [{'name': 'Controller', 'count': controllers,
                 'defaults': {'profile': 'control',
                              'resource_class': self.rc}},
                {'name': 'Compute', 'count': computes,
                 'defaults': {'profile': 'compute',
                              'resource_class': self.rc}}]

    def test_nodes_to_overcloud_and_back(self):
        good = [{'name': self.names[i], 'pm_type': 'fake-hardware',
                 'pm_addr': '127.0.0.1', 'pm_port': self.bmc_port + i,
                 'pm_user': 'admin', 'pm_password': 'story-%s' % self.rc,
                 'ports': [{'address': self.macs[i],
                            'physical_network': 'ctlplane'}],
                 'resource_class': self.rc, 'inspect_interface': 'agent',
                 'capabilities': 'control_profile:true' if i == 0 else
                 'compute_profile:true'} for i in range(3)]

        # 1. A nodes file with mistakes: every one named, exit status not
        # 0, nothing of it in Ironic.
        bad = json.loads(json.dumps(good))
        bad[0]['pm_typo'] = 'x'
        bad[1]['ports'].append({'address': self.macs[0]})
        bad[2].update(capabilities='boot_mode', cpu='many')
        bad[2]['ports'][0]['address'] = 'not-a-mac'
        code, out, err = self.refused(
            'overcloud', 'node', 'import', '-f', 'json',
            self.nodes_file('bad.json', bad))
        for said in (r"nodes\[0\] \(%s\): unknown field 'pm_typo'"
                     % self.names[0],
                     r"nodes\[1\] .*MAC %s is also nodes\[0\]" % self.macs[0],
                     r"nodes\[2\] .*capabilities: 'boot_mode' is not "
                     r"key:value",
                     r"nodes\[2\] .*cpu 'many' is not a whole number",
                     r"nodes\[2\] .*MAC 'not-a-mac' is not a MAC address",
                     r"has 5 problems; nothing was registered"):
            self.assertRegex(err, said)
        self.assertEqual(3, code, err)
        self.assertEqual(['REFUSED'], [r['status'] for r in json.loads(out)])
        self.assertEqual(({}, {}), self.ours())

        # 2. Fixed: three manageable nodes of our resource class, each
        # with its port.
        rows = self.openstack_json('overcloud', 'node', 'import',
                                   self.nodes_file('nodes.json', good))
        self.assertEqual([('created', 'manageable')] * 3,
                         [(r['action'], r['provision_state']) for r in rows])
        nodes, ports = self.ours()
        self.assertEqual(self.names, sorted(nodes))
        self.assertEqual({self.macs[i]: nodes[self.names[i]]['uuid']
                          for i in range(3)}, ports)
        self.assertEqual({self.rc}, {n['resource_class']
                                     for n in nodes.values()})

        # 3. Introspection, the test playing the agent: the properties
        # filled from the inventories.
        agent = Agent(self, zip(self.names, self.macs))
        agent.start()
        self.addCleanup(agent.stop.set)
        rows = self.openstack_json('overcloud', 'node', 'introspect',
                                   *self.names, '--timeout', 120)
        agent.stop.set()
        agent.join(10)
        self.assertEqual([], agent.errors)
        self.assertEqual({n: ('SUCCESS', 'manageable') for n in self.names},
                         {r['name']: (r['status'], r['provision_state'])
                          for r in rows})
        filled = {'cpus': 4, 'memory_mb': 8192, 'local_gb': 99,
                  'cpu_arch': 'x86_64'}
        for name, node in self.ours()[0].items():
            self.assertEqual(filled, {k: node['properties'].get(k)
                                      for k in filled}, name)

        # 4. Profiles: control on the first, compute on the others; the
        # listing shows them with what the capabilities allow.
        tagged = self.openstack_json('overcloud', 'node', 'tag',
                                     self.names[0], '--profile', 'control')
        tagged += self.openstack_json('overcloud', 'node', 'tag',
                                      *self.names[1:], '--profile',
                                      'compute')
        self.assertEqual(['SUCCESS'] * 3, [r['status'] for r in tagged])
        expected = {self.names[0]: ('control', ['control']),
                    self.names[1]: ('compute', ['compute']),
                    self.names[2]: ('compute', ['compute'])}
        listed = self.openstack_json('overcloud', 'profiles', 'list', '--all')
        self.assertEqual(expected, {
            r['name']: (r['current_profile'], r['possible_profiles'])
            for r in listed if r['name'] in self.names})

        # 5. Provide: available, powered off; listed without --all now.
        rows = self.openstack_json('overcloud', 'node', 'provide',
                                   *self.names)
        self.assertEqual({n: ('SUCCESS', 'available') for n in self.names},
                         {r['name']: (r['status'], r['provision_state'])
                          for r in rows})
        nodes = self.ours()[0]
        self.assertEqual({('available', 'power off')}, {
            (n['provision_state'], n['power_state'])
            for n in nodes.values()})
        listed = self.openstack_json('overcloud', 'profiles', 'list')
        self.assertEqual(expected, {
            r['name']: (r['current_profile'], r['possible_profiles'])
            for r in listed if r['name'] in self.names})

        # 6. A small plan; bad provisioning requests leave Ironic (and
        # the plan's story) as they were.
        self.openstack('overcloud', 'plan', 'create', self.plan,
                       '--templates', self.templates, '-e',
                       os.path.join(self.templates, 'registry.yaml'))
        before, steps = self.ours(), self.history()
        wrong = self.roles()
        wrong[0]['count'] = 'one'
        wrong[1]['defaults']['flavor'] = 'compute'
        code, out, err = self.refused(
            'overcloud', 'node', 'provision', '--stack', self.plan, '-f',
            'json', self.baremetal_file('wrong.yaml', wrong))
        self.assertIn('role Controller: count must be a whole number', err)
        self.assertRegex(err, r"role Compute defaults: unknown field\(s\) "
                              r"flavor")
        self.assertIn('has 2 problem(s); nothing was provisioned', err)
        self.assertEqual((3, ['REFUSED']),
                         (code, [r['state'] for r in json.loads(out)]))
        self.assertEqual((before, steps, []), (
            self.ours(), self.history(), self.allocations()))

        code, out, err = self.refused(
            'overcloud', 'node', 'provision', '--stack', self.plan, '-f',
            'json', self.baremetal_file('too-many.yaml', self.roles(
                computes=4)), '--overcloud-ssh-key', self.key + '.pub')
        self.assertEqual(3, code, err)
        self.assertIn('role Compute: 2 more available node(s) needed with '
                      'resource_class %s, profile compute' % self.rc, err)
        self.assertEqual(['REFUSED'], [r['state'] for r in json.loads(out)])
        self.assertEqual((before, steps, []), (
            self.ours(), self.history(), self.allocations()))

        # 7. One controller and one compute: active, the deployed-server
        # environment in the plan, the step on record.
        local = os.path.join(self.tmp, self.plan, 'out.yaml')
        rows = self.openstack_json(
            'overcloud', 'node', 'provision', '--stack', self.plan,
            self.baremetal_file('deployment.yaml', self.roles()), '-o',
            local, '--overcloud-ssh-key', self.key + '.pub')
        controller = '%s-controller-0' % self.plan
        compute = '%s-novacompute-0' % self.plan
        self.assertEqual({('Controller', controller, 'active'),
                          ('Compute', compute, 'active')},
                         {(r['role'], r['hostname'], r['state'])
                          for r in rows})
        nodes = self.ours()[0]
        self.assertEqual('active', nodes[self.names[0]]['provision_state'])
        self.assertEqual(['active', 'available'], sorted(
            nodes[n]['provision_state'] for n in self.names[1:]))
        stored = yaml.safe_load(self.swift.get(self.plan, ENVIRONMENT))
        with open(local) as f:
            self.assertEqual(stored, yaml.safe_load(f))
        values = stored['parameter_defaults']
        self.assertEqual((1, 1), (values['ControllerCount'],
                                  values['ComputeCount']))
        self.assertEqual({controller: controller, compute: compute},
                         values['HostnameMap'])
        history = self.history()
        self.assertEqual(['create', 'provision'],
                         [s['action'] for s in history])
        self.assertIn(ENVIRONMENT, self.plan_record(self.plan)[
            'environments'])

        # 8. A deploy on those servers: the stack has one resource per
        # server, the hostnames and ports the provisioning chose.
        deployed = self.openstack_json('overcloud', 'deploy', '--stack',
                                       self.plan)
        self.assertEqual('CREATE_COMPLETE', deployed['stack_status'])
        self.assertIn(ENVIRONMENT, deployed['environments'])
        shown = self.openstack_json('stack', 'show', self.plan)
        outputs = {o['output_key']: o['output_value']
                   for o in shown['outputs']}
        self.assertEqual([['controller-0'], ['compute-0']],
                         outputs['servers'])
        self.assertEqual(values['HostnameMap'], outputs['hostnames'])
        self.assertEqual(values['NodePortMap'], outputs['ports'])

        # 9. Unprovision: the nodes available again, free of the plan,
        # the environment out of the plan's list, on record.
        rows = self.openstack_json(
            'overcloud', 'node', 'unprovision', '--stack', self.plan,
            '--all', '-y', self.baremetal_file('deployment.yaml',
                                               self.roles()))
        self.assertEqual(['available', 'available'],
                         [r['state'] for r in rows])
        nodes = self.ours()[0]
        self.assertEqual({('available', None)}, {
            (n['provision_state'], n['instance_uuid'])
            for n in nodes.values()})
        self.assertEqual([], [n for n, node in nodes.items()
                              if 'tripleoplan' in node['extra']])
        self.assertEqual(['create', 'provision', 'deploy', 'unprovision'],
                         [s['action'] for s in self.history()])
        self.assertNotIn(ENVIRONMENT, self.plan_record(self.plan)[
            'environments'])
