"""Runs inside a validation's sandbox: its way to the egress proxy.

The sandbox's network is its own loopback; the proxy (``egress``) is
outside, on a unix socket in the run's scratch directory. Standalone
(standard library only): the package itself is not mounted inside.

``relay.py serve SOCKET PORT -- ARGV...``
    listen on 127.0.0.1:PORT (the playbook's ``http_proxy``), carry
    each connection to SOCKET, run ARGV; exit with its status.
``relay.py connect SOCKET HOST PORT``
    SSH's ProxyCommand: CONNECT HOST:PORT, then stdin/stdout.
``relay.py probe SOCKET HOST PORT``
    exit 0 when HOST:PORT accepts a connection, else say why.
``relay.py resolve SOCKET NAME``
    print NAME's addresses as the undercloud resolves them.
``relay.py statfs SOCKET PATH``
    print the size and free space of the undercloud's mount point
    PATH (JSON: path, total, free, available, in bytes).
"""

import os
import signal
import socket
import subprocess
import sys
import threading


def _unix(path):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    return sock


def _pump(src, dst):
    try:
        while True:
            chunk = src.recv(65536)
            if not chunk:
                break
            dst.sendall(chunk)
    except OSError:
        pass
    # half-close: the other way may still be answering
    try:
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def splice(a, b):
    """Bytes both ways between sockets ``a`` and ``b`` until both sides
    are done (the egress proxy's too)."""
    other = threading.Thread(target=_pump, args=(b, a), daemon=True)
    other.start()
    _pump(a, b)
    other.join()


def _carry(client, path):
    try:
        upstream = _unix(path)
    except OSError:
        client.close()
        return
    splice(client, upstream)
    client.close()
    upstream.close()


def serve(path, port, argv):
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(('127.0.0.1', port))
    listener.listen(64)

    def accept():
        while True:
            client, _ = listener.accept()
            threading.Thread(target=_carry, args=(client, path),
                             daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    child = subprocess.Popen(argv)
    # ``validation stop`` signals the group: let ansible-playbook end
    signal.signal(signal.SIGTERM, lambda *a: child.terminate())
    rc = child.wait()
    sys.stdout.flush()
    os._exit(rc if rc >= 0 else 128 - rc)


def _ask(path, line):
    """Send one request; the socket and the answer's head."""
    sock = _unix(path)
    sock.sendall(line.encode() + b'\r\n\r\n')
    data = b''
    while b'\r\n\r\n' not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b'\r\n\r\n')
    return sock, head.decode('latin-1'), rest


def _status(head):
    words = head.split(' ', 2)
    return int(words[1]) if len(words) > 1 and words[1].isdigit() else 0


def connect(path, host, port):
    sock, head, rest = _ask(path, 'CONNECT %s:%s HTTP/1.1' % (host, port))
    if _status(head) != 200:
        sys.stderr.write(_body(sock, rest))
        return 255
    out = sys.stdout.buffer
    out.write(rest)
    out.flush()

    def upward():
        try:
            while True:
                chunk = os.read(0, 65536)
                if not chunk:
                    break
                sock.sendall(chunk)
        except OSError:
            pass
        try:
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    threading.Thread(target=upward, daemon=True).start()
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return 0
        out.write(chunk)
        out.flush()


def probe(path, host, port):
    sock, head, rest = _ask(path, 'CONNECT %s:%s HTTP/1.1' % (host, port))
    if _status(head) == 200:
        sock.close()
        return 0
    sys.stderr.write(_body(sock, rest))
    return 1


def _body(sock, rest):
    data = rest
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data.decode(errors='replace')


def answer(path, request, what):
    """Print the proxy's answer to ``request what``; 0 when it has one."""
    sock, head, rest = _ask(path, '%s %s TRIPLEOPLAN/1' % (request, what))
    body = _body(sock, rest)
    (sys.stdout if _status(head) == 200 else sys.stderr).write(body)
    return 0 if _status(head) == 200 else 2


def main(args):
    if args[:1] == ['serve'] and len(args) > 4 and args[3] == '--':
        return serve(args[1], int(args[2]), args[4:])
    if args[:1] == ['connect'] and len(args) == 4:
        return connect(args[1], args[2], args[3])
    if args[:1] == ['probe'] and len(args) == 4:
        return probe(args[1], args[2], args[3])
    if args[:1] in (['resolve'], ['statfs']) and len(args) == 3:
        return answer(args[1], args[0].upper(), args[2])
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
