"""overcloud node discover as a command: the addresses and credentials
read here, the node_discover action run on its own and unsaved by a
Mistral that runs its body (``nodes.discovery`` with the register path)
on the fake Ironic, BMCs faked at the HTTP level."""

import base64
import json

import requests

from tests.unit import fakes
from tests.unit.nodes import fake_ironic
from tests.unit.osc import node_commands
from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import discovery
from tripleoplanclient.nodes import ironic
from tripleoplanclient.nodes import nodes_json
from tripleoplanclient.nodes import register
from tripleoplanclient.osc import node_discover
from tripleoplanclient import protocol
from tripleoplanclient.workflows import fleet

SYSTEMS = {'Members': [{'@odata.id': '/redfish/v1/Systems/1'},
                       {'@odata.id': '/redfish/v1/Systems/2'}]}


class DiscoveryMistral(fakes.FakeMistral):

    def __init__(self, mocker, ironic_):
        super().__init__(mocker, None)
        self.ironic = ironic_

    def _run(self, action, request):
        from requests_mock import mocker
        held = mocker._send_lock._release_save()
        try:
            req = protocol.read('node_discover', request)
            return 'SUCCESS', discovery.discover(
                req['addresses'], req['ports'], req['credentials'],
                lambda entries: register.register(
                    self.ironic, nodes_json.read(entries, 'found'),
                    sleep=lambda s: None))
        except exceptions.CommandError as exc:
            return 'ERROR', str(exc)
        finally:
            mocker._send_lock._acquire_restore(held)


class TestDiscoverCommand(fake_ironic.TestCase):

    def setUp(self):
        super().setUp()
        self.mistral = DiscoveryMistral(self.m, ironic.Ironic(
            fakes.session(), fake_ironic.URL))
        token = base64.b64encode(b'admin:pa:ss').decode()

        def answer(request, context):
            if request.headers.get('Authorization') == 'Basic ' + token:
                return SYSTEMS
            context.status_code = 401
            return {}

        self.m.get('http://127.0.5.5:8000/redfish/v1/Systems', json=answer)
        for last in (4, 6):
            self.m.get('http://127.0.5.%d:8000/redfish/v1/Systems' % last,
                       exc=requests.exceptions.ConnectTimeout)

    def run_command(self, *argv):
        return node_commands.run_json(node_discover.DiscoverNode, {
            'workflow': fakes.MISTRAL, 'baremetal': fake_ironic.URL}, *argv)

    def test_a_range_each_system_a_row_run_unsaved(self):
        code, rows, err = self.run_command(
            '--range', '127.0.5.4/30', '--port', '8000', '--credentials',
            'root:x', '--credentials', 'admin:pa:ss')
        self.assertEqual(0, code, err)
        self.assertEqual([('127.0.5.5', 8000, '/redfish/v1/Systems/1',
                           'manageable', 'SUCCESS'),
                          ('127.0.5.5', 8000, '/redfish/v1/Systems/2',
                           'manageable', 'SUCCESS')],
                         [(r['address'], r['port'], r['system'],
                           r['provision_state'], r['status']) for r in rows])
        self.assertIn('2 probe(s): 2 BMC system(s) registered, 0 failed',
                      err)
        sent = [r for r in self.m.request_history
                if r.path.endswith('/action_executions')]
        self.assertEqual(1, len(sent))
        body = sent[0].json()
        self.assertEqual({'run_sync': True, 'save_result': False},
                         json.loads(body['params']))
        self.assertEqual(['127.0.5.5', '127.0.5.6'], json.loads(
            body['input'])['request']['addresses'])
        self.assertNotIn('pa:ss', err + json.dumps(rows))

    def test_refused_before_mistral_is_asked(self):
        for argv, said in (
                (['--range', '127.0.5.0/21'], '2048 addresses: more than'),
                (['--range', 'ten'], 'is not an address range'),
                (['--ip', '127.0.5.5', '--ip', 'bmc-1'], 'not an IP'),
                (['--ip', '127.0.5.5', '--credentials', 'nopassword'],
                 'USER:PASSWORD')):
            if '--credentials' not in argv:
                argv = argv + ['--credentials', 'admin:x']
            code, rows, err = self.run_command(*argv)
            self.assertEqual((3, ['REFUSED']),
                             (code, [r['status'] for r in rows]), err)
            self.assertIn(said, err)
        self.assertEqual([], self.mistral.runs)

    def test_addresses_of_a_range(self):
        self.assertEqual(['127.0.5.1', '127.0.5.2'],
                         fleet.addresses(cidr='127.0.5.0/30'))
        self.assertEqual(1022, len(fleet.addresses(
            cidr='127.0.5.0/22')))
        self.assertEqual(['127.0.5.9'], fleet.addresses(
            cidr='127.0.5.9/32'))
        self.assertEqual(['127.0.5.9', '127.0.5.1'], fleet.addresses(
            ['127.0.5.9', '127.0.5.1', '127.0.5.9']))
