"""nodes/nodes_json.py: TripleO's node file read into Ironic bodies,
every problem named at once, passwords kept apart."""

import json
import unittest

from tripleoplanclient.nodes import nodes_json

IPMI = {'name': 'ctl-0', 'pm_type': 'pxe_ipmitool', 'pm_addr': '192.0.2.10',
        'pm_user': 'admin', 'pm_password': 's3cret-pw', 'pm_port': '6230',
        'ports': [{'address': '52:54:00:AA:BB:01',
                   'physical_network': 'ctlplane'}],
        'cpu': '4', 'memory': 8192, 'disk': 100, 'arch': 'x86_64',
        'capabilities': 'boot_mode:uefi,node:ctl-0', 'profile': 'control',
        'kernel_id': 'k', 'ramdisk_id': 'r', 'deploy_interface': 'direct',
        'root_device': {'serial': 'abc'}}


def read(*nodes, **kwargs):
    return nodes_json.read(list(nodes), 'nodes.json', **kwargs)


class TestRead(unittest.TestCase):

    def test_an_ipmi_node(self):
        entry, = read(IPMI)
        self.assertEqual({
            'name': 'ctl-0', 'driver': 'ipmi',
            'driver_info': {'ipmi_address': '192.0.2.10',
                            'ipmi_username': 'admin', 'ipmi_port': 6230,
                            'deploy_kernel': 'k', 'deploy_ramdisk': 'r'},
            'properties': {'cpus': 4, 'memory_mb': 8192, 'local_gb': 100,
                           'cpu_arch': 'x86_64',
                           'root_device': {'serial': 'abc'},
                           'capabilities': 'boot_mode:uefi,node:ctl-0,'
                                           'profile:control'},
            'resource_class': 'baremetal', 'deploy_interface': 'direct'},
            entry.body)
        self.assertEqual([{'address': '52:54:00:aa:bb:01',
                           'physical_network': 'ctlplane'}], entry.ports)
        self.assertEqual({'ipmi_password': 's3cret-pw'}, entry.secrets)
        self.assertEqual(('ipmi', '192.0.2.10', 6230), entry.bmc)
        self.assertNotIn('s3cret', repr(entry) + json.dumps(entry.body))

    def test_redfish_and_legacy_macs_and_a_mapping_of_capabilities(self):
        entry, = read({'pm_type': 'redfish', 'pm_addr': 'bmc.example:8000',
                       'pm_system_id': '/redfish/v1/Systems/1',
                       'mac': ['52:54:00:00:00:02'],
                       'capabilities': {'boot_mode': 'uefi', 'x': True}})
        self.assertEqual({'redfish_address': 'https://bmc.example:8000',
                          'redfish_system_id': '/redfish/v1/Systems/1'},
                         entry.body['driver_info'])
        self.assertEqual('boot_mode:uefi,x:true',
                         entry.body['properties']['capabilities'])
        self.assertEqual([{'address': '52:54:00:00:00:02'}], entry.ports)
        self.assertEqual(('redfish', 'bmc.example:8000',
                          '/redfish/v1/Systems/1'), entry.bmc)

    def test_the_file_forms(self):
        for text in ('{"nodes": [{"pm_type": "fake-hardware"}]}',
                     '- pm_type: fake_pxe\n'):
            entry, = nodes_json.read(nodes_json.load(text, 'f'), 'f')
            self.assertEqual('fake-hardware', entry.body['driver'])
        for text, said in (('{"nodes": {}}', 'give a list of nodes'),
                           ('[]', 'empty'), ('{"nodes": [', 'not JSON')):
            with self.assertRaises(nodes_json.NodesFileError) as caught:
                nodes_json.load(text, 'f')
            self.assertIn(said, str(caught.exception))

    def test_a_yaml_error_does_not_quote_the_line(self):
        with self.assertRaises(nodes_json.NodesFileError) as caught:
            nodes_json.load('- pm_password: "pw-in-line\n  x: [\n', 'f')
        self.assertNotIn('pw-in-line', str(caught.exception))
        self.assertIn('line', str(caught.exception))

    def test_every_problem_is_named_at_once(self):
        self.maxDiff = None
        with self.assertRaises(nodes_json.NodesFileError) as caught:
            read(IPMI,
                 dict(IPMI, pm_addr='192.0.2.11', pm_adr='x',
                      ports=[{'address': '52:54:00:aa:bb:01'}]),
                 {'name': 'c2', 'pm_type': 'ipmi', 'mac': ['zz:00'],
                  'cpu': 'four', 'capabilities': 'a:b,oops'},
                 {'name': 'r', 'pm_type': 'redfish', 'pm_addr': 'h'},
                 {'name': 'x', 'pm_type': 'oneview'},
                 {'name': 'f', 'pm_type': 'fake-hardware',
                  'pm_system_id': 'h'})
        problems = caught.exception.problems
        self.assertEqual([
            "nodes[1] (ctl-0): unknown field 'pm_adr': remove it (did you "
            "mean pm_addr?)",
            'nodes[2] (c2): pm_addr is missing: the ipmi driver needs it '
            '(the BMC address)',
            "nodes[2] (c2): cpu 'four' is not a whole number above 0 "
            "(CPUs)",
            "nodes[2] (c2): capabilities: 'oops' is not key:value (a name, "
            "then a value without \",\" or \":\")",
            "nodes[2] (c2): MAC 'zz:00' is not a MAC address (six hex pairs "
            "joined by \":\", e.g. 52:54:00:12:34:56)",
            'nodes[3] (r): pm_system_id is missing: the redfish driver '
            'needs it (the Redfish system, e.g. /redfish/v1/Systems/1)',
            "nodes[4] (x): pm_type 'oneview' is not supported: use one of "
            "fake-hardware, idrac, ilo, ilo5, ipmi, irmc, manual-management, "
            "redfish, staging-amt, staging-iboot, staging-ovirt, "
            "staging-wol, xclarity (old names such as pxe_ipmitool are read "
            "as their hardware type)",
            'nodes[5] (f): pm_system_id means nothing to the fake-hardware '
            'driver: remove it',
            "nodes[1] (ctl-0): name ctl-0 is also nodes[0] (ctl-0)'s: each "
            "node needs its own",
            "nodes[1] (ctl-0): MAC 52:54:00:aa:bb:01 is also nodes[0] "
            "(ctl-0)'s: each node needs its own"], problems)
        self.assertIn('nodes.json has 10 problems; nothing was registered',
                      str(caught.exception))
        self.assertNotIn('s3cret', str(caught.exception))

    def test_the_same_bmc_twice(self):
        with self.assertRaises(nodes_json.NodesFileError) as caught:
            read(IPMI, dict(IPMI, name='ctl-1', pm_port=6230, ports=[]))
        self.assertEqual(["nodes[1] (ctl-1): BMC ipmi 192.0.2.10 port 6230 "
                          "is also nodes[0] (ctl-0)'s: each node needs its "
                          "own"], caught.exception.problems)
        # another port is another BMC (virtual BMCs of one host)
        self.assertEqual(2, len(read(IPMI, dict(IPMI, name='ctl-1',
                                                pm_port=6231, ports=[]))))

    def test_fake_hardware_keeps_a_stand_in_bmc(self):
        entry, = read({'pm_type': 'fake-hardware', 'pm_addr': '127.0.0.1',
                       'pm_port': 7001, 'pm_password': 'pw'})
        self.assertEqual({'fake_address': '127.0.0.1', 'fake_port': 7001},
                         entry.body['driver_info'])
        self.assertEqual({'fake_password': 'pw'}, entry.secrets)
        self.assertEqual(('fake', '127.0.0.1', 7001), entry.bmc)

    def test_passwords_refused_inline(self):
        with self.assertRaises(nodes_json.NodesFileError) as caught:
            read(IPMI, passwords=False)
        self.assertIn('pm_password given in a request Mistral keeps',
                      str(caught.exception))
        self.assertNotIn('s3cret', str(caught.exception))
        entry, = read(dict(IPMI, pm_password=None), passwords=False)
        self.assertEqual({}, entry.secrets)

    def test_profile_and_capabilities_must_agree(self):
        with self.assertRaises(nodes_json.NodesFileError) as caught:
            read(dict(IPMI, capabilities='profile:compute'))
        self.assertIn('profile control and capabilities profile:compute '
                      'differ', str(caught.exception))


class TestBounds(unittest.TestCase):
    """A node file holds no YAML anchor and at most 16 MiB (issue 37)."""

    def test_an_anchor_is_refused_with_its_line(self):
        with self.assertRaises(nodes_json.NodesFileError) as caught:
            nodes_json.load('- pm_type: ipmi\n  pm_addr: 192.0.2.1\n'
                            '  ports: &p [{address: "52:54:00:aa:bb:01"}]\n'
                            '- pm_type: ipmi\n  ports: *p\n', 'f')
        self.assertEqual(
            ['line 3: it uses a YAML anchor (&p), which this file may not '
             'hold; write the value out in full wherever it is used'],
            caught.exception.problems)

    def test_a_file_beyond_the_cap(self):
        with self.assertRaises(nodes_json.NodesFileError) as caught:
            # (a NUL: refused at once by a loader without the cap too)
            nodes_json.load(b'\0' * (16 * 1024 * 1024 + 1), 'f')
        self.assertIn('more than the 16777216 this file may have',
                      str(caught.exception))
