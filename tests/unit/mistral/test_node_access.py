"""Who reaches Ironic through the node actions: with Keystone, only a
caller whose validated token has the admin role, refused before any
request to Ironic; without Keystone (no role known), Ironic decides."""

import types

from tests.unit.nodes import fake_ironic
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import node_access
from tripleoplanclient import protocol

CATALOG = [{'type': 'baremetal', 'endpoints': [
    {'interface': 'public', 'url': fake_ironic.URL}]}]


def context(roles, keystone=True):
    """An action's context: Keystone's description of the caller's
    token (``roles``), or a bare catalog when Mistral runs without
    Keystone."""
    body = {'token': {
        'user': {'id': 'u1', 'name': 'alice'},
        'project': {'id': 'p1', 'name': 'overcloud'},
        'roles': [{'id': 'r%d' % i, 'name': r} for i, r in enumerate(roles)],
        'catalog': CATALOG}} if keystone else CATALOG
    return types.SimpleNamespace(security=types.SimpleNamespace(
        auth_token='user-token', service_catalog=body, project_id='p1',
        project_name=None, user_name=None, is_target=False))


class TestAdminRole(fake_ironic.TestCase):

    def setUp(self):
        super().setUp()
        self.fake.add_node(name='n0', provision_state='manageable')

    def request(self):
        return protocol.read('node_provide', protocol.request(
            'node_provide', nodes=['n0'], timeout=60))

    def test_a_member_is_refused_before_any_request_to_ironic(self):
        # Ironic itself would let a member of the owning project drive
        # its node: the refusal is ours, whatever Ironic holds
        with self.assertRaises(exceptions.CommandError) as caught:
            node_access.ironic(context(['member', 'reader']),
                               self.request())
        message = str(caught.exception)
        for word in ('alice', 'member, reader', 'overcloud',
                     'need the admin role', 'Nothing was changed'):
            self.assertIn(word, message)
        self.assertEqual([], self.m.request_history)

    def test_a_token_without_roles_is_refused(self):
        with self.assertRaises(exceptions.CommandError) as caught:
            node_access.ironic(context([]), self.request())
        self.assertIn('alice has no role in project overcloud',
                      str(caught.exception))
        self.assertEqual([], self.m.request_history)

    def test_an_admin_reaches_ironic_with_its_token(self):
        found = node_access.ironic(context(['member', 'admin']),
                                   self.request())
        self.assertEqual(['n0'], [n['name'] for n in found.nodes(('name',))])
        self.assertEqual('user-token',
                         self.m.request_history[0].headers['X-Auth-Token'])

    def test_without_keystone_ironic_decides(self):
        found = node_access.ironic(context([], keystone=False),
                                   self.request())
        self.assertEqual(['n0'], [n['name'] for n in found.nodes(('name',))])


class TestRecordedServers(fake_ironic.TestCase):
    """The servers a plan's validations may reach from Ironic: what node
    provision recorded for the plan and the caller's project, read only
    for an administrator (only one writes Ironic)."""

    def setUp(self):
        super().setUp()
        for name, project, address in (('a', 'p1', '127.0.0.21'),
                                       ('b', 'p2', '127.0.0.22'),
                                       ('c', None, '127.0.0.23')):
            record = {'plan': 'oc', 'hostname': name,
                      'ctlplane_ip': address}
            if project:
                record['project'] = project
            self.fake.add_node(name=name, provision_state='active',
                               instance_uuid='i-' + name,
                               extra={'tripleoplan': record})

    def test_an_administrator_gets_the_plans_nodes_of_its_project(self):
        self.assertEqual(['127.0.0.21'], node_access.recorded_servers(
            context(['admin']), 'oc'))
        self.assertEqual([], node_access.recorded_servers(
            context(['admin']), 'other'))

    def test_a_member_or_no_keystone_gets_none_and_asks_nothing(self):
        for ctx in (context(['member']), context([], keystone=False)):
            self.assertEqual([], node_access.recorded_servers(ctx, 'oc'))
        self.assertEqual([], self.m.request_history)

    def test_ironic_failing_gives_none(self):
        self.fake.refuse('GET', '/nodes', 503, 'down')
        self.assertEqual([], node_access.recorded_servers(
            context(['admin']), 'oc'))
