"""overcloud node provision | unprovision through the real CLI, against
the loopback Ironic (fake hardware), Mistral and Swift: nodes of a
resource class of this test's own (allocation sees only them) into a
small plan, the deployed-server environment on record; the image, root
size and config drive (login user and SSH key) in what Ironic keeps,
the login user in the plan, and --concurrency's bound on the deploys.

Skipped when Ironic does not answer.
"""

import copy
import datetime
import json
import os
import subprocess
import threading
import time
import uuid

import yaml

from tests.functional import base
from tests.functional import deploy_base

ENVIRONMENT = 'baremetal-environment.yaml'


class ProvisionTest(base.FunctionalTest):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        from tripleoplanclient.nodes import ironic
        cls.ironic = ironic.Ironic(cls.session, base.ironic_url(cls.env))
        cls.templates = base.write_tree(os.path.join(cls.tmp, 'templates'),
                                        deploy_base.TEMPLATES)
        # the login user's key pair, as ssh-keygen makes it
        cls.key = os.path.join(cls.tmp, 'id_ed25519')
        subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '',
                        '-C', 'tpc-prov', '-f', cls.key], check=True)
        with open(cls.key + '.pub') as f:
            cls.public_key = f.read().strip()

    def setUp(self):
        super().setUp()
        self.plan = 'prov-%s' % uuid.uuid4().hex[:8]
        self.rc = 'tpc-prov-%s' % uuid.uuid4().hex[:8]
        self.openstack('overcloud', 'plan', 'create', self.plan,
                       '--templates', self.templates, '-e',
                       os.path.join(self.templates, 'registry.yaml'))
        self.addCleanup(subprocess.run, [
            'openstack', 'overcloud', 'plan', 'delete', '-y', self.plan],
            env=self.env, capture_output=True)
        # (cleanups run last first: the stack goes before its plan)
        self.addCleanup(subprocess.run, [
            'openstack', 'stack', 'delete', '--wait', '-y', self.plan],
            env=self.env, capture_output=True)
        self.nodes = {p: self.node(p) for p in ('control', 'compute')}

    def wait(self, node, state, timeout=60, field='provision_state'):
        deadline = time.monotonic() + timeout
        while True:
            got = self.ironic.node(node)
            if got[field] == state:
                return got
            self.assertLess(time.monotonic(), deadline, got)
            time.sleep(0.2)

    def node(self, profile, **properties):
        """An available, powered-off fake-hardware node of this test's
        resource class with ``profile``; deleted (undeployed first) at
        the end."""
        node = self.ironic.create_node({
            'name': 'tpc-prov-%s' % uuid.uuid4().hex[:12],
            'driver': 'fake-hardware', 'resource_class': self.rc,
            'inspect_interface': 'no-inspect',
            'properties': dict(properties, capabilities='profile:%s'
                               % profile)})['uuid']
        self.addCleanup(self.remove, node)
        self.ironic.provision(node, 'manage')
        self.wait(node, 'manageable')
        self.ironic.power(node, 'power off')
        # powered off, and let go: a provide while the power action holds
        # the node's lock is refused (409) after Ironic's ~2 s of retries
        self.wait(node, None, field='target_power_state')
        self.assertEqual('power off', self.ironic.node(node)['power_state'])
        self.ironic.provision(node, 'provide')
        self.wait(node, 'available')
        return node

    def remove(self, node):
        if self.ironic.node(node)['provision_state'] == 'active':
            self.ironic.provision(node, 'deleted')
            self.wait(node, 'available')
        self.ironic.delete_node(node)

    def deployment(self, controllers=1, computes=1):
        roles = [{'name': 'Controller', 'count': controllers,
                  'defaults': {'profile': 'control',
                               'resource_class': self.rc}},
                 {'name': 'Compute', 'count': computes,
                  'defaults': {'profile': 'compute',
                               'resource_class': self.rc},
                  'instances': [{'hostname': '%s-compute-a' % self.plan,
                                 'networks': [{
                                     'network': 'ctlplane',
                                     'fixed_ip': '192.168.24.77'}]}]}]
        return self.write('%s/%d-%d.yaml' % (self.plan, controllers,
                                             computes), yaml.safe_dump(roles))

    def history(self):
        return self.plan_record(self.plan)

    def test_provision_again_deploy_unprovision(self):
        # Too few nodes: every role's shortage named, nothing allocated.
        before = self.history()
        proc = subprocess.run(
            ['openstack', 'overcloud', 'node', 'provision', '--stack',
             self.plan, self.deployment(controllers=2), '-f', 'json',
             '--overcloud-ssh-key', self.key + '.pub'],
            env=self.env, capture_output=True, text=True)
        self.assertEqual(3, proc.returncode, proc.stderr)
        self.assertIn('role Controller: 1 more available node(s) needed '
                      'with resource_class %s, profile control' % self.rc,
                      proc.stderr)
        self.assertEqual([{'role': None, 'hostname': None, 'node': None,
                           'ctlplane_ip': None, 'state': 'REFUSED'}],
                         json.loads(proc.stdout))
        for node in self.nodes.values():
            got = self.ironic.node(node)
            self.assertEqual(('available', None, {}), (
                got['provision_state'], got['instance_uuid'], got['extra']))
        self.assertEqual(len(before['history']), len(self.history()[
            'history']))

        # 1 controller + 1 compute: active, the environment on record.
        out = os.path.join(self.tmp, self.plan, 'out.yaml')
        rows = self.openstack_json(
            'overcloud', 'node', 'provision', '--stack', self.plan,
            self.deployment(), '-o', out, '--overcloud-ssh-key',
            self.key + '.pub')
        by_role = {r['role']: r for r in rows}
        self.assertEqual({'Controller', 'Compute'}, set(by_role))
        self.assertEqual(['active', 'active'], [r['state'] for r in rows])
        controller = '%s-controller-0' % self.plan
        compute = '%s-compute-a' % self.plan
        self.assertEqual((controller, '192.168.24.10'), (
            by_role['Controller']['hostname'],
            by_role['Controller']['ctlplane_ip']))
        self.assertEqual((compute, '192.168.24.77'), (
            by_role['Compute']['hostname'],
            by_role['Compute']['ctlplane_ip']))
        got = self.ironic.node(self.nodes['control'])
        self.assertEqual('active', got['provision_state'])
        recorded = {'plan': self.plan, 'role': 'Controller',
                    'hostname': controller,
                    'hostname_format': '%stackname%-controller-%index%',
                    'ctlplane_ip': '192.168.24.10',
                    'ctlplane_cidr': '192.168.24.0/24', 'index': 0}
        if self.session is not None:
            # the caller's, as Keystone has it: this plan's validations
            # may reach the servers of its project
            recorded['project'] = self.session.get_project_id()
        self.assertEqual(recorded, got['extra']['tripleoplan'])
        self.assertEqual(controller, got['instance_info']['display_name'])
        stored = self.swift.get(self.plan, ENVIRONMENT)
        with open(out, 'rb') as f:
            self.assertEqual(stored, f.read())
        values = yaml.safe_load(stored)['parameter_defaults']
        self.assertEqual((1, 1), (values['ControllerCount'],
                                  values['ComputeCount']))
        self.assertEqual({controller: controller,
                          '%s-novacompute-0' % self.plan: compute},
                         values['HostnameMap'])
        self.assertEqual('192.168.24.77/24', values['NodePortMap'][compute][
            'ctlplane']['ip_subnet'])
        record = self.history()
        self.assertEqual(ENVIRONMENT, record['environments'][-1])
        self.assertEqual('provision', record['history'][-1]['action'])
        steps = len(record['history'])

        # The same file again: nothing changes, nothing recorded.
        again, err = self.openstack('overcloud', 'node', 'provision',
                                    '--stack', self.plan, self.deployment(),
                                    '-f', 'json', '--overcloud-ssh-key',
                                    self.key + '.pub')
        self.assertIn('nothing recorded', err)
        self.assertEqual(rows, yaml.safe_load(again))
        self.assertEqual(steps, len(self.history()['history']))

        # A deploy on top: the environment among the stack's.
        deployed = self.openstack_json('overcloud', 'deploy', '--stack',
                                       self.plan)
        self.assertEqual('CREATE_COMPLETE', deployed['stack_status'])
        self.assertIn(ENVIRONMENT, deployed['environments'])

        # Unprovision: the nodes available again, the environment out of
        # the plan's list, on record.
        rows = self.openstack_json(
            'overcloud', 'node', 'unprovision', '--stack', self.plan,
            '--all', '-y', self.deployment())
        self.assertEqual(['available', 'available'],
                         [r['state'] for r in rows])
        for node in self.nodes.values():
            got = self.ironic.node(node)
            self.assertEqual(('available', None), (
                got['provision_state'], got['instance_uuid']))
            self.assertNotIn('tripleoplan', got['extra'])
        record = self.history()
        self.assertNotIn(ENVIRONMENT, record['environments'])
        self.assertEqual('unprovision', record['history'][-1]['action'])

    def test_same_workflows_for_any_mistral_client(self):
        # What a GUI does: the workflow started with a request of its own.
        from tripleoplanclient import protocol
        with open(self.deployment()) as f:
            roles = yaml.safe_load(f)
        _, shown = self.gui_workflow('node_provision', protocol.request(
            'node_provision', container=self.plan, roles=roles,
            ssh_keys=[self.public_key]))
        self.assertEqual('SUCCESS', shown['State'])
        for node in self.nodes.values():
            self.assertEqual('active', self.ironic.node(node)[
                'provision_state'])
        record = self.history()
        self.assertEqual(('provision', 'mistral action '
                          'tripleoplan.node_provision'), (
            record['history'][-1]['action'],
            record['history'][-1]['command']))
        self.assertIn(ENVIRONMENT, record['environments'])

        _, shown = self.gui_workflow('node_unprovision', protocol.request(
            'node_unprovision', container=self.plan))
        self.assertEqual('SUCCESS', shown['State'])
        for node in self.nodes.values():
            self.assertEqual('available', self.ironic.node(node)[
                'provision_state'])
        self.assertNotIn(ENVIRONMENT, self.history()['environments'])

    def provision(self, roles, *options):
        path = self.write('%s/%s.yaml' % (self.plan, uuid.uuid4().hex[:6]),
                          yaml.safe_dump(roles))
        return subprocess.run(
            ['openstack', 'overcloud', 'node', 'provision', '--stack',
             self.plan, path, '-f', 'json'] + list(options),
            env=self.env, capture_output=True, text=True)

    def roles(self, computes=1, **defaults):
        # each role its own copy: no YAML alias in the file
        return [{'name': 'Controller', 'defaults': dict(
                    copy.deepcopy(defaults), profile='control',
                    resource_class=self.rc)},
                {'name': 'Compute', 'count': computes, 'defaults': dict(
                    copy.deepcopy(defaults), profile='compute',
                    resource_class=self.rc)}]

    def test_image_root_size_config_drive_and_login(self):
        image = {'href': 'http://127.0.0.9:1/overcloud-full.qcow2',
                 'checksum': 'e' * 64,
                 'kernel': 'http://127.0.0.9:1/overcloud-full.vmlinuz',
                 'ramdisk': 'http://127.0.0.9:1/overcloud-full.initrd'}
        proc = self.provision(
            self.roles(image=image, root_size_gb=20, swap_size_mb=512,
                       config_drive={'meta_data': {'rack': 'r1'}}),
            '--overcloud-ssh-user', 'stack', '--overcloud-ssh-key',
            self.key + '.pub', '--network-ports')
        self.assertEqual(0, proc.returncode, proc.stderr)
        for node in self.nodes.values():
            got = self.ironic.node(node)
            info = got['instance_info']
            self.assertEqual('active', got['provision_state'])
            # as a real driver takes them: Ironic itself sees a partition
            # image; the config drive built and kept, shown to nobody
            self.assertEqual({
                'image_source': image['href'], 'kernel': image['kernel'],
                'ramdisk': image['ramdisk'], 'image_os_hash_algo': 'sha256',
                'image_os_hash_value': image['checksum'], 'root_gb': 20,
                'swap_mb': 512, 'image_type': 'partition',
                'configdrive': '******',
                'display_name': got['extra']['tripleoplan']['hostname']},
                {k: v for k, v in info.items() if k != 'tripleoplan_run'})
        self.assertEqual({'ssh_user': 'stack'}, yaml.safe_load(
            self.swift.get(self.plan, 'baremetal-login.yaml')))
        self.assertEqual('provision', self.history()['history'][-1][
            'action'])

    def test_bad_image_or_private_key_allocates_nothing(self):
        before = len(self.history()['history'])
        proc = self.provision(self.roles(image={'href': 'overcloud-full'}),
                              '--overcloud-ssh-key', self.key + '.pub')
        self.assertEqual(3, proc.returncode, proc.stderr)
        self.assertIn("image href 'overcloud-full': give an http://, "
                      "https:// or file:/// location", proc.stderr)
        with open(self.key) as f:
            private = self.write('%s/id_other' % self.plan, f.read())
        proc = self.provision(self.roles(), '--overcloud-ssh-key', private)
        self.assertEqual(3, proc.returncode, proc.stderr)
        self.assertIn('holds a private key', proc.stderr)
        with open(self.key) as f:
            body = f.read().splitlines()[1]
        self.assertNotIn(body, proc.stderr + proc.stdout)
        self.assertEqual([{'role': None, 'hostname': None, 'node': None,
                           'ctlplane_ip': None, 'state': 'REFUSED'}],
                         json.loads(proc.stdout))
        for node in self.nodes.values():
            got = self.ironic.node(node)
            self.assertEqual(('available', None), (
                got['provision_state'], got['instance_uuid']))
        self.assertEqual(before, len(self.history()['history']))

    def test_concurrency_bounds_the_deploys(self):
        self.nodes.update({'compute%d' % i: self.node('compute')
                           for i in (1, 2)})
        seen, stop = [], threading.Event()

        def watch():
            while not stop.is_set():
                states = [n['provision_state'] for n in self.ironic.nodes(
                    ('uuid', 'provision_state'), resource_class=self.rc)]
                seen.append(sum(1 for s in states if s in (
                    'deploying', 'wait call-back')))
                time.sleep(0.05)

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            proc = self.provision(self.roles(computes=3), '--concurrency',
                                  '1', '--overcloud-ssh-key',
                                  self.key + '.pub')
        finally:
            stop.set()
            watcher.join()
        self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertLessEqual(max(seen), 1)
        # one at a time: each started in a later follow round (rounds
        # 2 s apart, the first at once), where one deploy is ~0.1 s and
        # all four at once end within a second
        done = sorted(datetime.datetime.fromisoformat(
            self.ironic.node(n)['provision_updated_at'])
            for n in self.nodes.values())
        self.assertEqual(4, len(done))
        gaps = [(b - a).total_seconds() for a, b in zip(done, done[1:])]
        self.assertGreaterEqual(min(gaps), 0.2, gaps)
        self.assertGreaterEqual(sum(gaps), 3, gaps)
