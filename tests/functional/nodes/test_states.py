"""overcloud node introspect|provide|tag and overcloud profiles list
through the real CLI, on fake-hardware nodes of the test's own (the
shared loopback Ironic: never --all-manageable here, the unit tests pin
that selection). The test plays the ramdisk agent: it posts each node's
inventory to /v1/continue_inspection once the node waits for it, or the
error a ramdisk reports.
"""

import json
import os
import subprocess
import time
import uuid

from tests.functional import base
from tests.functional import ironic_base


class NodeStatesTest(base.FunctionalTest, ironic_base.IronicCase):

    def node(self, capabilities=None):
        """A manageable fake-hardware node with one port: (name, uuid,
        mac)."""
        mac = ironic_base.random_mac()
        props = {'capabilities': capabilities} if capabilities else {}
        node = self.enroll(properties=props)
        # runs before enroll's delete
        self.addCleanup(self.deletable, node['uuid'])
        self.ok(201, 'POST', '/ports', {'node_uuid': node['uuid'],
                                        'address': mac})
        self.provision(node['uuid'], 'manage', 'manageable')
        return node['name'], node['uuid'], mac

    def deletable(self, ident, timeout=60):
        """Bring the node where Ironic deletes it: it deletes no node that
        waits for its ramdisk (aborted) or whose inspection failed
        (managed again); left as it is after ``timeout`` (the delete then
        fails)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status, got = self.call('GET', '/nodes/%s' % ident)
            if status != 200:
                return
            target = {'inspect wait': 'abort',
                      'inspect failed': 'manage'}.get(got['provision_state'])
            if target is None and got['provision_state'] not in (
                    'inspecting', 'verifying') and not got['reservation']:
                return
            if target is not None and not got['reservation']:
                self.call('PUT', '/nodes/%s/states/provision' % ident,
                          {'target': target})
            time.sleep(0.3)

    def resting(self, ident, timeout=60):
        """The node once its conductor let it go: Ironic shows a node's
        new provision state before it releases its lock, and the release
        moves ``updated_at`` once more."""
        deadline = time.monotonic() + timeout
        while True:
            got = self.ok(200, 'GET', '/nodes/%s' % ident)
            if not got['reservation']:
                return got
            self.assertLess(time.monotonic(), deadline, got)
            time.sleep(0.2)

    def started(self, *args):
        return subprocess.Popen(
            ['openstack'] + [str(a) for a in args], env=self.env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL, text=True)

    def play_agent(self, nodes, errors=(), timeout=120):
        """Post each node's inventory (or, for a node in ``errors``, the
        error its ramdisk reports) once it waits in ``inspect wait``;
        ``nodes``: [(name, uuid, mac)]."""
        left = list(nodes)
        deadline = time.monotonic() + timeout
        while left:
            self.assertLess(time.monotonic(), deadline, left)
            for name, ident, mac in list(left):
                state = self.ok(200, 'GET', '/nodes/%s' % ident)[
                    'provision_state']
                if state != 'inspect wait':
                    continue
                body = {'inventory': ironic_base.inventory(mac),
                        'root_disk': ironic_base.inventory(mac)['disks'][0]}
                if name in errors:
                    body['error'] = 'the disk controller did not answer'
                self.ok(202, 'POST', '/continue_inspection', body,
                        token=False)
                left.remove((name, ident, mac))
            time.sleep(0.3)

    def ended(self, proc, timeout=300):
        out, err = proc.communicate(timeout=timeout)
        self.assertNotIn('Traceback', err)
        return proc.returncode, json.loads(out), err

    def rows(self, found):
        return {r['name']: r for r in found}

    def test_introspect_tag_list_provide(self):
        nodes = [self.node('control_profile:true,compute_profile:true')
                 for _ in range(3)]
        failing = self.node()
        names = [n[0] for n in nodes]
        proc = self.started('overcloud', 'node', 'introspect', *(
            names + [failing[0], '--max-retries', 0, '-f', 'json']))
        self.play_agent(nodes + [failing], errors=(failing[0],))
        code, found, err = self.ended(proc)
        rows = self.rows(found)
        # one node failed, with Ironic's last error; the others went on
        self.assertEqual(1, code, err)
        self.assertEqual('FAILED', rows[failing[0]]['status'])
        self.assertEqual('inspect failed', rows[failing[0]]['provision_state'])
        # (from the node's history when Ironic's power state sync, every
        # 120 s, cleared its last_error before the follow task's last look)
        self.assertIn('Ramdisk reported error: the disk controller did not '
                      'answer', rows[failing[0]]['error'])
        self.assertIn(failing[0], err)
        # given up: powered off
        self.assertEqual((1, 'power off'), (
            rows[failing[0]]['attempts'],
            self.ok(200, 'GET', '/nodes/%s' % failing[1])['power_state']))
        for name in names:
            self.assertEqual(('SUCCESS', 'manageable'), (
                rows[name]['status'], rows[name]['provision_state']), rows)
            self.assertEqual({'cpus': 4, 'memory_mb': 8192, 'local_gb': 99,
                              'cpu_arch': 'x86_64'}, rows[name]['properties'])
            props = self.ok(200, 'GET', '/nodes/%s' % name)['properties']
            self.assertEqual(99, props['local_gb'])

        configured = self.openstack_json(
            'overcloud', 'node', 'configure', names[0], '--root-device',
            'smallest', '--deploy-kernel', 'http://127.0.0.9:1/agent.kernel',
            '--deploy-ramdisk', 'http://127.0.0.9:1/agent.ramdisk')
        # the disk of the inventory the agent posted, by its serial
        self.assertEqual([('SUCCESS', {'serial': 's-' + nodes[0][2]})],
                         [(r['status'], r['root_device'])
                          for r in configured])
        got = self.ok(200, 'GET', '/nodes/%s' % names[0])
        self.assertEqual(({'serial': 's-' + nodes[0][2]},
                          'http://127.0.0.9:1/agent.kernel'), (
            got['properties']['root_device'],
            got['driver_info']['deploy_kernel']))

        tagged = self.openstack_json('overcloud', 'node', 'tag', names[0],
                                     '--profile', 'control')
        self.assertEqual(['SUCCESS'], [r['status'] for r in tagged])
        tagged = self.openstack_json('overcloud', 'node', 'tag', names[1],
                                     names[2], '--profile', 'compute')
        self.assertEqual(['SUCCESS'] * 2, [r['status'] for r in tagged])
        caps = self.ok(200, 'GET', '/nodes/%s' % names[0])['properties'][
            'capabilities'].split(',')
        # the other capabilities kept
        self.assertEqual(sorted(['control_profile:true', 'boot_mode:uefi',
                                 'compute_profile:true', 'profile:control']),
                         sorted(caps))

        provided = self.openstack_json('overcloud', 'node', 'provide',
                                       *names)
        self.assertEqual({n: ('SUCCESS', 'available') for n in names}, {
            r['name']: (r['status'], r['provision_state'])
            for r in provided})
        for name in names:
            node = self.ok(200, 'GET', '/nodes/%s' % name)
            self.assertEqual(('available', 'power off'), (
                node['provision_state'], node['power_state']))

        listed = {r['name']: r for r in self.openstack_json(
            'overcloud', 'profiles', 'list')}
        self.assertEqual({
            names[0]: ('available', 'control', ['compute', 'control']),
            names[1]: ('available', 'compute', ['compute', 'control']),
            names[2]: ('available', 'compute', ['compute', 'control'])},
            {n: (listed[n]['provision_state'], listed[n]['current_profile'],
                 listed[n]['possible_profiles']) for n in names})
        self.assertNotIn(failing[0], listed)
        every = {r['name'] for r in self.openstack_json(
            'overcloud', 'profiles', 'list', '--all')}
        self.assertIn(failing[0], every)

        untagged = self.openstack_json('overcloud', 'node', 'tag', names[0],
                                       '--no-profile')
        self.assertEqual('SUCCESS', untagged[0]['status'])
        again = self.openstack_json('overcloud', 'node', 'tag', names[0],
                                    '--no-profile')
        self.assertEqual('UNCHANGED', again[0]['status'])

    def test_provide_flag_and_a_node_never_answered(self):
        answered, silent = self.node(), self.node()
        proc = self.started('overcloud', 'node', 'introspect', answered[0],
                            silent[0], '--provide', '--timeout', 15,
                            '-f', 'json')
        self.play_agent([answered])
        code, found, err = self.ended(proc)
        rows = self.rows(found)
        self.assertEqual(1, code, err)
        self.assertEqual(('SUCCESS', 'available'), (
            rows[answered[0]]['status'],
            rows[answered[0]]['provision_state']))
        self.assertEqual('FAILED', rows[silent[0]]['status'])
        self.assertIn("still inspect wait after the operation's 15 s; "
                      'powered off', rows[silent[0]]['error'])
        got = self.resting(silent[1])
        self.assertEqual(('inspect failed', 'power off'), (
            got['provision_state'], got['power_state']))

    def test_a_silent_node_is_aborted_retried_then_powered_off(self):
        answered, silent = self.node(), self.node()
        proc = self.started('overcloud', 'node', 'introspect', answered[0],
                            silent[0], '--node-timeout', 6, '--max-retries',
                            1, '--retry-timeout', 3, '--concurrency', 1,
                            '-f', 'json')
        self.play_agent([answered])
        code, found, err = self.ended(proc)
        rows = self.rows(found)
        self.assertEqual(1, code, err)
        self.assertEqual(('SUCCESS', 1, 'manageable'), (
            rows[answered[0]]['status'], rows[answered[0]]['attempts'],
            rows[answered[0]]['provision_state']))
        self.assertEqual(('FAILED', 2, 'timed out after 6 s (2 attempts); '
                          'powered off'), (
            rows[silent[0]]['status'], rows[silent[0]]['attempts'],
            rows[silent[0]]['error']))
        self.assertIn('timed out after 6 s', err)
        got = self.resting(silent[1])
        self.assertEqual(('inspect failed', 'power off'), (
            got['provision_state'], got['power_state']))
        # what the node went through is on it
        mark = got['extra']['tripleoplan_inspection']
        self.assertEqual((2, 'timed out after 6 s'),
                         (mark['attempt'], mark['reason']))

    def test_a_node_not_manageable_is_refused_before_anything(self):
        name, ident, _ = self.node()
        self.provision(ident, 'provide', 'available')
        before = self.resting(ident)['updated_at']
        ghost = 'tpc-ghost-%s' % uuid.uuid4().hex[:8]
        out, err = self.openstack('overcloud', 'node', 'introspect', name,
                                  ghost, '-f', 'json', fail=True)
        self.assertIn('%s is available, not manageable' % name, err)
        self.assertIn('no node %s in Ironic' % ghost, err)
        self.assertEqual({'REFUSED'}, {r['status'] for r in json.loads(out)})
        self.assertEqual(before, self.ok(200, 'GET', '/nodes/%s' % ident)[
            'updated_at'])
        proc = subprocess.run(
            ['openstack', 'overcloud', 'node', 'provide', ghost],
            env=self.env, capture_output=True, text=True, timeout=300)
        self.assertEqual(3, proc.returncode, proc.stderr)

    def test_parity_with_workflow_execution_create(self):
        from tripleoplanclient import protocol
        nodes = [self.node() for _ in range(2)]
        request = protocol.request('node_introspect',
                                   nodes=[n[1] for n in nodes],
                                   provide=True, timeout=120)
        created = self.openstack_json(
            'workflow', 'execution', 'create',
            protocol.workflow('node_introspect'),
            json.dumps({'request': request}))
        self.play_agent(nodes)
        deadline = time.monotonic() + 120
        while True:
            shown = self.openstack_json('workflow', 'execution', 'show',
                                        created['ID'])
            if shown['State'] not in ('IDLE', 'RUNNING', 'PAUSED'):
                break
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.5)
        self.assertEqual('SUCCESS', shown['State'], shown)
        output = json.loads(self.openstack(
            'workflow', 'execution', 'output', 'show', created['ID'])[0])
        self.assertEqual(
            {(n[0], 'SUCCESS', 'available') for n in nodes},
            {(r['name'], r['status'], r['provision_state'])
             for r in output['followed']['nodes']})
        # the trust the follow task used is not in the record
        self.assertNotIn('trust', json.dumps(output['followed']))
        # a bad per-node setting: refused, named, nothing started
        name, ident, _ = self.node()
        before = self.resting(ident)['updated_at']
        created = self.openstack_json(
            'workflow', 'execution', 'create',
            protocol.workflow('node_introspect'), json.dumps({
                'request': protocol.request('node_introspect',
                                            nodes=[name], max_retries=11)}))
        deadline = time.monotonic() + 60
        while True:
            shown = self.openstack_json('workflow', 'execution', 'show',
                                        created['ID'])
            if shown['State'] not in ('IDLE', 'RUNNING', 'PAUSED'):
                break
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.5)
        self.assertEqual('ERROR', shown['State'])
        self.assertIn('max_retries 11 is not a whole number from 0 to 10',
                      shown['State info'])
        self.assertEqual(before, self.ok(200, 'GET', '/nodes/%s' % ident)[
            'updated_at'])


class NodeStatesPolicyTest(base.FunctionalTest, ironic_base.IronicCase):
    """A member of another project, without the admin role: refused,
    told why."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        tag = uuid.uuid4().hex[:8]
        cls.member = 'tpc-nodes-%s' % tag
        cls.project = 'tpc-nodes-%s' % tag
        password = 'pw-%s' % uuid.uuid4().hex
        for args in (('project', 'create', '--domain', 'default',
                      cls.project),
                     ('user', 'create', '--domain', 'default', '--password',
                      password, cls.member),
                     ('role', 'add', '--project', cls.project, '--user',
                      cls.member, 'member')):
            subprocess.run(['openstack'] + list(args), env=cls.env,
                           check=True, capture_output=True, timeout=600)
        cls.member_env = cls.cloud_env('nodes-member', auth={
            'username': cls.member, 'password': password,
            'project_name': cls.project})

    @classmethod
    def tearDownClass(cls):
        for args in (('user', 'delete', cls.member),
                     ('project', 'delete', cls.project)):
            subprocess.run(['openstack'] + list(args), env=cls.env,
                           capture_output=True, timeout=600)
        super().tearDownClass()

    def test_a_member_without_admin_is_refused(self):
        node = self.enroll()
        self.provision(node['uuid'], 'manage', 'manageable')
        proc = subprocess.run(
            ['openstack', 'overcloud', 'node', 'introspect', node['uuid']],
            env=self.member_env, capture_output=True, text=True,
            timeout=300)
        self.assertRefused(proc)
        self.assertEqual('manageable', self.ok(
            200, 'GET', '/nodes/%s' % node['uuid'])['provision_state'])
        # a listing would show such a user nothing: said, not a table
        proc = subprocess.run(
            ['openstack', 'overcloud', 'profiles', 'list', '--all'],
            env=self.member_env, capture_output=True, text=True,
            timeout=300)
        self.assertNotEqual(0, proc.returncode, proc.stdout)
        self.assertRegex(proc.stderr, self.refusal())

    def refusal(self):
        # the roles Keystone gives (member implies reader), then the one
        # needed
        return (r'User %s has [a-z, ]*member[a-z, ]* in project %s: the '
                r'node operations need the admin role there\.' % (
                    self.member, self.project))

    def assertRefused(self, proc):
        """Exit 3 (refused, nothing started), told who lacks which role."""
        self.assertEqual(3, proc.returncode, proc.stderr)
        self.assertRegex(proc.stderr, self.refusal())

    def test_import_and_provision_refused_before_ironic(self):
        tag = uuid.uuid4().hex[:8]
        name = 'tpc-nodes-%s' % tag
        mac = '52:54:%s:%s:%s:%s' % tuple(tag[i:i + 2] for i in (0, 2, 4, 6))
        nodes = self.write('%s-nodes.json' % tag, json.dumps({'nodes': [{
            'name': name, 'pm_type': 'fake-hardware',
            'ports': [{'address': mac}]}]}))
        proc = subprocess.run(
            ['openstack', 'overcloud', 'node', 'import', nodes],
            env=self.member_env, capture_output=True, text=True,
            timeout=300)
        self.assertRefused(proc)
        self.assertEqual(404, self.call('GET', '/nodes/%s' % name)[0])
        roles = self.write('%s-baremetal.yaml' % tag,
                           '- name: Controller\n  count: 1\n')
        # a login key, so that the refusal is the role's, not a key's
        key = os.path.join(os.path.dirname(roles), '%s-key' % tag)
        subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '',
                        '-f', key], check=True)
        proc = subprocess.run(
            ['openstack', 'overcloud', 'node', 'provision', '--stack',
             'tpc-nodes-%s' % tag, roles, '--overcloud-ssh-key',
             key + '.pub'], env=self.member_env,
            capture_output=True, text=True, timeout=300)
        self.assertRefused(proc)
