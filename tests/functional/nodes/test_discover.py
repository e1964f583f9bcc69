"""overcloud node discover through the real CLI and Mistral: a small
Redfish responder of the test's own on 127.0.0.7 (the Systems collection
behind basic auth), 127.0.0.8 and 127.0.0.9 where nothing listens.

The loopback Ironic runs fake-hardware only, so it refuses to register a
redfish node: each system found is a row with Ironic's reason (the
registration path itself is node import's, tested there); what this
proves is the probe, the credentials tried in order, the bounds, and that
the password stays out of Mistral.
"""

import glob
import http.server
import json
import os
import subprocess
import threading
import uuid

from tests.functional import base
from tests.functional import ironic_base

BMC = '127.0.0.7'


class _Redfish(http.server.BaseHTTPRequestHandler):

    def do_GET(self):
        import base64
        server = self.server
        server.asked.append(self.headers.get('Authorization'))
        token = base64.b64encode(('admin:%s' % server.password).encode())
        if self.path != '/redfish/v1/Systems':
            self.send_error(404)
        elif self.headers.get('Authorization') != 'Basic ' + token.decode():
            self.send_error(401)
        else:
            body = json.dumps({'Members': [
                {'@odata.id': '/redfish/v1/Systems/%s' % s}
                for s in server.systems]}).encode()
            self.send_response(200)
            self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    def log_message(self, *args):
        pass


class NodeDiscoverTest(base.FunctionalTest, ironic_base.IronicCase):

    def setUp(self):
        super().setUp()
        self.password = 'bmc-pw-%s' % uuid.uuid4().hex
        server = http.server.ThreadingHTTPServer((BMC, 0), _Redfish)
        server.password, server.asked = self.password, []
        server.systems = ['after-%s' % uuid.uuid4().hex[:8]]
        self.server, self.port = server, server.server_address[1]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)

    def discover(self, *args):
        proc = subprocess.run(
            ['openstack', 'overcloud', 'node', 'discover', '-f', 'json']
            + list(args), env=self.env, capture_output=True, text=True,
            stdin=subprocess.DEVNULL, timeout=300)
        self.assertNotIn('Traceback', proc.stderr)
        self.assertNotIn(self.password, proc.stdout + proc.stderr)
        return proc.returncode, json.loads(proc.stdout), proc.stderr

    def test_probe_credentials_in_order_and_the_password_kept_nowhere(self):
        code, rows, err = self.discover(
            '--ip', BMC, '--ip', '127.0.0.8', '--ip', '127.0.0.9',
            '--port', str(self.port), '--credentials', 'admin:wrong',
            '--credentials', 'admin:%s' % self.password)
        self.assertEqual(1, code, err)
        self.assertEqual([(BMC, self.port, '/redfish/v1/Systems/%s'
                           % self.server.systems[0], 'FAILED')],
                         [(r['address'], r['port'], r['system'],
                           r['status']) for r in rows])
        # the loopback Ironic has no redfish hardware type
        self.assertIn('redfish', rows[0]['error'])
        self.assertIn('3 probe(s): 0 BMC system(s) registered, 1 failed',
                      err)
        # without credentials, then the wrong ones, then the right ones
        self.assertEqual(3, len(self.server.asked))
        self.assertIsNone(self.server.asked[0])
        self.assert_password_nowhere()

    def test_a_bmc_taking_no_credential_and_bounds(self):
        code, rows, err = self.discover(
            '--range', '%s/32' % BMC, '--port', str(self.port),
            '--credentials', 'admin:wrong')
        self.assertEqual((1, [None]), (code, [r['system'] for r in rows]))
        self.assertIn('took none of the 1 credentials', rows[0]['error'])
        code, rows, err = self.discover('--range', '127.0.0.0/21',
                                        '--credentials', 'admin:x')
        self.assertEqual((3, ['REFUSED']), (code, [r['status'] for r in rows]))
        self.assertIn('more than the 1024 (a /22)', err)

    def assert_password_nowhere(self):
        """Not in what Mistral keeps of the project, nor in its logs."""
        mistral = base.Swift(self.env['LOOPBACK_MISTRAL_URL'], self.session)
        for what in ('executions', 'action_executions', 'tasks'):
            status, _, body = mistral.request(
                'GET', '%s?limit=1000&sort_keys=created_at&sort_dirs=desc%s'
                % (what, '' if what == 'tasks' else '&include_output=true'))
            self.assertEqual(200, status, body)
            self.assertNotIn(self.password, body.decode(), what)
        for log in glob.glob(os.path.join(
                os.path.dirname(self.env['LOOPBACK_MISTRAL_LOG']), '*.log')):
            with open(log, errors='replace') as f:
                self.assertNotIn(self.password, f.read(), log)
