"""Small helpers every service uses: messages, errors, files, templates,
ports and plain HTTP on 127.0.0.1."""

from __future__ import annotations

import os
from pathlib import Path
import socket
import string
import sys
import urllib.error
import urllib.request

HOST = '127.0.0.1'
PACKAGE = Path(__file__).resolve().parent          # tools/loopback
REPO = PACKAGE.parent.parent
TEMPLATES = PACKAGE / 'templates'


class LoopbackError(Exception):
    """A failure to report to the user without a traceback.

    args[0] is the message; args[1], when given, a log file whose tail
    explains it (see process.with_log_tail).
    """


def say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def env_port(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


def not_installed(service: str, what: str) -> LoopbackError:
    return LoopbackError(
        '%s: %s not found; install the system packages first: '
        'sudo bash %s' % (service, what, REPO / 'tools' / 'bootstrap.sh'))


# ---------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------

def render(name: str, **values) -> str:
    """templates/<name> with $names replaced (string.Template: a missing
    value is an error, and % or {} in the configuration need no escape)."""
    return string.Template((TEMPLATES / name).read_text()).substitute(values)


def write_if_changed(path: Path, text: str, mode: int | None = None
                     ) -> bool:
    """Replace path's text (atomically) when it differs; ``mode``: its
    permissions too."""
    if path.exists() and path.read_text() == text:
        if mode is not None and path.stat().st_mode & 0o777 != mode:
            os.chmod(path, mode)
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + '.tmp')
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                 0o666 if mode is None else mode)
    with os.fdopen(fd, 'w') as f:
        if mode is not None:
            os.fchmod(fd, mode)     # a leftover tmp kept its old one
        f.write(text)
    os.replace(tmp, path)
    return True


def tail(path: Path, lines: int = 30) -> str:
    """The last lines of a log, from the last start of its process on."""
    try:
        with open(path, 'rb') as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 64 * 1024))
            data = f.read().decode('utf-8', 'replace')
    except OSError as e:
        return '(cannot read %s: %s)' % (path, e)
    marker = data.rfind('=== loopback start ')
    if marker >= 0:
        data = data[marker:]
    return '\n'.join(data.splitlines()[-lines:])


def log_size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


def log_since(path: Path, offset: int) -> str:
    try:
        with open(path, 'rb') as f:
            f.seek(offset)
            return f.read().decode('utf-8', 'replace')
    except OSError:
        return ''


# ---------------------------------------------------------------------------
# ports and HTTP
# ---------------------------------------------------------------------------

def port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # like the servers do: connections in TIME_WAIT do not block a bind
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
        except OSError:
            return False
    return True


def udp_port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.bind((HOST, port))
        except OSError:
            return False
    return True


def check_ports_free(service: str, ports: dict[str, int], override: str,
                     udp: dict[str, int] | None = None) -> None:
    busy = ['%d (%s)' % (port, name) for name, port in ports.items()
            if not port_free(port)]
    busy += ['%d/udp (%s)' % (port, name) for name, port in
             (udp or {}).items() if not udp_port_free(port)]
    if busy:
        raise LoopbackError(
            '%s: port(s) already in use on %s: %s (another loopback from a '
            'different LOOPBACK_DIR, or a system service? override with %s)'
            % (service, HOST, ', '.join(busy), override))


def tcp_accepts(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=1):
            return True
    except OSError:
        return False


_NO_PROXY_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def http_get(url: str, timeout: float = 2.0,
             headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    """GET without any HTTP proxy from the environment."""
    try:
        with _NO_PROXY_OPENER.open(urllib.request.Request(
                url, headers=headers or {}), timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
