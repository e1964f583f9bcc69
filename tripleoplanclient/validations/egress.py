"""The only way out of a validation's sandbox: a proxy that lets through
what the run is meant to reach and nothing else.

The sandbox has a network namespace of its own (no interface but its
own loopback), so a playbook cannot reach the undercloud's unguarded
ports (Swift's storage servers, memcached, the message queue, the
databases) however it tries. ``relay.py`` inside listens on the
sandbox's loopback (``http_proxy``) and is SSH's ProxyCommand; both
carry each connection to this proxy over a unix socket in the run's
scratch directory. Allowed: the run's ``targets``, (host, port) pairs:
the catalog's endpoints (Keystone-validated, each asks for a token)
and the plan's servers at their SSH port. Names are resolved here, by
the executor's resolver, once when the proxy starts; a request is
carried to an address of that set only, so a name that resolves
elsewhere later (DNS rebinding) reaches nothing new.

Requests (HTTP/1.1 forms, so urllib and Ansible's ``uri`` speak it):
``CONNECT host:port``; an absolute-form ``GET http://host:port/path``
(sent on as origin-form, with ``Connection: close``); ``RESOLVE name``
(the executor's addresses for a name: the sandbox has no DNS of its
own; only the targets' names and the undercloud's own, so no data
leaves by DNS); ``STATFS path`` (the size and free space of one of the
undercloud's mount points, as JSON: the sandbox's ``/`` is its own).
Anything else, or a target not allowed: 403 with the reason (the
runner's own where it gave one, e.g. a server the plan may not reach).
"""

import json
import os
import re
import socket
import threading
import urllib.parse

# stdlib only, run inside the sandbox too
from tripleoplanclient.validations.sandboxed import relay

HEAD_LIMIT = 65536
# connections carried at once; a playbook opening more waits
MAX_CONNECTIONS = 32
TIMEOUT = 10
_NAME = re.compile(r'^[A-Za-z0-9._:-]{1,253}$')


def target(url):
    """(host, port) of an endpoint URL."""
    parts = urllib.parse.urlsplit(url)
    port = parts.port or (443 if parts.scheme == 'https' else 80)
    return parts.hostname, port


