import requests

from tests.unit import fakes
from tests.unit.nodes import fake_ironic
from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import discovery
from tripleoplanclient.nodes import ironic
from tripleoplanclient.nodes import nodes_json
from tripleoplanclient.nodes import register

SYSTEMS = {'@odata.id': '/redfish/v1/Systems',
           'Members': [{'@odata.id': '/redfish/v1/Systems/1'}]}
CREDENTIALS = [['root', 'wrong-one'], ['admin', 's3cret']]


class TestDiscovery(fake_ironic.TestCase):

    def setUp(self):
        super().setUp()
        self.ironic = ironic.Ironic(fakes.session(), fake_ironic.URL)

    def bmc(self, target, users=None, systems=SYSTEMS, status=None):
        """A Redfish BMC at ``target`` taking ``users`` ({user:
        password})."""
        users = {'admin': 's3cret'} if users is None else users

        def answer(request, context):
            given = request.headers.get('Authorization')
            import base64
            for user, password in users.items():
                token = base64.b64encode(
                    ('%s:%s' % (user, password)).encode()).decode()
                if given == 'Basic ' + token:
                    context.status_code = status or 200
                    return systems
            context.status_code = 401
            return {'error': 'unauthorized'}

        self.m.get(target + '/redfish/v1/Systems', json=answer)

    def nothing_at(self, target):
        self.m.get(target + '/redfish/v1/Systems',
                   exc=requests.exceptions.ConnectionError)

    def enroll(self, entries):
        return register.register(self.ironic, nodes_json.read(
            entries, 'The discovered BMCs'), sleep=lambda s: None)

    def test_found_bmcs_registered_with_the_credential_they_took(self):
        self.bmc('http://127.0.5.7:8000')
        self.bmc('http://127.0.5.8:8000', users={'root': 'other'})
        self.m.get('http://127.0.5.9:8000/redfish/v1/Systems',
                   text='<html>a web server</html>')
        self.nothing_at('http://127.0.5.10:8000')
        found = discovery.discover(
            ['127.0.5.7', '127.0.5.8', '127.0.5.9', '127.0.5.10'], [8000],
            CREDENTIALS, self.enroll)
        self.assertEqual(4, found['probed'])
        rows = {r['address']: r for r in found['nodes']}
        self.assertEqual(['127.0.5.7', '127.0.5.8'], sorted(rows))
        seven = rows['127.0.5.7']
        self.assertEqual(('/redfish/v1/Systems/1', 'SUCCESS', 'manageable',
                          None), (seven['system'], seven['status'],
                                  seven['provision_state'], seven['error']))
        node = self.fake.node(seven['uuid'])
        self.assertEqual(('redfish', 'http://127.0.5.7:8000', 'admin',
                          's3cret', '/redfish/v1/Systems/1'), (
            node['driver'], node['driver_info']['redfish_address'],
            node['driver_info']['redfish_username'],
            node['driver_info']['redfish_password'],
            node['driver_info']['redfish_system_id']))
        self.assertEqual(('FAILED', None), (rows['127.0.5.8']['status'],
                                            rows['127.0.5.8']['uuid']))
        self.assertIn('took none of the 2 credentials',
                      rows['127.0.5.8']['error'])
        self.assertEqual(1, found['failed'])
        self.assertNotIn('s3cret', str(found))

        # again: the same node, updated rather than registered twice
        again = discovery.discover(['127.0.5.7'], [8000], CREDENTIALS,
                                   self.enroll)
        self.assertEqual(seven['uuid'], again['nodes'][0]['uuid'])
        self.assertEqual(1, len(self.fake.nodes))

    def test_https_on_443_and_a_refusal_by_ironic_without_password(self):
        self.bmc('https://127.0.5.7:443')
        self.fake.refuse('POST', '/nodes', 400,
                         'No conductor supports driver redfish (s3cret)')
        found = discovery.discover(['127.0.5.7'], None, CREDENTIALS,
                                   self.enroll)
        row = found['nodes'][0]
        self.assertEqual((443, 'FAILED'), (row['port'], row['status']))
        self.assertIn('No conductor supports driver redfish', row['error'])
        self.assertNotIn('s3cret', row['error'])

    def test_requests_bounded_and_checked_before_any_probe(self):
        many = ['10.0.%d.%d' % (i // 256, i % 256) for i in range(1025)]
        for args, said in (
                ((many, None, CREDENTIALS), 'more than 1024 probes'),
                ((many[:600], [80, 8000], CREDENTIALS), 'more than 1024'),
                ((['127.0.5.300'], None, CREDENTIALS), 'IP addresses'),
                (([], None, CREDENTIALS), 'non-empty list'),
                ((['127.0.5.1'], [0], CREDENTIALS), 'port numbers'),
                ((['127.0.5.1'], ['443'], CREDENTIALS), 'port numbers'),
                ((['127.0.5.1'], None, [['admin']]), 'credentials'),
                ((['127.0.5.1'], None, []), 'credentials')):
            with self.assertRaisesRegex(exceptions.CommandError, said):
                discovery.discover(*args, register=self.enroll)
        self.assertEqual(0, self.m.call_count)

    def test_ipv6_url(self):
        self.assertEqual('http://[fd00::7]:8000',
                         discovery.url('fd00::7', 8000))
        self.assertEqual('https://127.0.5.7:443',
                         discovery.url('127.0.5.7', 443))
