"""nodes/staging.py: the node file staged in Swift by the client, taken
(read, then deleted) by the action; inline nodes without passwords."""

import json

from tests.unit import fakes
from tripleoplanclient import protocol
from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import nodes_json
from tripleoplanclient.nodes import staging

NODES = {'nodes': [{'name': 'n0', 'pm_type': 'ipmi', 'pm_addr': '192.0.2.1',
                    'pm_password': 'staged-pw'}]}


class TestStaging(fakes.HttpTestCase):

    def setUp(self):
        super().setUp()
        self.swift = fakes.FakeSwift(self.m, plan=staging.CONTAINER)
        self.m.put(fakes.SWIFT + '/' + staging.CONTAINER, status_code=201)
        self.conn = fakes.swift_connection()

    def request(self, **fields):
        return protocol.read('node_register', protocol.request(
            'node_register', **fields))

    def test_staged_then_taken_once(self):
        staged = staging.put(self.conn, json.dumps(NODES).encode())
        name = staged.split('/', 1)[1]
        self.assertIn(name, self.swift.objects)
        put, = [r for r in self.m.request_history
                if r.method == 'PUT' and name in r.url]
        self.assertEqual(str(staging.EXPIRES).encode(),
                         put.headers['X-Delete-After'])
        entry, = staging.entries(self.request(staged=staged),
                                 lambda: self.conn)
        self.assertEqual({'ipmi_password': 'staged-pw'}, entry.secrets)
        self.assertNotIn(name, self.swift.objects)
        with self.assertRaises(exceptions.CommandError) as caught:
            staging.entries(self.request(staged=staged), lambda: self.conn)
        self.assertIn('is not in Swift (taken by an earlier run, or '
                      'expired)', str(caught.exception))

    def test_a_bad_file_is_deleted_too(self):
        staged = staging.put(self.conn, b'{"nodes": [{"pm_type": "x"}]}')
        with self.assertRaises(nodes_json.NodesFileError):
            staging.entries(self.request(staged=staged), lambda: self.conn)
        self.assertEqual({}, self.swift.objects)

    def test_only_a_staged_node_file_is_read(self):
        for name in ('p/plan-environment.yaml',
                     staging.CONTAINER + '/../x', staging.CONTAINER + '/x'):
            with self.assertRaises(exceptions.CommandError) as caught:
                staging.entries(self.request(staged=name), lambda: self.conn)
            self.assertIn('is not a staged node file', str(caught.exception))
        self.assertEqual([], [r for r in self.m.request_history
                              if r.method in ('GET', 'DELETE')])

    def test_inline_nodes_carry_no_password(self):
        with self.assertRaises(nodes_json.NodesFileError) as caught:
            staging.entries(self.request(nodes=NODES['nodes']), None)
        self.assertIn('pm_password given in the request', str(
            caught.exception))
        self.assertNotIn('staged-pw', str(caught.exception))
        node = dict(NODES['nodes'][0], pm_password=None)
        entry, = staging.entries(self.request(nodes=[node]), None)
        self.assertEqual('n0', entry.body['name'])

    def test_one_of_the_two(self):
        for fields in ({}, {'nodes': [], 'staged': 'x'}):
            with self.assertRaises(exceptions.CommandError) as caught:
                staging.entries(self.request(**fields), None)
            self.assertIn('one of the two', str(caught.exception))