def _addresses(host, port, resolve):
    try:
        found = resolve(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return []
    return [(info[4][0], port) for info in found]


class Proxy:
    """Listen on unix socket ``path``; carry connections to ``targets``.

    ``resolve``: getaddrinfo's signature (tests give their own)."""

    def __init__(self, path, targets, resolve=socket.getaddrinfo,
                 timeout=TIMEOUT, refused=None):
        self.path, self.resolve, self.timeout = path, resolve, timeout
        self.targets = sorted({(h, int(p)) for h, p in targets if h})
        # (host, port) -> why it may not be reached, said as the refusal
        self.refused = dict(refused or {})
        # the names RESOLVE answers
        self.names = {h for h, _ in self.targets} | {socket.gethostname()}
        self.allowed = set()
        for host, port in self.targets:
            self.allowed.update(_addresses(host, port, resolve))
        # (host, port) asked for: None once connected, else why not
        # (ssh hides its ProxyCommand's words: the runner tells them)
        self.attempts = {}
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._open = set()
        self._lock = threading.Lock()
        self._closed = False
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(path)
        self._server.listen(MAX_CONNECTIONS)
        threading.Thread(target=self._accept, daemon=True).start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Stop listening and cut every connection still carried."""
        with self._lock:
            self._closed = True
            sockets = list(self._open)
        for sock in [self._server] + sockets:
            _close(sock)

    def _track(self, sock):
        with self._lock:
            if self._closed:
                _close(sock)
                return False
            self._open.add(sock)
            return True

    def _accept(self):
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            self._slots.acquire()
            if not self._track(client):
                self._slots.release()
                return
            threading.Thread(target=self._serve, args=(client,),
                             daemon=True).start()

    def _serve(self, client):
        upstream = None
        try:
            client.settimeout(self.timeout)
            head, rest = _read_head(client)
            if head is None:
                return
            upstream, opening = self._open_upstream(client, head)
            if upstream is None:
                return
            # the timeout was for the request and the connect: a
            # connection carried may stay silent (a long task over SSH)
            client.settimeout(None)
            upstream.settimeout(None)
            upstream.sendall(opening + rest)
            relay.splice(client, upstream)
        except OSError:
            pass
        finally:
            for sock in (client, upstream):
                if sock is not None:
                    with self._lock:
                        self._open.discard(sock)
                    _close(sock)
            self._slots.release()

    def _open_upstream(self, client, head):
        """The connection ``head`` asks for and the bytes to send on it
        first; (None, None) once the client has its refusal."""
        lines = head.decode('latin-1').split('\r\n')
        words = lines[0].split(' ')
        if len(words) != 3:
            return self._refuse(client, 400, 'not an HTTP request line')
        method, uri, _ = words
        if method == 'RESOLVE':
            return self._answer_resolve(client, uri)
        if method == 'STATFS':
            return self._answer_statfs(client, uri)
        if method == 'CONNECT':
            host, _, port = uri.rpartition(':')
            host = host.strip('[]')
            opening = b''
        else:
            parts = urllib.parse.urlsplit(uri)
            if parts.scheme != 'http' or not parts.hostname:
                return self._refuse(client, 400, 'a proxy request names '
                                    'its http:// target in full')
            host, port = target(uri)
            path = urllib.parse.urlunsplit(('', '', parts.path or '/',
                                            parts.query, ''))
            kept = [line for line in lines[1:] if line and not
                    line.lower().startswith(('proxy-', 'connection:'))]
            opening = ('\r\n'.join(['%s %s HTTP/1.1' % (method, path)] +
                                   kept + ['Connection: close', '', ''])
                       ).encode('latin-1')
        try:
            port = int(port)
        except ValueError:
            return self._refuse(client, 400, 'no port in %r' % uri)
        where = [a for a in _addresses(host, port, self.resolve)
                 if a in self.allowed]
        if not where:
            return self._refuse(client, 403, self.refused.get(
                (host, port)) or (
                '%s:%d is neither a service of the catalog nor a server of '
                'the plan: a validation reaches nothing else' % (host, port)),
                (host, port))
        self.attempts[(host, port)] = 'no answer from %s:%d' % (host, port)
        try:
            upstream = socket.create_connection(where[0], self.timeout)
        except OSError as exc:
            return self._refuse(client, 502, 'cannot reach %s:%d: %s' % (
                host, port, exc.strerror or exc), (host, port))
        if not self._track(upstream):
            return None, None
        self.attempts[(host, port)] = None
        if method == 'CONNECT':
            client.sendall(b'HTTP/1.1 200 Connection established\r\n\r\n')
        return upstream, opening

    def _answer_resolve(self, client, name):
        if not _NAME.match(name):
            return self._refuse(client, 400, 'not a host name: %r' % name)
        if name not in self.names:
            return self._refuse(client, 403, (
                '%s is not the name of a service of the catalog, a server '
                'of the plan or the undercloud: a validation resolves '
                'nothing else' % name))
        found = sorted({a for a, _ in _addresses(name, 0, self.resolve)})
        if not found:
            return self._refuse(client, 404, '%s does not resolve' % name)
        _send(client, 200, '\n'.join(found) + '\n')
        return None, None

    def _answer_statfs(self, client, path):
        # mount points only: sizes of file systems are no secret, the
        # existence of a path elsewhere may be
        if path not in mount_points():
            # which are is not said: the executor's mounts are its own
            return self._refuse(client, 404, (
                '%s is not a mount point of the undercloud' % path))
        found = os.statvfs(path)
        _send(client, 200, json.dumps({
            'path': path, 'total': found.f_blocks * found.f_frsize,
            'free': found.f_bfree * found.f_frsize,
            'available': found.f_bavail * found.f_frsize}))
        return None, None

    def _refuse(self, client, status, reason, what=None):
        if what is not None:
            self.attempts[what] = reason
        _send(client, status, 'tripleoplan egress: %s\n' % reason)
        return None, None


_REASONS = {200: 'OK', 400: 'Bad Request', 403: 'Forbidden',
            404: 'Not Found', 502: 'Bad Gateway'}


def mount_points(mounts='/proc/self/mounts'):
    """The executor's mount points (octal escapes of the kernel's
    table undone)."""
    with open(mounts) as f:
        return {re.sub(r'\\([0-7]{3})', lambda m: chr(int(m.group(1), 8)),
                       line.split()[1]) for line in f if line.strip()}


def _send(client, status, body):
    data = body.encode()
    client.sendall(('HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n'
                    'Content-Length: %d\r\nConnection: close\r\n\r\n' % (
                        status, _REASONS[status], len(data))).encode() +
                   data)


def _read_head(sock):
    """(head, bytes after it); (None, None) when the client went away
    or sent no complete head within the limit."""
    data = b''
    while b'\r\n\r\n' not in data:
        if len(data) > HEAD_LIMIT:
            return None, None
        chunk = sock.recv(8192)
        if not chunk:
            return None, None
        data += chunk
    head, _, rest = data.partition(b'\r\n\r\n')
    return head, rest


def _close(sock):
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass
