"""``openstack overcloud node import`` through the real CLI, Mistral and
the loopback Ironic: a file with mistakes is refused whole (every
mistake named, Ironic unchanged), the fixed file registers manageable
nodes with their ports, the same file again changes nothing (no write
reaches Ironic), a changed one is patched (a changed BMC password
noticed, never said); the BMC passwords are nowhere but in Ironic; a
GUI's workflow execution answers the same; other drivers are checked
here and left to Ironic.

The nodes are fake-hardware with stand-in BMCs (pm_addr/pm_port), named
and addressed per test so that two runs never meet; deleted afterwards.
"""

import glob
import json
import os
import re
import time
import urllib.error
import urllib.request
import uuid

from tests.functional import base
from tests.functional.nodes import account_watcher
from tripleoplanclient import protocol

API_VERSION = '1.89'


def random_mac():
    return '52:54:01:%s' % ':'.join(
        uuid.uuid4().hex[i:i + 2] for i in range(0, 6, 2))


class NodeImportTest(base.FunctionalTest):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.ironic = base.ironic_url(cls.env)

    def setUp(self):
        super().setUp()
        self.tag = uuid.uuid4().hex[:10]
        self.password = 'bmc-pw-%s' % uuid.uuid4().hex
        self.port = 20000 + int(self.tag[:4], 16) % 40000
        self.macs = []
        self.addCleanup(self.delete_ours)

    def call(self, method, path, body=None):
        headers = {'Content-Type': 'application/json',
                   'X-OpenStack-Ironic-API-Version': API_VERSION}
        if self.session is not None:
            headers['X-Auth-Token'] = self.session.get_token()
        req = urllib.request.Request(
            self.ironic + '/v1' + path, method=method, headers=headers,
            data=json.dumps(body).encode() if body is not None else None)
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                data = resp.read()
                return resp.status, json.loads(data) if data else None
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def ours(self):
        """Our nodes (uuid -> node) and the MACs of their ports."""
        _, found = self.call('GET', '/nodes?detail=True&limit=1000')
        nodes = {n['uuid']: n for n in found['nodes']
                 if (n['name'] or '').startswith('tpc-imp-%s' % self.tag)}
        _, ports = self.call('GET', '/ports?detail=True&limit=1000')
        macs = {p['address']: p['node_uuid'] for p in ports['ports']
                if p['node_uuid'] in nodes or p['address'] in self.macs}
        return nodes, macs

    def delete_ours(self):
        for node in self.ours()[0]:
            self.call('DELETE', '/nodes/%s' % node)

    def nodes_file(self, count=3):
        self.macs = [random_mac() for _ in range(count)]
        return [{'name': 'tpc-imp-%s-%d' % (self.tag, i),
                 'pm_type': 'fake-hardware', 'pm_addr': '127.0.0.1',
                 'pm_port': self.port + i, 'pm_user': 'admin',
                 'pm_password': self.password,
                 'ports': [{'address': self.macs[i],
                            'physical_network': 'ctlplane'}],
                 'cpu': 2, 'memory': 4096, 'disk': 40, 'arch': 'x86_64',
                 'capabilities': 'boot_mode:uefi',
                 'profile': 'compute' if i else 'control'}
                for i in range(count)]

    def write_nodes(self, nodes, name='nodes.json'):
        return self.write('%s-%s' % (self.tag, name),
                          json.dumps({'nodes': nodes}, indent=1))

    def writes_to_ours(self, mark, rows):
        """The writes Ironic logged since ``mark`` to the nodes of
        ``rows`` (other tests write to the shared Ironic meanwhile: theirs
        are not counted; a node of ours created shows in ``ours()``)."""
        uuids = {r['uuid'] for r in rows}
        return [r for r in self.ironic_requests(mark) if r[0] != 'GET' and
                any(u in r[1] for u in uuids)]

    def ironic_mark(self):
        return os.path.getsize(self.env['LOOPBACK_IRONIC_LOG'])

    def ironic_requests(self, mark):
        """The API requests Ironic logged since ``mark``."""
        with open(self.env['LOOPBACK_IRONIC_LOG']) as f:
            f.seek(mark)
            return re.findall(r' - (GET|POST|PATCH|PUT|DELETE) (/v1/\S+) - ',
                              f.read())

    def node_import(self, path, *options, fail=False):
        out, err = self.openstack('overcloud', 'node', 'import', path,
                                  *options, '-f', 'json', fail=fail)
        self.assertNotIn(self.password, out + err)
        return json.loads(out), err

    def assert_password_nowhere(self):
        """Not in what Mistral keeps of the project, nor in its logs, nor
        in any object of the project's Swift account."""
        for where, text in self.mistral_kept().items():
            self.assertNotIn(self.password, text, where)
        for log in glob.glob(os.path.join(
                os.path.dirname(self.env['LOOPBACK_MISTRAL_LOG']), '*.log')):
            with open(log, errors='replace') as f:
                self.assertNotIn(self.password, f.read(), log)
        watcher = account_watcher.AccountWatcher(self.swift, self.password)
        watcher.look()
        self.assertEqual([], watcher.found)

    def test_wrong_then_fixed_then_unchanged(self):
        good = self.nodes_file()
        bad = json.loads(json.dumps(good))
        bad[0]['pm_typo'] = 'x'
        bad[1]['ports'].append({'address': good[0]['ports'][0]['address']})
        bad[2].update(cpu='many', capabilities='boot_mode', pm_port=99999)
        bad.append(dict(good[2], mac=['not-a-mac'], ports=[]))
        mark = self.ironic_mark()
        rows, err = self.node_import(self.write_nodes(bad, 'bad.json'),
                                     fail=True)
        self.assertEqual(['REFUSED'], [r['status'] for r in rows])
        for said in (r"nodes\[0\] \(tpc-imp-\w+-0\): unknown field "
                     r"'pm_typo'",
                     r"nodes\[1\] .*MAC %s is also nodes\[0\]" % self.macs[0],
                     r"nodes\[2\] .*cpu 'many' is not a whole number",
                     r"nodes\[2\] .*capabilities: 'boot_mode' is not "
                     r"key:value",
                     r"nodes\[2\] .*pm_port 99999 is not a port number",
                     r"nodes\[3\] .*MAC 'not-a-mac' is not a MAC address",
                     r"nodes\[3\] .*name tpc-imp-\w+-2 is also nodes\[2\]",
                     r"has 7 problems; nothing was registered"):
            self.assertRegex(err, said)
        # none of its nodes or ports (Ironic's log cannot tell: the other
        # worker's node tests write to the same Ironic)
        self.assertEqual(({}, {}), self.ours())

        # fixed: registered, manageable, ports there
        rows, err = self.node_import(self.write_nodes(good))
        self.assertEqual(['created'] * 3, [r['action'] for r in rows])
        self.assertEqual(['manageable'] * 3,
                         [r['provision_state'] for r in rows])
        nodes, macs = self.ours()
        self.assertEqual(sorted(r['uuid'] for r in rows), sorted(nodes))
        self.assertEqual({m: rows[i]['uuid']
                          for i, m in enumerate(self.macs)}, macs)
        node = nodes[rows[0]['uuid']]
        self.assertEqual('******', node['driver_info']['fake_password'])
        self.assertEqual('boot_mode:uefi,profile:control',
                         node['properties']['capabilities'])
        self.assertEqual('baremetal', node['resource_class'])
        self.assertRegex(err, r'Registering 3 nodes: done in [0-9.]+ s')

        # the same file again: no write reaches Ironic
        mark = self.ironic_mark()
        again, err = self.node_import(self.write_nodes(good))
        self.assertEqual(['unchanged'] * 3, [r['action'] for r in again])
        self.assertEqual([r['uuid'] for r in rows],
                         [r['uuid'] for r in again])
        self.assertEqual([], self.writes_to_ours(mark, rows))
        self.assertEqual(3, len(self.ours()[0]))
        self.assertEqual({u: n['updated_at'] for u, n in nodes.items()},
                         {u: n['updated_at']
                          for u, n in self.ours()[0].items()})

        # a change: one PATCH of that node, nothing else
        changed = json.loads(json.dumps(good))
        changed[1]['memory'] = 8192
        mark = self.ironic_mark()
        rows, _ = self.node_import(self.write_nodes(changed))
        self.assertEqual(['unchanged', 'updated', 'unchanged'],
                         [r['action'] for r in rows])
        self.assertEqual([('PATCH', '/v1/nodes/%s' % rows[1]['uuid'])],
                         self.writes_to_ours(mark, rows))
        self.assertEqual(3, len(self.ours()[0]))
        self.assertEqual(8192, self.ours()[0][rows[1]['uuid']][
            'properties']['memory_mb'])
        self.assert_password_nowhere()

    def mistral_kept(self):
        """What Mistral keeps of this project, as its API and CLI show it:
        the newest 1000 workflow executions, action executions (input and
        output) and tasks, and the CLI's execution lists."""
        mistral = base.Swift(self.env['LOOPBACK_MISTRAL_URL'], self.session)
        kept = {}
        for what, more in (('executions', '&include_output=true'),
                           ('action_executions', '&include_output=true'),
                           ('tasks', '')):
            status, _, body = mistral.request(
                'GET', '%s?limit=1000&sort_keys=created_at&sort_dirs=desc%s'
                % (what, more))
            self.assertEqual(200, status, body)
            kept[what] = body.decode()
        for kind in ('workflow', 'action'):
            kept['%s execution list' % kind] = self.openstack(
                kind, 'execution', 'list', '--limit', '-1', '-f', 'json')[0]
        return kept

    def test_the_passwords_are_only_in_ironic(self):
        """A member reading every object of the project's Swift account,
        again and again, during the import never sees a BMC password;
        Mistral's executions and its log hold none either; Ironic has
        it."""
        good = self.nodes_file(2)
        path = self.write_nodes(good)
        log = self.env['LOOPBACK_MISTRAL_LOG']
        log_mark = os.path.getsize(log)
        watcher = account_watcher.AccountWatcher(self.swift, self.password)
        watcher.start()
        started = time.monotonic()
        try:
            rows, err = self.node_import(path)
        finally:
            took = time.monotonic() - started
            watcher.stop()
        print('import %.2f s; watcher: %d rounds, %d objects read'
              % (took, watcher.rounds, watcher.objects_read))
        self.assertEqual([], watcher.errors)
        self.assertGreaterEqual(watcher.rounds, 2)
        self.assertEqual([], watcher.found)
        self.assertEqual([('created', 'manageable', 'SUCCESS')] * 2,
                         [(r['action'], r['provision_state'], r['status'])
                          for r in rows])
        # Ironic has it: masked when shown (nobody may read it back), and
        # fake-hardware's power and management interfaces took the
        # node's credentials (the manage verified them: manageable)
        nodes, _ = self.ours()
        for row in rows:
            self.assertEqual('******', nodes[row['uuid']]['driver_info'][
                'fake_password'])
            self.assertEqual('manageable', nodes[row['uuid']][
                'provision_state'])
        time.sleep(1)       # the log's last lines
        for where, text in self.mistral_kept().items():
            self.assertNotIn(self.password, text, where)
        with open(log, errors='replace') as f:
            f.seek(log_mark)
            said = f.read()
        self.assertNotIn(self.password, said, log)
        # the check can fail: the import is in that log
        self.assertIn('tripleoplan.node_register', said)

    def test_validate_only_registers_nothing(self):
        good = self.nodes_file(2)
        rows, _ = self.node_import(self.write_nodes(good), '--validate-only')
        self.assertEqual(['would create'] * 2, [r['action'] for r in rows])
        self.assertEqual(({}, {}), self.ours())

    def test_a_node_matching_two_is_refused(self):
        good = self.nodes_file(2)
        rows, _ = self.node_import(self.write_nodes(good))
        # node 0's name with node 1's MAC: two nodes, nothing written
        wrong = [dict(good[0], ports=good[1]['ports'])]
        mark = self.ironic_mark()
        _, err = self.node_import(self.write_nodes(wrong, 'two.json'),
                                  fail=True)
        self.assertRegex(err, r'nodes\[0\] \(tpc-imp-\w+-0\) matches 2 '
                              r'nodes in Ironic: %s .* by name .*; %s .* by '
                              r'MAC' % (rows[0]['uuid'], rows[1]['uuid']))
        self.assertEqual([], self.writes_to_ours(mark, rows))
        self.assertEqual(2, len(self.ours()[0]))

    def test_a_gui_gets_the_same(self):
        good = self.nodes_file(2)
        rows, _ = self.node_import(self.write_nodes(good))
        # inline nodes (no password): the same nodes, unchanged
        inline = [{k: v for k, v in n.items() if k != 'pm_password'}
                  for n in good]
        execution, shown = self.gui_workflow(
            'node_register', protocol.request('node_register', nodes=inline))
        self.assertEqual('SUCCESS', shown['State'], shown)
        out, _ = self.openstack('workflow', 'execution', 'output', 'show',
                                execution)
        output = json.loads(out)['node_register']
        self.assertEqual([(r['uuid'], 'unchanged') for r in rows],
                         [(r['uuid'], r['action']) for r in output['nodes']])
        # a password in a workflow's input (which Mistral keeps) is
        # refused, saying how to pass it (not the test's password: Mistral
        # keeps this input); a new node in it is not registered
        fresh = dict(inline[0], name='tpc-imp-%s-gui' % self.tag,
                     pm_port=self.port + 9, pm_password='refused-inline',
                     ports=[{'address': random_mac()}])
        _, shown = self.gui_workflow(
            'node_register', protocol.request('node_register',
                                              nodes=[fresh]))
        self.assertEqual('ERROR', shown['State'])
        for said in ('pm_password given in a request Mistral keeps',
                     'openstack overcloud node import',
                     '"save_result": false'):
            self.assertIn(said, shown['State info'])
        self.assertNotIn(fresh['name'], [n['name'] for n in
                                         self.ours()[0].values()])

    def test_import_introspect_provide(self):
        # the fake inspect interface ends an inspection at once
        good = [dict(n, inspect_interface='fake')
                for n in self.nodes_file(2)]
        rows, err = self.node_import(self.write_nodes(good), '--introspect',
                                     '--provide', '--timeout', '120')
        self.assertEqual([('created', 'available', 'SUCCESS')] * 2,
                         [(r['action'], r['provision_state'], r['status'])
                          for r in rows])
        nodes, _ = self.ours()
        self.assertEqual(['power off'] * 2,
                         [n['power_state'] for n in nodes.values()])
        self.assertIn('Introspecting 2 nodes: started in Mistral (execution ',
                      err)
        # again: nothing manageable is left to introspect; unchanged
        rows, err = self.node_import(self.write_nodes(good), '--introspect')
        self.assertEqual([('unchanged', 'available')] * 2,
                         [(r['action'], r['provision_state']) for r in rows])
        self.assertIn('No manageable node to introspect', err)

    def test_a_changed_bmc_password_is_noticed_never_said(self):
        good = self.nodes_file(2)
        rows, _ = self.node_import(self.write_nodes(good))
        digest = self.ours()[0][rows[0]['uuid']]['extra']['tripleoplan_bmc']
        self.assertNotIn(self.password, digest)
        # node 0's BMC password rotated: the new one is the test's password
        # (node_import checks it appears nowhere), the old one too
        old = self.password
        self.password = 'bmc-pw-%s' % uuid.uuid4().hex
        changed = json.loads(json.dumps(good))
        changed[0]['pm_password'] = self.password
        mark = self.ironic_mark()
        rows, err = self.node_import(self.write_nodes(changed))
        self.assertNotIn(old, json.dumps(rows) + err)
        self.assertEqual([('updated', 'BMC credentials changed'),
                          ('unchanged', None)],
                         [(r['action'], r['note']) for r in rows])
        self.assertEqual([('PATCH', '/v1/nodes/%s' % rows[0]['uuid'])],
                         self.writes_to_ours(mark, rows))
        node = self.ours()[0][rows[0]['uuid']]
        self.assertNotEqual(digest, node['extra']['tripleoplan_bmc'])
        self.assertEqual('******', node['driver_info']['fake_password'])
        # the same file again: compared, nothing written, nothing said
        mark = self.ironic_mark()
        rows, _ = self.node_import(self.write_nodes(changed))
        self.assertEqual([('unchanged', None)] * 2,
                         [(r['action'], r['note']) for r in rows])
        self.assertEqual([], self.writes_to_ours(mark, rows))
        self.assert_password_nowhere()
        self.password = old
        self.assert_password_nowhere()

    def test_other_drivers_checked_then_left_to_ironic(self):
        """idrac, ilo and irmc nodes: checked and matched here; the
        loopback's Ironic 39 enables fake-hardware only (ilo and irmc left
        Ironic before 39, idrac needs a real BMC), so it refuses them,
        each node on its own, the password said nowhere."""
        base_node = self.nodes_file(3)
        nodes = [dict(n, pm_type=kind, pm_addr='127.0.0.%d' % (20 + i),
                      pm_port=443) for i, (n, kind) in enumerate(
                          zip(base_node, ('idrac', 'ilo', 'irmc')))]
        nodes[0]['pm_system_id'] = '/redfish/v1/Systems/System.Embedded.1'
        path = self.write_nodes(nodes, 'drivers.json')
        rows, _ = self.node_import(path, '--validate-only')
        self.assertEqual(['would create'] * 3, [r['action'] for r in rows])
        self.assertEqual(({}, {}), self.ours())
        out, err = self.openstack('overcloud', 'node', 'import', path, '-f',
                                  'json', fail=True)
        self.assertNotIn(self.password, out + err)
        rows = json.loads(out)
        self.assertEqual(['failed'] * 3, [r['action'] for r in rows])
        for row, kind in zip(rows, ('idrac', 'ilo', 'irmc')):
            self.assertIn(kind, row['error'])
        self.assertEqual(({}, {}), self.ours())
