#!/usr/bin/env python3
"""Real OpenStack services on 127.0.0.1, for functional tests, benchmarks and
the demo.

Standard library only (Python 3.11).  Each service is one small group of
functions (``swift_*``, ``rabbitmq_*``, ``postgres_*``, ``mistral_*``,
``heat_*``) registered in ``SERVICES``; the subcommands dispatch to them.
Python services run from their own virtualenv under
``$LOOPBACK_CACHE/venvs/<name>`` (installed from PyPI on first use);
RabbitMQ and PostgreSQL are Debian's packages (``tools/bootstrap.sh``
installs them), run as private instances, not as the system services.
Every service keeps its configuration, data, logs and pid files under the
state directory ``$LOOPBACK_DIR``.

Usage::

    python3 tools/loopback.py start [--clean] [SERVICE...]  # idempotent
    python3 tools/loopback.py stop [SERVICE...]     # by PID, safe to repeat
    python3 tools/loopback.py status [SERVICE...]   # exit 3 if not running
    python3 tools/loopback.py env                   # shell export lines
    eval "$(python3 tools/loopback.py env)"

SERVICE is swift, rabbitmq, postgres, mistral or heat (default: all).
``start mistral`` (or heat) starts rabbitmq and postgres first (``--clean``
wipes only the services named); ``stop rabbitmq`` (or postgres) stops
mistral and heat first.

Environment:

    LOOPBACK_CACHE   virtualenvs + downloads (def. ~/.cache/tripleoplanclient)
    LOOPBACK_DIR     state directory          (default <repo>/.loopback)
    LOOPBACK_PYTHON  interpreter for the venvs (default: the one running this)
    LOOPBACK_SWIFT_PORT (18080), LOOPBACK_SWIFT_OBJECT_PORT (16010),
    LOOPBACK_SWIFT_CONTAINER_PORT (16011), LOOPBACK_SWIFT_ACCOUNT_PORT (16012),
    LOOPBACK_MEMCACHED_PORT (16013), LOOPBACK_SWIFT_LOG_PORT (16014; the log
    sink uses this port and the next five), LOOPBACK_MEMCACHED=0 to never run
    memcached even when it is on PATH.
    LOOPBACK_RABBITMQ_PORT (AMQP, 16672), LOOPBACK_RABBITMQ_DIST_PORT (Erlang
    distribution, 16673), LOOPBACK_EPMD_PORT (16369),
    LOOPBACK_POSTGRES_PORT (15432), LOOPBACK_PG_BINDIR (default: the newest
    /usr/lib/postgresql/*/bin), LOOPBACK_MISTRAL_PORT (18989),
    LOOPBACK_HEAT_PORT (18004).

Everything binds 127.0.0.1 only (epmd adds [::1] on its own port: it always
listens on the loopback addresses).  ``stop`` signals only the PIDs recorded
in ``<state>/pids/*.pid``, and only when the recorded process start time
still matches (so a stale pid file after a reboot never hits another
process).

Swift, as configured here
-------------------------
* No auth middleware: every request is allowed; accounts are auto-created.
  Account used by the project: ``AUTH_tripleo``.
* Proxy pipeline (the order of Swift 2.38's etc/proxy-server.conf-sample,
  minus container_sync, ratelimit, tempauth and account-quotas; ``cache`` only
  when memcached runs -- without it the proxy simply has no shared cache)::

    catch_errors gatekeeper healthcheck proxy-logging [cache] listing_formats
    bulk tempurl copy container-quotas slo dlo versioned_writes symlink
    subrequest-logging proxy-server

* Request counting.  Swift logs through syslog; here every logger is pointed
  at a UDP port on 127.0.0.1 where ``_syslog-sink`` (this script, one
  process) appends each datagram as one line to a file.  The two
  proxy_logging instances play different roles (see proxy_logging.py):
  the left-most one marks the WSGI environ as logged before passing the
  request on, so it logs every *client* request exactly once; the right-most
  one sees that mark for client requests and stays silent, but middleware
  subrequests (made with a fresh environ: bulk's per-object PUTs, slo/dlo
  segment GETs, versioned_writes copies, ...) reach it unmarked, so it logs
  those, with ``swift.source`` (e.g. ``EA`` for extract-archive) in the
  source field.  Both instances would share the logger route
  ``proxy-access`` by default (and Swift keeps one handler per route, last one
  configured wins), so the right-most one gets its own section and route:

    <state>/swift/proxy-access.log          client requests, one line each
    <state>/swift/logs/proxy-subrequests.log middleware subrequests

  The healthcheck filter sits left of proxy-logging, so /healthcheck polls
  are not logged; /info is.

* memcached (only when on PATH) caches account/container info for
  recheck_*_existence (60 s): container_quotas then checks against a cached
  object count, e.g. a bulk upload of 2 objects into a container holding 1
  with Quota-Count 2 stores both.  Without memcached every object PUT makes
  fresh HEAD subrequests (account + container), so the count is exact.

  The proxy logs a request after the last byte of its response went out, so
  a client that counts lines right after its last response may be a few
  milliseconds early: wait until the count stops moving.
"""

from __future__ import annotations

import argparse
import datetime
import getpass
import hashlib
import json
import os
import pwd
import selectors
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HOST = '127.0.0.1'


# ---------------------------------------------------------------------------
# locations and small helpers
# ---------------------------------------------------------------------------

def cache_dir() -> Path:
    return Path(os.environ.get('LOOPBACK_CACHE') or
                Path.home() / '.cache' / 'tripleoplanclient').resolve()


def state_dir() -> Path:
    return Path(os.environ.get('LOOPBACK_DIR') or REPO / '.loopback').resolve()


def pids_dir() -> Path:
    return state_dir() / 'pids'


def env_port(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


def say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


class LoopbackError(Exception):
    """A failure to report to the user without a traceback."""


def ensure_state_dir() -> Path:
    state = state_dir()
    state.mkdir(parents=True, exist_ok=True)
    # keep the generated state out of git without touching the repo's files
    ignore = state / '.gitignore'
    if not ignore.exists():
        ignore.write_text('*\n')
    return state


def write_if_changed(path: Path, text: str) -> bool:
    if path.exists() and path.read_text() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + '.tmp')
    tmp.write_text(text)
    os.replace(tmp, path)
    return True


def tail(path: Path, lines: int = 30) -> str:
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


_NO_PROXY_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def http_get(url: str, timeout: float = 2.0) -> tuple[int, bytes]:
    """GET without any HTTP proxy from the environment."""
    try:
        with _NO_PROXY_OPENER.open(url, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


# ---------------------------------------------------------------------------
# processes: pid files hold {"pid", "starttime", "cmd"}; stop only by PID
# ---------------------------------------------------------------------------

def proc_starttime(pid: int) -> str | None:
    """Start time (clock ticks since boot) of a live, non-zombie process."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rfind(')') + 2:].split()
    if fields[0] in ('Z', 'X'):
        return None
    return fields[19]


def read_pidfile(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text())
        int(data['pid'])
        return data
    except (OSError, ValueError, KeyError, TypeError):
        return None


def pidfile_alive(path: Path) -> int | None:
    """The PID recorded in path if that very process still runs."""
    data = read_pidfile(path)
    if not data:
        return None
    pid = int(data['pid'])
    started = proc_starttime(pid)
    if started is None or started != str(data.get('starttime')):
        return None
    return pid


def spawn(name: str, cmd: list[str], log: Path, cwd: Path,
          env: dict | None = None, user: str | None = None,
          stop_signal: str = 'SIGTERM', stop_timeout: float = 5.0) -> int:
    """Start cmd in the background (own session), record its pid file.

    user: run as that OS user (only when root; e.g. PostgreSQL refuses to
    run as root).  stop_signal / stop_timeout: how ``stop`` ends it before
    it falls back to SIGKILL (recorded in the pid file).
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    pids_dir().mkdir(parents=True, exist_ok=True)
    child_env = dict(os.environ if env is None else env)
    for var in ('PYTHONPATH', 'PYTHONHOME', 'VIRTUAL_ENV', 'PYTHONSTARTUP'):
        child_env.pop(var, None)
    as_user = {}
    if user and os.geteuid() == 0:
        as_user = {'user': user, 'group': user, 'extra_groups': []}
    with open(log, 'ab') as out:
        out.write(('=== loopback start %s: %s\n' % (
            datetime.datetime.now().isoformat(timespec='seconds'),
            ' '.join(shlex.quote(c) for c in cmd))).encode())
        out.flush()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, cwd=cwd,
                                env=child_env, start_new_session=True,
                                **as_user)
    _CHILDREN[proc.pid] = proc
    started = None
    for _ in range(100):
        started = proc_starttime(proc.pid)
        if started or proc.poll() is not None:
            break
        time.sleep(0.01)
    record_pid(name, proc.pid, started, cmd, log, stop_signal, stop_timeout)
    return proc.pid


def record_pid(name: str, pid: int, started: str | None, cmd: list[str],
               log: Path, stop_signal: str = 'SIGTERM',
               stop_timeout: float = 5.0) -> None:
    write_if_changed(pids_dir() / (name + '.pid'), json.dumps(
        {'pid': pid, 'starttime': started, 'cmd': cmd, 'log': str(log),
         'stop_signal': stop_signal, 'stop_timeout': stop_timeout}) + '\n')


# Popen objects of processes started by this invocation, so that stopping
# them also reaps them (no zombie keeps looking alive).
_CHILDREN: dict[int, subprocess.Popen] = {}


def stop_pidfile(path: Path, timeout: float | None = None) -> str:
    """SIGTERM (or the pid file's stop_signal), wait, SIGKILL the process
    of one pid file; remove the file."""
    name = path.stem
    pid = pidfile_alive(path)
    if pid is None:
        path.unlink(missing_ok=True)
        return '%s: not running' % name
    data = read_pidfile(path) or {}
    how = str(data.get('stop_signal') or 'SIGTERM')
    if timeout is None:
        timeout = float(data.get('stop_timeout') or 5.0)

    def gone() -> bool:
        child = _CHILDREN.get(pid)
        if child is not None:
            return child.poll() is not None
        return proc_starttime(pid) is None

    try:
        os.kill(pid, getattr(signal, how, signal.SIGTERM))
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not gone():
        time.sleep(0.05)
    if not gone():
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        how = 'SIGKILL'
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not gone():
            time.sleep(0.05)
    path.unlink(missing_ok=True)
    if pid not in _CHILDREN:
        _REAPED_BY_INIT.append(pid)
    return '%s: stopped pid %d (%s)' % (name, pid, how)


# PIDs stopped here whose parent is init: they are dead (zombies at worst)
# but init may take a second or two to reap them.
_REAPED_BY_INIT: list[int] = []


def wait_reaped(timeout: float = 3.0) -> None:
    """Give init a moment to reap stopped processes, so that a caller that
    checks "no such PID remains" right after stop finds none."""
    deadline = time.monotonic() + timeout
    while _REAPED_BY_INIT and time.monotonic() < deadline:
        _REAPED_BY_INIT[:] = [p for p in _REAPED_BY_INIT
                              if os.path.exists('/proc/%d' % p)]
        time.sleep(0.05)
    _REAPED_BY_INIT.clear()


# ---------------------------------------------------------------------------
# virtualenvs
# ---------------------------------------------------------------------------

def ensure_venv(name: str, requirements: list[str],
                constraints: list[str], check_import: str) -> Path:
    """Create or reuse $LOOPBACK_CACHE/venvs/<name> with requirements."""
    venv = cache_dir() / 'venvs' / name
    python = venv / 'bin' / 'python'
    wanted = hashlib.sha256(json.dumps(
        [requirements, constraints]).encode()).hexdigest()
    marker = venv / '.loopback-installed'
    if python.exists() and marker.exists() and \
            marker.read_text().strip() == wanted:
        check = subprocess.run([str(python), '-c', 'import ' + check_import],
                               capture_output=True)
        if check.returncode == 0:
            return venv
        say('%s venv at %s is broken, reinstalling' % (name, venv))
    started = time.monotonic()
    base = os.environ.get('LOOPBACK_PYTHON') or sys.executable
    if not python.exists():
        say('creating virtualenv %s' % venv)
        venv.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([base, '-m', 'venv', str(venv)], check=True)
    marker.unlink(missing_ok=True)
    cfile = venv / 'loopback-constraints.txt'
    cfile.write_text(''.join(c + '\n' for c in constraints))
    say('installing %s into %s (from PyPI)' % (' '.join(requirements), venv))
    cmd = [str(python), '-m', 'pip', 'install', '--quiet',
           '--disable-pip-version-check', '-c', str(cfile)] + requirements
    result = subprocess.run(cmd)
    if result.returncode != 0:
        raise LoopbackError('pip install failed for %s venv: %s' % (
            name, ' '.join(cmd)))
    marker.write_text(wanted + '\n')
    say('%s venv ready in %.1f s' % (name, time.monotonic() - started))
    return venv


# ---------------------------------------------------------------------------
# syslog sink: UDP datagrams -> one line each in a file
# ---------------------------------------------------------------------------

def syslog_sink_main(args: argparse.Namespace) -> int:
    """Receive syslog datagrams on 127.0.0.1 ports, append them as lines."""
    sel = selectors.DefaultSelector()
    specs = [(s, False) for s in args.bare or []] + \
            [(s, True) for s in args.stamped or []]
    if not specs:
        raise LoopbackError('_syslog-sink: give --bare/--stamped PORT=FILE')
    for spec, stamped in specs:
        port, _, filename = spec.partition('=')
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            # a large buffer so bursts of log lines are not dropped
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        except OSError:
            pass
        sock.bind((HOST, int(port)))
        out = open(filename, 'a', buffering=1, encoding='utf-8',
                   errors='replace')
        sel.register(sock, selectors.EVENT_READ, (out, stamped))
    if args.ready:
        Path(args.ready).write_text('%d\n' % os.getpid())
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        for key, _ in sel.select():
            out, stamped = key.data
            while True:
                try:
                    data = key.fileobj.recv(65535, socket.MSG_DONTWAIT)
                except BlockingIOError:
                    break
                text = data.decode('utf-8', 'replace').rstrip('\x00\r\n')
                if text.startswith('<'):       # syslog priority: <134>
                    end = text.find('>')
                    if 0 < end < 5:
                        text = text[end + 1:]
                text = text.replace('\n', '#012')
                if stamped:
                    text = '%s %s' % (datetime.datetime.now().isoformat(
                        timespec='milliseconds'), text)
                else:                           # drop the tag: "name: "
                    tag, sep, rest = text.partition(': ')
                    if sep and ' ' not in tag:
                        text = rest
                out.write(text + '\n')


# ---------------------------------------------------------------------------
# clouds.yaml and environment, filled by every service
# ---------------------------------------------------------------------------

def yaml_scalar(value) -> str:
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, (int, float)):
        return str(value)
    text = str(value)
    if text and all(c.isalnum() or c in '_-./:' for c in text) and \
            not text[0].isdigit() and text.lower() not in (
                'true', 'false', 'yes', 'no', 'null', 'on', 'off', '~'):
        return text
    return json.dumps(text)            # a JSON string is a YAML string


def yaml_dump(data: dict, indent: int = 0) -> str:
    out = []
    for key, value in data.items():
        if isinstance(value, dict):
            out.append('%s%s:\n%s' % (' ' * indent, key,
                                      yaml_dump(value, indent + 2)))
        else:
            out.append('%s%s: %s\n' % (' ' * indent, key, yaml_scalar(value)))
    return ''.join(out)


def started() -> set[str]:
    """Services started in this state dir and not stopped since."""
    path = state_dir() / 'started'
    return set(path.read_text().split()) if path.exists() else set()


def set_started(names: set[str]) -> None:
    write_if_changed(ensure_state_dir() / 'started',
                     ''.join(n + '\n' for n in sorted(names)))


def cloud_config() -> dict:
    # Only what runs: a configured but absent Heat would make the client
    # refuse, for example, to delete a plan it cannot check for a stack.
    cloud = {'auth_type': 'none'}
    running = started()
    for name, service in SERVICES.items():
        if name in running:
            cloud.update(service['cloud']())
    return {'clouds': {'loopback': cloud}}


def write_clouds_yaml() -> Path:
    path = ensure_state_dir() / 'clouds.yaml'
    write_if_changed(path, '# generated by tools/loopback.py\n' +
                     yaml_dump(cloud_config()))
    return path


def env_vars() -> dict:
    state = state_dir()
    env = {'OS_CLIENT_CONFIG_FILE': str(state / 'clouds.yaml'),
           'OS_CLOUD': 'loopback',
           'LOOPBACK_DIR': str(state)}
    for service in SERVICES.values():
        env.update(service['env']())
    return env


# ---------------------------------------------------------------------------
# Swift
# ---------------------------------------------------------------------------

SWIFT_REQUIREMENTS = ['swift==2.38.3']
# What `pip install swift==2.38.3` resolved to on Python 3.11 (known good).
SWIFT_CONSTRAINTS = [
    'certifi==2026.10.18', 'cffi==2.1.1', 'charset-normalizer==3.5.2',
    'cryptography==50.0.2', 'dnspython==2.9.2', 'eventlet==0.41.3',
    'greenlet==3.5.6', 'idna==3.20', 'lxml==6.1.3', 'PasteDeploy==3.1.0',
    'pycparser==3.12', 'pyeclib==1.8.0', 'requests==2.34.2',
    'swift==2.38.3', 'urllib3==2.8.0', 'xattr==1.3.0',
]
SWIFT_ACCOUNT = 'AUTH_tripleo'
SWIFT_PART_POWER = 8
SWIFT_SERVERS = ('account', 'container', 'object', 'proxy')   # start order


def swift_settings() -> dict:
    state = state_dir()
    base = state / 'swift'
    log_port = env_port('LOOPBACK_SWIFT_LOG_PORT', 16014)
    memcached = shutil.which('memcached')
    if os.environ.get('LOOPBACK_MEMCACHED', '1') in ('0', 'no', 'false'):
        memcached = None
    return {
        'base': base,
        'etc': base / 'etc',
        'devices': base / 'srv',
        'logs': base / 'logs',
        'access_log': base / 'proxy-access.log',
        'subrequest_log': base / 'logs' / 'proxy-subrequests.log',
        'ports': {
            'proxy': env_port('LOOPBACK_SWIFT_PORT', 18080),
            'object': env_port('LOOPBACK_SWIFT_OBJECT_PORT', 16010),
            'container': env_port('LOOPBACK_SWIFT_CONTAINER_PORT', 16011),
            'account': env_port('LOOPBACK_SWIFT_ACCOUNT_PORT', 16012),
            'memcached': env_port('LOOPBACK_MEMCACHED_PORT', 16013),
        },
        # syslog UDP ports of the sink, one per destination file
        'log_ports': {
            'access': log_port,
            'subrequests': log_port + 1,
            'proxy': log_port + 2,
            'object': log_port + 3,
            'container': log_port + 4,
            'account': log_port + 5,
        },
        'memcached': memcached,
        'user': getpass.getuser(),
    }


def swift_url(path: str = '') -> str:
    return 'http://%s:%d%s' % (HOST, swift_settings()['ports']['proxy'], path)


def swift_cloud() -> dict:
    return {'object_store_endpoint_override':
            swift_url('/v1/' + SWIFT_ACCOUNT)}


def swift_env() -> dict:
    s = swift_settings()
    return {'LOOPBACK_SWIFT_URL': swift_url('/v1/' + SWIFT_ACCOUNT),
            'LOOPBACK_SWIFT_ACCESS_LOG': str(s['access_log'])}


def swift_pidnames(s: dict) -> list[str]:
    """Pid file names in start order (memcached: if on PATH or started)."""
    names = ['swift-syslog-sink']
    if s['memcached'] or (pids_dir() / 'swift-memcached.pid').exists():
        names.append('swift-memcached')
    return names + ['swift-%s-server' % n for n in SWIFT_SERVERS]


def swift_all_pidnames() -> list[str]:
    return ['swift-syslog-sink', 'swift-memcached'] + \
        ['swift-%s-server' % n for n in SWIFT_SERVERS]


def swift_configs(s: dict) -> dict[str, str]:
    """File name (in etc/) -> content."""
    ports, lp = s['ports'], s['log_ports']
    common = (
        '[DEFAULT]\n'
        'bind_ip = %(host)s\n'
        'bind_port = %(port)d\n'
        'workers = 0\n'
        'user = %(user)s\n'
        'swift_dir = %(etc)s\n'
        'devices = %(devices)s\n'
        'mount_check = false\n'
        'log_udp_host = %(host)s\n'
        'log_udp_port = %(log_port)d\n'
        'log_level = INFO\n')
    confs = {}
    confs['swift.conf'] = (
        '[swift-hash]\n'
        '# fixed: data written by one start must be found by the next\n'
        'swift_hash_path_suffix = tripleoplanclient-loopback\n'
        'swift_hash_path_prefix = loopback\n'
        '\n'
        '[storage-policy:0]\n'
        'name = Policy-0\n'
        'default = yes\n')
    for server in ('account', 'container', 'object'):
        text = common % {
            'host': HOST, 'port': ports[server], 'user': s['user'],
            'etc': s['etc'], 'devices': s['devices'],
            'log_port': lp[server]}
        text += (
            '\n[pipeline:main]\n'
            'pipeline = healthcheck %(server)s-server\n'
            '\n[app:%(server)s-server]\n'
            'use = egg:swift#%(server)s\n'
            '\n[filter:healthcheck]\n'
            'use = egg:swift#healthcheck\n') % {'server': server}
        confs['%s-server.conf' % server] = text
    pipeline = ['catch_errors', 'gatekeeper', 'healthcheck', 'proxy-logging',
                'cache', 'listing_formats', 'bulk', 'tempurl', 'copy',
                'container-quotas', 'slo', 'dlo', 'versioned_writes',
                'symlink', 'subrequest-logging', 'proxy-server']
    if not s['memcached']:
        pipeline.remove('cache')
    text = common % {
        'host': HOST, 'port': ports['proxy'], 'user': s['user'],
        'etc': s['etc'], 'devices': s['devices'],
        'log_port': lp['proxy']}
    text += '''
[pipeline:main]
pipeline = %(pipeline)s

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
allow_account_management = true
# No auth middleware makes no request a "swift owner"; without this, Swift
# would hide and drop X-Account-Meta-Temp-URL-Key and no temp URL could be
# signed (Heat's TEMP_URL_SIGNAL, software deployment trigger).
swift_owner_headers = x-account-access-control

[filter:catch_errors]
use = egg:swift#catch_errors

[filter:gatekeeper]
use = egg:swift#gatekeeper

[filter:healthcheck]
use = egg:swift#healthcheck

# Left-most proxy_logging: logs every client request once (it marks the
# environ as logged, so the right-most instance skips the same request).
[filter:proxy-logging]
use = egg:swift#proxy_logging
access_log_name = proxy-access
access_log_route = proxy-access
access_log_udp_host = %(host)s
access_log_udp_port = %(access_port)d

[filter:cache]
use = egg:swift#memcache
memcache_servers = %(host)s:%(memcached_port)d

[filter:listing_formats]
use = egg:swift#listing_formats

[filter:bulk]
use = egg:swift#bulk

[filter:tempurl]
use = egg:swift#tempurl

[filter:copy]
use = egg:swift#copy

[filter:container-quotas]
use = egg:swift#container_quotas

[filter:slo]
use = egg:swift#slo

[filter:dlo]
use = egg:swift#dlo

[filter:versioned_writes]
use = egg:swift#versioned_writes
allow_versioned_writes = true

[filter:symlink]
use = egg:swift#symlink

# Right-most proxy_logging: only middleware subrequests reach it unlogged
# (bulk's per-object PUTs, slo/dlo segment reads, ...). Its own route and
# port keep them out of proxy-access.log.
[filter:subrequest-logging]
use = egg:swift#proxy_logging
access_log_name = proxy-subrequest
access_log_route = proxy-subrequest-access
access_log_udp_host = %(host)s
access_log_udp_port = %(subrequest_port)d
''' % {'pipeline': ' '.join(pipeline), 'host': HOST,
       'access_port': lp['access'], 'subrequest_port': lp['subrequests'],
       'memcached_port': ports['memcached']}
    confs['proxy-server.conf'] = text
    return confs


RING_SCRIPT = r'''
import json, os, sys
from swift.common.ring import RingBuilder
spec = json.loads(sys.argv[1])
for kind, port in spec["ports"].items():
    builder = RingBuilder(spec["part_power"], 1, 1)
    builder.add_dev({"id": 0, "region": 1, "zone": 1, "ip": spec["host"],
                     "port": port, "device": "d1", "weight": 100.0})
    builder.rebalance(seed=1)
    builder.save(os.path.join(spec["etc"], kind + ".builder"))
    builder.get_ring().save(os.path.join(spec["etc"], kind + ".ring.gz"))
'''


def swift_build_rings(s: dict, python: Path) -> None:
    spec = {'host': HOST, 'part_power': SWIFT_PART_POWER, 'etc': str(s['etc']),
            'ports': {k: s['ports'][k]
                      for k in ('account', 'container', 'object')}}
    stamp = s['etc'] / 'rings.json'
    rings = [s['etc'] / (k + '.ring.gz') for k in spec['ports']]
    wanted = json.dumps(spec, sort_keys=True)
    if stamp.exists() and stamp.read_text() == wanted and \
            all(r.exists() for r in rings):
        return
    subprocess.run([str(python), '-c', RING_SCRIPT, json.dumps(spec)],
                   check=True)
    stamp.write_text(wanted)


def swift_check_xattr(devices: Path) -> None:
    probe = devices / '.xattr-probe'
    probe.touch()
    try:
        os.setxattr(probe, 'user.loopback', b'1')
    except OSError as e:
        raise LoopbackError(
            'Swift needs user xattrs on %s, the filesystem refuses them (%s);'
            ' set LOOPBACK_DIR to a directory on another filesystem'
            % (devices, e)) from None
    finally:
        probe.unlink(missing_ok=True)


def swift_unhealthy(s: dict) -> str | None:
    """None when every server answers, else the pid name of one that not."""
    for server in SWIFT_SERVERS:
        url = 'http://%s:%d/healthcheck' % (HOST, s['ports'][server])
        try:
            status, body = http_get(url, timeout=1)
        except OSError:
            return 'swift-%s-server' % server
        if status != 200 or body.strip() != b'OK':
            return 'swift-%s-server' % server
    try:
        status, body = http_get(swift_url('/info'), timeout=2)
        if status == 200 and 'swift' in json.loads(body):
            return None
    except (OSError, ValueError):
        pass
    return 'swift-proxy-server'


def swift_running(s: dict) -> bool:
    return all(pidfile_alive(pids_dir() / (n + '.pid'))
               for n in swift_pidnames(s))


def swift_start(clean: bool = False) -> None:
    s = swift_settings()
    if not clean and swift_running(s) and not swift_unhealthy(s):
        say('swift: already running at %s' % swift_url())
        return
    venv = ensure_venv('swift', SWIFT_REQUIREMENTS, SWIFT_CONSTRAINTS,
                       'swift.proxy.server')
    swift_stop(quiet=True)              # leftovers of a partial start
    if clean and s['base'].exists():
        say('swift: wiping %s' % s['devices'])
        shutil.rmtree(s['devices'], ignore_errors=True)
    busy = [('%s (%s)' % (port, name)) for name, port in s['ports'].items()
            if (name != 'memcached' or s['memcached']) and not port_free(port)]
    busy += ['%s/udp (log sink)' % port for port in s['log_ports'].values()
             if not udp_port_free(port)]
    if busy:
        raise LoopbackError(
            'swift: port(s) already in use on %s: %s (another loopback from a '
            'different LOOPBACK_DIR? override with LOOPBACK_SWIFT_*_PORT)'
            % (HOST, ', '.join(busy)))
    for d in (s['etc'], s['devices'] / 'd1', s['logs']):
        d.mkdir(parents=True, exist_ok=True)
    swift_check_xattr(s['devices'] / 'd1')
    for name, text in swift_configs(s).items():
        write_if_changed(s['etc'] / name, text)
    swift_build_rings(s, venv / 'bin' / 'python')
    write_clouds_yaml()

    started = time.monotonic()
    logs, lp = s['logs'], s['log_ports']
    ready = s['base'] / 'syslog-sink.ready'
    ready.unlink(missing_ok=True)
    sink_cmd = [sys.executable, str(Path(__file__).resolve()), '_syslog-sink',
                '--ready', str(ready),
                '--bare', '%d=%s' % (lp['access'], s['access_log']),
                '--bare', '%d=%s' % (lp['subrequests'], s['subrequest_log'])]
    for server in SWIFT_SERVERS:
        sink_cmd += ['--stamped', '%d=%s' % (
            lp[server], logs / ('%s-server.log' % server))]
    spawned = {}                        # pid name -> log file
    try:
        spawned['swift-syslog-sink'] = logs / 'syslog-sink.log'
        spawn('swift-syslog-sink', sink_cmd, logs / 'syslog-sink.log',
              s['base'])
        if s['memcached']:
            cmd = [s['memcached'], '-l', HOST,
                   '-p', str(s['ports']['memcached']),
                   '-U', '0', '-m', '64', '-c', '1024']
            if os.geteuid() == 0:
                cmd += ['-u', 'root']
            spawned['swift-memcached'] = logs / 'memcached.log'
            spawn('swift-memcached', cmd, logs / 'memcached.log', s['base'])
        deadline = time.monotonic() + 10
        while not ready.exists():
            if time.monotonic() > deadline or not pidfile_alive(
                    pids_dir() / 'swift-syslog-sink.pid'):
                raise LoopbackError('swift: the syslog sink did not start',
                                    'swift-syslog-sink')
            time.sleep(0.02)
        for server in SWIFT_SERVERS:
            name = 'swift-%s-server' % server
            log = logs / ('%s-server.log' % server)
            spawned[name] = log
            spawn(name, [str(venv / 'bin' / ('swift-%s-server' % server)),
                         str(s['etc'] / ('%s-server.conf' % server))],
                  log, s['base'])
        deadline = time.monotonic() + 30
        while True:
            dead = [n for n in spawned
                    if not pidfile_alive(pids_dir() / (n + '.pid'))]
            if dead:
                raise LoopbackError('swift: %s exited during start' % dead[0],
                                    dead[0])
            culprit = swift_unhealthy(s)
            if not culprit:
                break
            if time.monotonic() > deadline:
                raise LoopbackError(
                    'swift: %s gave no healthy answer (GET /healthcheck, and '
                    '/info on the proxy) within 30 s' % culprit, culprit)
            time.sleep(0.1)
    except LoopbackError as e:
        culprit = e.args[1] if len(e.args) > 1 else None
        message = e.args[0]
        if culprit in spawned:
            message += '\n--- tail of %s ---\n%s' % (
                spawned[culprit], tail(spawned[culprit]))
        swift_stop(quiet=True)
        raise LoopbackError(message) from None
    say('swift: running at %s (account %s, %s), started in %.1f s' % (
        swift_url(), SWIFT_ACCOUNT,
        'memcached on %d' % s['ports']['memcached'] if s['memcached']
        else 'no memcached', time.monotonic() - started))


def swift_stop(quiet: bool = False) -> None:
    names = swift_all_pidnames()
    # proxy first, then the backends, then memcached and the log sink last
    order = [n for n in reversed(names) if n.endswith('-server')]
    order += ['swift-memcached', 'swift-syslog-sink']
    for name in order:
        path = pids_dir() / (name + '.pid')
        if path.exists():
            msg = stop_pidfile(path)
            if not quiet or 'stopped' in msg:
                say(msg)


def swift_status() -> bool:
    s = swift_settings()
    running = True
    for name in swift_pidnames(s):
        pid = pidfile_alive(pids_dir() / (name + '.pid'))
        print('  %-24s %s' % (name, 'pid %d' % pid if pid else 'not running'))
        running = running and bool(pid)
    healthy = running and not swift_unhealthy(s)
    print('swift: %s' % ('running at %s' % swift_url() if healthy else
                         'running but not healthy' if running else
                         'not running'))
    return healthy


# ---------------------------------------------------------------------------
# helpers of the services below (rabbitmq, postgres, mistral)
# ---------------------------------------------------------------------------

def pidname_alive(name: str) -> int | None:
    return pidfile_alive(pids_dir() / (name + '.pid'))


def with_log_tail(e: LoopbackError) -> LoopbackError:
    """e's message plus the tail of the log file given as its 2nd arg."""
    message = e.args[0]
    log = e.args[1] if len(e.args) > 1 else None
    if log:
        message += '\n--- tail of %s ---\n%s' % (log, tail(Path(log)))
    return LoopbackError(message)


def wait_until(service: str, what: str, ready, procs: dict[str, Path],
               timeout: float) -> None:
    """Poll ready() until it is true, while every process in procs
    (pid name -> log) lives; LoopbackError(message, log) otherwise."""
    deadline = time.monotonic() + timeout
    while True:
        for name, log in procs.items():
            if not pidname_alive(name):
                raise LoopbackError('%s: %s exited during start' % (
                    service, name), log)
        if ready():
            return
        if time.monotonic() > deadline:
            raise LoopbackError('%s: %s, not within %d s' % (
                service, what, timeout), list(procs.values())[-1])
        time.sleep(0.1)


def check_ports_free(service: str, ports: dict[str, int],
                     override: str) -> None:
    busy = ['%d (%s)' % (port, name) for name, port in ports.items()
            if not port_free(port)]
    if busy:
        raise LoopbackError(
            '%s: port(s) already in use on %s: %s (another loopback from a '
            'different LOOPBACK_DIR, or a system service? override with %s)'
            % (service, HOST, ', '.join(busy), override))


def stop_pidnames(names: list[str], quiet: bool) -> None:
    for name in names:
        path = pids_dir() / (name + '.pid')
        if path.exists():
            msg = stop_pidfile(path)
            if not quiet or 'stopped' in msg:
                say(msg)


def print_pids(names: list[str]) -> bool:
    running = True
    for name in names:
        pid = pidname_alive(name)
        print('  %-24s %s' % (name, 'pid %d' % pid if pid else 'not running'))
        running = running and bool(pid)
    return running


def tcp_accepts(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=1):
            return True
    except OSError:
        return False


def require_broker_and_database(service: str) -> None:
    """The rabbitmq and postgres services run (``start`` of a service that
    requires them starts them first)."""
    for needed, ready in (('rabbitmq', lambda: amqp_ready(
            rabbitmq_settings()['ports']['amqp'])),
            ('postgres', lambda: postgres_ready(postgres_settings()))):
        if not ready():
            raise LoopbackError('%s: needs %s, which is not running '
                                '(start %s starts it)' % (
                                    service, needed, service))


def not_installed(service: str, what: str) -> LoopbackError:
    return LoopbackError(
        '%s: %s not found; install the system packages first: '
        'sudo bash %s' % (service, what, REPO / 'tools' / 'bootstrap.sh'))


# ---------------------------------------------------------------------------
# RabbitMQ (Debian's rabbitmq-server, a private node)
# ---------------------------------------------------------------------------
#
# Not the system broker: the package's scripts run as a node of our own
# (RABBITMQ_* variables; the Debian wrapper in /usr/sbin, which switches to
# the rabbitmq user and to /var/lib/rabbitmq, is not used), with its own
# epmd on a port of ours (ERL_EPMD_PORT), HOME (the Erlang cookie), config,
# Mnesia data and no plugins, all under <state>/rabbitmq.  Processes:
#
#   rabbitmq-epmd    epmd -address 127.0.0.1 -port P, in the foreground
#                    (epmd adds the loopback addresses itself: it also
#                    listens on [::1]:P, nothing else)
#   rabbitmq-server  the package's rabbitmq-server script in its foreground
#                    mode: a shell that turns SIGTERM into a clean stop of
#                    the Erlang VM it started
#   rabbitmq-beam    that VM (beam.smp), recorded too so that it can be
#                    killed should the shell die first
#
# The VM listens on AMQP 127.0.0.1:16672 and on the distribution port
# 127.0.0.1:16673 (inet_dist_use_interface), nowhere else.  The user is the
# default guest/guest, which RabbitMQ accepts from loopback only.

RABBITMQ_NODE = 'loopback@localhost'
RABBITMQ_USER = 'guest'
RABBITMQ_PASSWORD = 'guest'


def rabbitmq_settings() -> dict:
    base = state_dir() / 'rabbitmq'
    return {
        'base': base,
        'log': base / 'rabbitmq-server.log',
        'epmd_log': base / 'epmd.log',
        'beam_pidfile': base / 'beam.pid',
        'ports': {
            'amqp': env_port('LOOPBACK_RABBITMQ_PORT', 16672),
            'distribution': env_port('LOOPBACK_RABBITMQ_DIST_PORT', 16673),
            'epmd': env_port('LOOPBACK_EPMD_PORT', 16369),
        },
        'server': Path(os.environ.get('LOOPBACK_RABBITMQ_SERVER') or
                       '/usr/lib/rabbitmq/bin/rabbitmq-server'),
        'epmd': shutil.which('epmd'),
    }


def rabbitmq_url() -> str:
    return 'rabbit://%s:%s@%s:%d/' % (
        RABBITMQ_USER, RABBITMQ_PASSWORD, HOST,
        rabbitmq_settings()['ports']['amqp'])


def rabbitmq_cloud() -> dict:
    return {}


def rabbitmq_env() -> dict:
    return {'LOOPBACK_RABBITMQ_URL': rabbitmq_url()}


RABBITMQ_PIDNAMES = ['rabbitmq-epmd', 'rabbitmq-server']


def amqp_ready(port: int) -> bool:
    """The broker answers an AMQP 0-9-1 protocol header with a method
    frame (connection.start): it is up and accepting clients."""
    try:
        with socket.create_connection((HOST, port), timeout=2) as sock:
            sock.sendall(b'AMQP\x00\x00\x09\x01')
            return sock.recv(1) == b'\x01'
    except OSError:
        return False


def rabbitmq_environ(r: dict) -> dict:
    base, ports = r['base'], r['ports']
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('RABBITMQ_', 'ERL_'))}
    env.update({
        'HOME': str(base),                 # .erlang.cookie lives here
        'ERL_EPMD_ADDRESS': HOST,
        'ERL_EPMD_PORT': str(ports['epmd']),
        'RABBITMQ_NODENAME': RABBITMQ_NODE,
        'RABBITMQ_NODE_IP_ADDRESS': HOST,
        'RABBITMQ_NODE_PORT': str(ports['amqp']),
        'RABBITMQ_DIST_PORT': str(ports['distribution']),
        # our (empty) file instead of /etc/rabbitmq/rabbitmq-env.conf
        'RABBITMQ_CONF_ENV_FILE': str(base / 'rabbitmq-env.conf'),
        'RABBITMQ_CONFIG_FILE': str(base / 'rabbitmq.conf'),
        'RABBITMQ_ADVANCED_CONFIG_FILE': str(base / 'advanced.config'),
        'RABBITMQ_ENABLED_PLUGINS_FILE': str(base / 'enabled_plugins'),
        'RABBITMQ_MNESIA_BASE': str(base / 'mnesia'),
        'RABBITMQ_LOG_BASE': str(base / 'logs'),
        'RABBITMQ_LOGS': '-',              # stdout, i.e. our log file
        'RABBITMQ_PID_FILE': str(r['beam_pidfile']),
        'RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS':
            '-kernel inet_dist_use_interface {%s}' % HOST.replace('.', ','),
    })
    return env


def rabbitmq_configs(r: dict) -> dict[str, str]:
    return {
        'rabbitmq-env.conf': '# generated by tools/loopback.py: empty\n',
        'enabled_plugins': '[].\n',        # no management plugin, no other
        'rabbitmq.conf': (
            '# generated by tools/loopback.py\n'
            'listeners.tcp.default = %s:%d\n'
            'log.console = true\n'
            'log.console.level = info\n'
            'log.file = false\n' % (HOST, r['ports']['amqp'])),
    }


def rabbitmq_record_beam(r: dict, shell_pid: int) -> None:
    """Record the VM that the rabbitmq-server shell started."""
    try:
        pid = int(r['beam_pidfile'].read_text().split()[0])
        with open('/proc/%d/stat' % pid) as f:
            stat = f.read()
    except (OSError, ValueError, IndexError):
        return
    if stat[stat.rfind(')') + 2:].split()[1] != str(shell_pid):
        return                          # not our shell's child: leave it
    record_pid('rabbitmq-beam', pid, proc_starttime(pid),
               ['beam.smp', RABBITMQ_NODE], r['log'],
               stop_timeout=20.0)


def rabbitmq_start(clean: bool = False) -> None:
    r = rabbitmq_settings()
    amqp = r['ports']['amqp']
    if not clean and all(pidname_alive(n) for n in RABBITMQ_PIDNAMES) \
            and amqp_ready(amqp):
        say('rabbitmq: already running at %s' % rabbitmq_url())
        return
    if not r['server'].exists():
        raise not_installed('rabbitmq', str(r['server']))
    if not r['epmd']:
        raise not_installed('rabbitmq', 'epmd (Erlang)')
    rabbitmq_stop(quiet=True)
    if clean:
        say('rabbitmq: wiping %s' % (r['base'] / 'mnesia'))
        shutil.rmtree(r['base'] / 'mnesia', ignore_errors=True)
    check_ports_free('rabbitmq', r['ports'],
                     'LOOPBACK_RABBITMQ_PORT, LOOPBACK_RABBITMQ_DIST_PORT, '
                     'LOOPBACK_EPMD_PORT')
    r['base'].mkdir(parents=True, exist_ok=True)
    for name, text in rabbitmq_configs(r).items():
        write_if_changed(r['base'] / name, text)
    r['beam_pidfile'].unlink(missing_ok=True)
    env = rabbitmq_environ(r)
    started = time.monotonic()
    try:
        spawn('rabbitmq-epmd', [r['epmd'], '-address', HOST,
                                '-port', str(r['ports']['epmd'])],
              r['epmd_log'], r['base'], env=env)
        wait_until('rabbitmq', 'epmd did not listen',
                   lambda: tcp_accepts(r['ports']['epmd']),
                   {'rabbitmq-epmd': r['epmd_log']}, 10)
        shell = spawn('rabbitmq-server', [str(r['server'])], r['log'],
                      r['base'], env=env, stop_timeout=30.0)

        def ready() -> bool:
            if not (pids_dir() / 'rabbitmq-beam.pid').exists():
                rabbitmq_record_beam(r, shell)
            return amqp_ready(amqp)
        wait_until('rabbitmq', 'AMQP did not answer on %s:%d' % (HOST, amqp),
                   ready, {'rabbitmq-epmd': r['epmd_log'],
                           'rabbitmq-server': r['log']}, 120)
    except LoopbackError as e:
        rabbitmq_stop(quiet=True)
        raise with_log_tail(e) from None
    say('rabbitmq: running at %s (node %s), started in %.1f s' % (
        rabbitmq_url(), RABBITMQ_NODE, time.monotonic() - started))


def rabbitmq_stop(quiet: bool = False) -> None:
    # the shell stops the VM cleanly; the VM's own file only if left over
    stop_pidnames(['rabbitmq-server'], quiet)
    stop_pidnames(['rabbitmq-beam'], quiet=True)
    stop_pidnames(['rabbitmq-epmd'], quiet)


def rabbitmq_status() -> bool:
    r = rabbitmq_settings()
    running = print_pids(RABBITMQ_PIDNAMES + (
        ['rabbitmq-beam'] if (pids_dir() / 'rabbitmq-beam.pid').exists()
        else []))
    healthy = running and amqp_ready(r['ports']['amqp'])
    print('rabbitmq: %s' % ('running at %s' % rabbitmq_url() if healthy else
                            'running but not answering AMQP' if running else
                            'not running'))
    return healthy


# ---------------------------------------------------------------------------
# PostgreSQL (Debian's postgresql package, a private cluster)
# ---------------------------------------------------------------------------
#
# Cluster in <state>/postgres/data made by initdb, server started directly
# (not pg_ctlcluster, not the system service) as a foreground child:
# TCP 127.0.0.1:15432 only, unix socket in <state>/postgres/run.  initdb and
# the server refuse to run as root, so as root both run as the ``postgres``
# OS user (which then owns <state>/postgres).  Superuser ``postgres``: trust
# on the unix socket (only we can reach that directory), passwords
# (scram-sha-256) over TCP.  Throw-away test data: fsync off.  Stopped with
# SIGINT (PostgreSQL's "fast" shutdown: it does not wait for clients).

POSTGRES_SUPERUSER = 'postgres'


def postgres_bindir() -> Path | None:
    if os.environ.get('LOOPBACK_PG_BINDIR'):
        return Path(os.environ['LOOPBACK_PG_BINDIR'])
    found = []
    for server in Path('/usr/lib/postgresql').glob('*/bin/postgres'):
        version = server.parent.parent.name
        if version.isdigit():
            found.append((int(version), server.parent))
    if found:
        return max(found)[1]
    which = shutil.which('postgres')
    return Path(which).parent if which else None


def postgres_settings() -> dict:
    base = state_dir() / 'postgres'
    return {
        'base': base,
        'data': base / 'data',
        'run': base / 'run',
        'log': base / 'postgres.log',
        'port': env_port('LOOPBACK_POSTGRES_PORT', 15432),
        'bindir': postgres_bindir(),
        # the OS user of the server (initdb and postgres refuse root)
        'os_user': 'postgres' if os.geteuid() == 0 else getpass.getuser(),
    }


def postgres_cloud() -> dict:
    return {}


def postgres_env() -> dict:
    return {}


def postgres_url(database: str, user: str, password: str) -> str:
    """SQLAlchemy URL of a database of ours, over TCP."""
    return 'postgresql+psycopg2://%s:%s@%s:%d/%s' % (
        user, password, HOST, postgres_settings()['port'], database)


def postgres_clean_env() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith('PG')}


def postgres_psql(sql: str, database: str = 'postgres',
                  **variables: str) -> str:
    """Run SQL (psql syntax, :'var' for the variables) as the superuser
    over the unix socket; its output, unaligned."""
    p = postgres_settings()
    if not p['bindir']:
        raise not_installed('postgres', 'PostgreSQL')
    cmd = [str(p['bindir'] / 'psql'), '-X', '-q', '-A', '-t',
           '-v', 'ON_ERROR_STOP=1', '-h', str(p['run']),
           '-p', str(p['port']), '-U', POSTGRES_SUPERUSER, '-d', database]
    for key, value in variables.items():
        cmd += ['-v', '%s=%s' % (key, value)]
    result = subprocess.run(cmd + ['-f', '-'], input=sql, text=True,
                            capture_output=True, env=postgres_clean_env())
    if result.returncode != 0:
        raise LoopbackError('postgres: psql on %s failed: %s' % (
            database, (result.stderr or result.stdout).strip()))
    return result.stdout


def postgres_ensure_database(name: str, password: str) -> str:
    """Role ``name`` (LOGIN, this password) owning database ``name``, both
    created when missing; returns the SQLAlchemy URL."""
    postgres_psql(
        "SELECT format('CREATE ROLE %I', :'name') WHERE NOT EXISTS\n"
        "  (SELECT FROM pg_roles WHERE rolname = :'name') \\gexec\n"
        "ALTER ROLE :\"name\" WITH LOGIN PASSWORD :'password';\n"
        "SELECT format('CREATE DATABASE %I OWNER %I', :'name', :'name')\n"
        "  WHERE NOT EXISTS\n"
        "  (SELECT FROM pg_database WHERE datname = :'name') \\gexec\n",
        name=name, password=password)
    return postgres_url(name, name, password)


def postgres_drop_database(name: str) -> None:
    postgres_psql('DROP DATABASE IF EXISTS :"name" WITH (FORCE);\n',
                  name=name)


def postgres_alembic_version(database: str) -> str:
    """Alembic revision of a database ('' if it has none yet)."""
    return postgres_psql(
        "SELECT to_regclass('public.alembic_version') IS NOT NULL AS has\n"
        "\\gset\n"
        "\\if :has\n"
        "SELECT version_num FROM alembic_version;\n"
        "\\endif\n", database=database).strip()


def postgres_cluster_id() -> str:
    """Changes whenever the cluster is made anew (initdb)."""
    return postgres_psql(
        'SELECT system_identifier FROM pg_control_system();\n').strip()


def postgres_ready(p: dict) -> bool:
    result = subprocess.run(
        [str(p['bindir'] / 'pg_isready'), '-q', '-h', str(p['run']),
         '-p', str(p['port']), '-U', POSTGRES_SUPERUSER, '-d', 'postgres'],
        env=postgres_clean_env())
    return result.returncode == 0 and tcp_accepts(p['port'])


def postgres_prepare_dirs(p: dict) -> None:
    """Directories owned by the server's OS user, reachable by it."""
    for d in (p['base'], p['run']):
        d.mkdir(parents=True, exist_ok=True)
    os.chmod(p['run'], 0o700)
    if os.geteuid() != 0:
        return
    pw = pwd.getpwnam(p['os_user'])
    for d in (p['base'], p['run']):
        os.chown(d, pw.pw_uid, pw.pw_gid)
    if p['data'].exists():
        st = p['data'].stat()
        if (st.st_uid, st.st_gid) != (pw.pw_uid, pw.pw_gid):
            for root, dirs, files in os.walk(p['data']):
                for name in [root] + [os.path.join(root, n)
                                      for n in dirs + files]:
                    os.chown(name, pw.pw_uid, pw.pw_gid,
                             follow_symlinks=False)
    for parent in p['base'].parents:
        st = parent.stat()
        if st.st_uid != pw.pw_uid and not st.st_mode & 0o001 and not (
                st.st_gid == pw.pw_gid and st.st_mode & 0o010):
            raise LoopbackError(
                'postgres: the server runs as OS user %s, which cannot enter'
                ' %s; set LOOPBACK_DIR to a directory it can reach'
                % (p['os_user'], parent))


def postgres_initdb(p: dict) -> None:
    say('postgres: initdb %s' % p['data'])
    cmd = [str(p['bindir'] / 'initdb'), '-D', str(p['data']),
           '-U', POSTGRES_SUPERUSER, '-A', 'trust', '-E', 'UTF8',
           '--no-locale', '--no-sync']
    as_user = {}
    if os.geteuid() == 0:
        as_user = {'user': p['os_user'], 'group': p['os_user'],
                   'extra_groups': []}
    with open(p['log'], 'ab') as out:
        out.write(('=== loopback start %s: %s\n' % (
            datetime.datetime.now().isoformat(timespec='seconds'),
            ' '.join(shlex.quote(c) for c in cmd))).encode())
        out.flush()
        result = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, cwd=p['base'],
                                env=postgres_clean_env(), **as_user)
    if result.returncode != 0:
        shutil.rmtree(p['data'], ignore_errors=True)
        raise LoopbackError('postgres: initdb failed (exit %d)' %
                            result.returncode, p['log'])


def postgres_hba(p: dict) -> None:
    path = p['data'] / 'pg_hba.conf'
    if write_if_changed(path, (
            '# generated by tools/loopback.py\n'
            '# TYPE  DATABASE  USER  ADDRESS       METHOD\n'
            'local   all       all                 trust\n'
            'host    all       all   %s/32  scram-sha-256\n' % HOST)) and \
            os.geteuid() == 0:
        pw = pwd.getpwnam(p['os_user'])
        os.chown(path, pw.pw_uid, pw.pw_gid)


def postgres_start(clean: bool = False) -> None:
    p = postgres_settings()
    if not p['bindir'] or not (p['bindir'] / 'postgres').exists():
        raise not_installed('postgres', 'PostgreSQL (postgres, initdb)')
    if not clean and pidname_alive('postgres') and postgres_ready(p):
        say('postgres: already running on %s:%d' % (HOST, p['port']))
        return
    postgres_stop(quiet=True)
    if clean and p['data'].exists():
        say('postgres: wiping %s' % p['data'])
        shutil.rmtree(p['data'])
    check_ports_free('postgres', {'postgres': p['port']},
                     'LOOPBACK_POSTGRES_PORT')
    started = time.monotonic()
    try:
        postgres_prepare_dirs(p)
        if not (p['data'] / 'PG_VERSION').exists():
            postgres_initdb(p)
        postgres_hba(p)
        cmd = [str(p['bindir'] / 'postgres'), '-D', str(p['data']),
               '-c', 'listen_addresses=%s' % HOST,
               '-c', 'port=%d' % p['port'],
               '-c', 'unix_socket_directories=%s' % p['run'],
               '-c', 'max_connections=200',
               '-c', 'fsync=off', '-c', 'synchronous_commit=off',
               '-c', 'full_page_writes=off',
               '-c', 'logging_collector=off',
               '-c', 'log_line_prefix=%m [%p] %q%u@%d ']
        spawn('postgres', cmd, p['log'], p['base'],
              env=postgres_clean_env(), user=p['os_user'],
              stop_signal='SIGINT', stop_timeout=30.0)
        wait_until('postgres', 'no connection to %s:%d' % (HOST, p['port']),
                   lambda: postgres_ready(p), {'postgres': p['log']}, 60)
    except LoopbackError as e:
        postgres_stop(quiet=True)
        raise with_log_tail(e) from None
    say('postgres: running on %s:%d (%s), started in %.1f s' % (
        HOST, p['port'], p['bindir'].parent.name,
        time.monotonic() - started))


def postgres_stop(quiet: bool = False) -> None:
    stop_pidnames(['postgres'], quiet)


def postgres_status() -> bool:
    p = postgres_settings()
    running = print_pids(['postgres'])
    healthy = running and bool(p['bindir']) and postgres_ready(p)
    print('postgres: %s' % (
        'running on %s:%d' % (HOST, p['port']) if healthy else
        'running but not accepting connections' if running else
        'not running'))
    return healthy


# ---------------------------------------------------------------------------
# Mistral (from PyPI) with this repository's actions
# ---------------------------------------------------------------------------
#
# One ``mistral-server --server api,engine,executor,notifier`` (a master
# that forks one process per component, oslo.service; ``all`` would add
# event-engine and periodic, which serve event and cron triggers, unused
# here) on the rabbitmq and postgres services above: the RPC between the
# components needs the real broker, and ``mistral-db-manage upgrade head``
# a real database.  The API listens on 127.0.0.1:18989 with auth off (no
# Keystone): the X-Auth-Token / X-Project-Id headers of a request reach an
# action as ``context.security.auth_token`` / ``project_id``, while every
# execution is stored under the project ``<default-project>``.
#
# The venv also holds this checkout, installed editable with its
# ``mistral`` extra: the actions load from the ``mistral.actions`` entry
# point when the server starts.  Entry points live in the egg-info, so the
# editable install is redone whenever setup.cfg changes, and ``start``
# restarts a running server when the package's files (or the configuration)
# changed since it started.  Log: <state>/mistral/mistral-server.log.

# pbr and setuptools: to build this checkout's editable install in the venv
# itself (pip's build isolation would make a new build env every time)
MISTRAL_REQUIREMENTS = ['mistral==23.0.0', 'psycopg2-binary==2.9.13',
                        'pbr', 'setuptools']
# What `pip install mistral==23.0.0 psycopg2-binary`, then
# `pip install -e <repo>[mistral]` resolved to on Python 3.11 (known good).
MISTRAL_CONSTRAINTS = [
    'alembic==1.20.1', 'amqp==5.4.2', 'attrs==26.1.0', 'bcrypt==5.0.0',
    'cachetools==8.0.1', 'certifi==2026.10.18', 'cffi==2.1.1',
    'charset-normalizer==3.5.2', 'cheroot==11.1.2', 'cotyledon==2.2.0',
    'croniter==7.0.0', 'cryptography==50.0.2', 'debtcollector==3.1.0',
    'decorator==5.3.1', 'dnspython==2.9.2', 'dogpile.cache==1.5.0',
    'eventlet==0.41.3', 'fasteners==0.20', 'futurist==3.5.0',
    'greenlet==3.5.6', 'idna==3.20', 'importlib_metadata==10.2.0',
    'invoke==3.0.3', 'iso8601==2.1.0', 'jaraco.functools==4.6.0',
    'Jinja2==3.1.6', 'jsonschema==4.26.0',
    'jsonschema-specifications==2025.9.1', 'keystoneauth1==5.18.1',
    'keystonemiddleware==13.0.1', 'kombu==5.7.0', 'lazy-importer==0.1.0',
    'Mako==1.4.3', 'MarkupSafe==3.0.4', 'mistral==23.0.0',
    'mistral-lib==3.6.0', 'more-itertools==11.2.1', 'msgpack==1.2.4',
    'netaddr==1.3.0', 'networkx==3.6.1', 'os-service-types==1.9.0',
    'oslo.cache==4.3.0', 'oslo.concurrency==7.6.1', 'oslo.config==10.7.0',
    'oslo.context==6.5.0', 'oslo.db==18.1.1', 'oslo.i18n==6.9.0',
    'oslo.log==8.3.2', 'oslo.messaging==18.3.1', 'oslo.metrics==0.17.0',
    'oslo.middleware==8.2.0', 'oslo.policy==6.0.1',
    'oslo.serialization==5.11.0', 'oslo.service==4.8.0',
    'oslo.utils==10.2.0', 'osprofiler==4.4.0', 'packaging==26.3',
    'paramiko==5.1.0', 'Paste==3.10.1', 'PasteDeploy==3.1.0',
    'pbr==7.1.3', 'pecan==1.8.0', 'prettytable==3.18.0',
    'prometheus_client==0.26.0', 'psutil==7.2.2',
    'psycopg2-binary==2.9.13', 'pycadf==4.1.0', 'pycparser==3.12',
    'PyJWT==2.15.1', 'PyNaCl==1.6.2', 'pyparsing==3.3.3',
    'python-dateutil==4.0.0', 'python-keystoneclient==6.0.0',
    'python-swiftclient==4.11.0', 'PyYAML==6.0.3', 'referencing==0.37.0',
    'repoze-lru==0.8', 'requests==2.34.2', 'rfc3986==2.0.0',
    'Routes==2.5.1', 'rpds-py==2026.9.1', 'setproctitle==1.3.8',
    'setuptools==84.2.1', 'simplegeneric==0.8.1', 'six==1.17.0',
    'SQLAlchemy==2.1.9', 'statsd==4.0.1', 'stevedore==5.10.0',
    'tenacity==9.2.1', 'testresources==2.1.2', 'testscenarios==0.7.0',
    'typing_extensions==4.16.0', 'tzdata==2026.6', 'urllib3==2.8.0',
    'vine==5.1.0', 'wcwidth==0.9.4', 'WebOb==1.8.11', 'wrapt==2.5.2',
    'WSME==0.13.0', 'yappi==1.7.6', 'yaql==3.2.0', 'zipp==4.1.2',
    # what the package's own requirements (the clients) add to that
    'autopage==0.6.0', 'cliff==4.17.0', 'cmd2==4.3.1', 'jmespath==1.1.0',
    'jsonpatch==1.47', 'jsonpointer==3.12', 'markdown-it-py==4.3.0',
    'mdurl==0.1.2', 'openstacksdk==4.22.0', 'osc-lib==4.7.0',
    'platformdirs==4.14.7', 'prompt_toolkit==3.0.53', 'Pygments==2.21.0',
    'pyperclip==1.11.0', 'python-heatclient==5.3.0',
    'python-manilaclient==6.3.0', 'python-mistralclient==6.3.0',
    'python-openstackclient==10.5.0', 'rich==15.0.0',
    'rich-argparse==1.8.0',
]
# The components run: event-engine (event triggers) and periodic (cron
# triggers, disabled below) are not used by this project.
MISTRAL_SERVERS = 'api,engine,executor,notifier'
MISTRAL_DB = 'mistral'                  # database, and its owner role
MISTRAL_DB_PASSWORD = 'mistral-loopback'
# files of the checkout the editable install depends on (entry points,
# extras); a change means `pip install -e` again
PACKAGE_METADATA = ('setup.cfg', 'setup.py', 'pyproject.toml')


def mistral_settings() -> dict:
    base = state_dir() / 'mistral'
    return {
        'base': base,
        'conf': base / 'mistral.conf',
        'log': base / 'mistral-server.log',
        'db_log': base / 'mistral-db-manage.log',
        'db_stamp': base / 'db.stamp',
        'code_stamp': base / 'running.stamp',
        'port': env_port('LOOPBACK_MISTRAL_PORT', 18989),
        'venv': cache_dir() / 'venvs' / 'mistral',
    }


def mistral_url(path: str = '') -> str:
    return 'http://%s:%d/v2%s' % (HOST, mistral_settings()['port'], path)


def mistral_cloud() -> dict:
    # workflowv2: the service type python-mistralclient's OSC commands
    # (openstack workflow ...) look up
    return {'workflow_endpoint_override': mistral_url(),
            'workflowv2_endpoint_override': mistral_url()}


def mistral_env() -> dict:
    return {'LOOPBACK_MISTRAL_URL': mistral_url(),
            'LOOPBACK_MISTRAL_LOG': str(mistral_settings()['log'])}


def package_metadata_stamp() -> str:
    h = hashlib.sha256(str(REPO).encode())
    for name in PACKAGE_METADATA:
        path = REPO / name
        if path.exists():
            h.update(b'\0' + name.encode() + b'\0' + path.read_bytes())
    return h.hexdigest()


def package_code_stamp() -> str:
    """Changes when a file of the package (or its metadata) changes."""
    h = hashlib.sha256(package_metadata_stamp().encode())
    package = REPO / 'tripleoplanclient'
    for path in sorted(package.rglob('*')):
        if '__pycache__' in path.parts or not path.is_file():
            continue
        st = path.stat()
        h.update(('%s %d %d\n' % (path.relative_to(package), st.st_size,
                                  st.st_mtime_ns)).encode())
    return h.hexdigest()


def mistral_install_package(venv: Path) -> None:
    """This checkout, editable, with its mistral extra, in Mistral's venv;
    again only when the package metadata (or the checkout) changed."""
    python = venv / 'bin' / 'python'
    marker = venv / '.loopback-tripleoplanclient'
    wanted = package_metadata_stamp()
    if marker.exists() and marker.read_text().strip() == wanted:
        check = subprocess.run(
            [str(python), '-c', 'import tripleoplanclient.mistral.actions '
             'as m; print(m.__file__)'], capture_output=True, text=True)
        if check.returncode == 0 and Path(check.stdout.strip()).is_relative_to(
                REPO):
            return
    started = time.monotonic()
    marker.unlink(missing_ok=True)
    say('mistral: pip install -e "%s[mistral]"' % REPO)
    cmd = [str(python), '-m', 'pip', 'install', '--quiet',
           '--disable-pip-version-check', '--no-build-isolation',
           '-c', str(venv / 'loopback-constraints.txt'),
           '-e', '%s[mistral]' % REPO]
    if subprocess.run(cmd).returncode != 0:
        raise LoopbackError('mistral: pip install failed: %s' % ' '.join(
            shlex.quote(c) for c in cmd))
    marker.write_text(wanted + '\n')
    say('mistral: tripleoplanclient installed in %.1f s' % (
        time.monotonic() - started))


def mistral_config(m: dict, db_url: str) -> str:
    return '''# generated by tools/loopback.py
[DEFAULT]
transport_url = %(transport_url)s
# no log_file: oslo.log writes to stdout, which is %(log)s
debug = false
# stop within seconds (oslo.service's default is to wait 60 s)
graceful_shutdown_timeout = 5

[api]
host = %(host)s
port = %(port)d

[pecan]
auth_enable = false

[database]
connection = %(db_url)s

[cron_trigger]
enabled = false
''' % {'transport_url': rabbitmq_url(), 'log': m['log'], 'host': HOST,
       'port': m['port'], 'db_url': db_url}


def mistral_db_version() -> str:
    """Alembic revision of the mistral database ('' if none yet)."""
    return postgres_alembic_version(MISTRAL_DB)


def mistral_db_manage(m: dict, *args: str) -> None:
    cmd = [str(m['venv'] / 'bin' / 'mistral-db-manage'),
           '--config-file', str(m['conf'])] + list(args)
    with open(m['db_log'], 'ab') as out:
        out.write(('=== loopback start %s: %s\n' % (
            datetime.datetime.now().isoformat(timespec='seconds'),
            ' '.join(shlex.quote(c) for c in cmd))).encode())
        out.flush()
        result = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, cwd=m['base'])
    if result.returncode != 0:
        raise LoopbackError('mistral: mistral-db-manage %s failed (exit %d)'
                            % (' '.join(args), result.returncode),
                            m['db_log'])


def mistral_sync_db(m: dict) -> None:
    """Schema and the preinstalled workflows/actions, when the database is
    new (or Mistral or the cluster changed)."""
    def stamp() -> str:
        return json.dumps([MISTRAL_REQUIREMENTS, postgres_cluster_id(),
                           mistral_db_version()])
    if m['db_stamp'].exists() and m['db_stamp'].read_text() == stamp():
        return
    started = time.monotonic()
    mistral_db_manage(m, 'upgrade', 'head')
    mistral_db_manage(m, 'populate')
    m['db_stamp'].write_text(stamp())
    say('mistral: database schema and std workflows ready in %.1f s' % (
        time.monotonic() - started))


# logged by each component once its RPC server listens (mistral.service.base)
MISTRAL_STARTED = ('Engine server started.', 'Executor server started.',
                   'Notification server started.')


def log_since(path: Path, offset: int) -> str:
    try:
        with open(path, 'rb') as f:
            f.seek(offset)
            return f.read().decode('utf-8', 'replace')
    except OSError:
        return ''


def mistral_api_ready(m: dict) -> bool:
    try:
        status, _ = http_get(mistral_url('/workflows'), timeout=5)
    except OSError:
        return False
    return status == 200


MISTRAL_PIDNAMES = ['mistral-server']


def mistral_start(clean: bool = False) -> None:
    m = mistral_settings()
    require_broker_and_database('mistral')
    venv = ensure_venv('mistral', MISTRAL_REQUIREMENTS, MISTRAL_CONSTRAINTS,
                       'mistral.version, psycopg2')
    mistral_install_package(venv)
    db_url = postgres_url(MISTRAL_DB, MISTRAL_DB, MISTRAL_DB_PASSWORD)
    config = mistral_config(m, db_url)
    cmd = [str(venv / 'bin' / 'mistral-server'),
           '--config-file', str(m['conf']), '--server', MISTRAL_SERVERS]
    # what the running server was started with: the package's files, the
    # configuration and the command
    stamp = hashlib.sha256(json.dumps(
        [package_code_stamp(), config, cmd]).encode()).hexdigest()
    if not clean and pidname_alive('mistral-server') and \
            mistral_api_ready(m):
        if m['code_stamp'].exists() and \
                m['code_stamp'].read_text() == stamp:
            say('mistral: already running at %s' % mistral_url())
            return
        say('mistral: tripleoplanclient or the configuration changed since '
            'the server started: restarting it')
    mistral_stop(quiet=True)
    check_ports_free('mistral', {'api': m['port']}, 'LOOPBACK_MISTRAL_PORT')
    m['base'].mkdir(parents=True, exist_ok=True)
    m['code_stamp'].unlink(missing_ok=True)
    started = time.monotonic()
    try:
        if clean:
            say('mistral: dropping database %s' % MISTRAL_DB)
            postgres_drop_database(MISTRAL_DB)
        postgres_ensure_database(MISTRAL_DB, MISTRAL_DB_PASSWORD)
        write_if_changed(m['conf'], config)
        mistral_sync_db(m)
        offset = m['log'].stat().st_size if m['log'].exists() else 0
        spawn('mistral-server', cmd, m['log'], m['base'], stop_timeout=20.0)
        # the API answering is not enough: an execution started before the
        # engine consumes its queue waits for the RPC timeout (60 s)
        wait_until('mistral', 'the engine, executor and notifier did not '
                   'report "started"', lambda: all(
                       line in log_since(m['log'], offset)
                       for line in MISTRAL_STARTED),
                   {'mistral-server': m['log']}, 120)
        wait_until('mistral', 'GET %s gave no 200' % mistral_url(
            '/workflows'), lambda: mistral_api_ready(m),
            {'mistral-server': m['log']}, 120)
    except LoopbackError as e:
        mistral_stop(quiet=True)
        raise with_log_tail(e) from None
    m['code_stamp'].write_text(stamp)
    say('mistral: running at %s, started in %.1f s' % (
        mistral_url(), time.monotonic() - started))


def mistral_stop(quiet: bool = False) -> None:
    stop_pidnames(MISTRAL_PIDNAMES, quiet)


def mistral_status() -> bool:
    m = mistral_settings()
    running = print_pids(MISTRAL_PIDNAMES)
    healthy = running and mistral_api_ready(m)
    print('mistral: %s' % ('running at %s' % mistral_url() if healthy else
                           'running but the API does not answer' if running
                           else 'not running'))
    return healthy


# ---------------------------------------------------------------------------
# Heat (from PyPI), without Keystone
# ---------------------------------------------------------------------------
#
# Heat 27 has no heat-all, and heat-engine forks a worker even with one, so
# the API cannot reach the engine over fake:// messaging: two programs, from
# one venv, on the rabbitmq and postgres services above:
#
#   heat-engine  the stock engine (a master and one worker process)
#   heat-api     the WSGI application heat.wsgi.api under uWSGI (the
#                pyuwsgi wheel: nothing to compile), a master and 2 workers
#                of 4 threads, HTTP on 127.0.0.1:18004
#
# ``heat-manage db_sync`` runs when the ``heat`` database is new (or Heat or
# the cluster changed).  The legacy engine (``convergence_engine = false``)
# is several times faster than convergence on a small machine.  Heat waits
# one second between the steps of a task (a constant: there is no setting
# for it), so a resource takes about a second.
#
# No Keystone:
#
# * Paste flavor ``noauth``: each request runs as user ``admin`` (or the
#   X-Auth-User header), project ``admin`` (or X-Auth-Project), roles
#   ``admin`` only.  Heat's URLs carry the project: the API is
#   http://127.0.0.1:18004/v1/admin, clouds.yaml's
#   ``orchestration_endpoint_override`` and, for python-heatclient's own
#   ``openstack stack ...`` commands, which ignore that, ``auth: endpoint``.
# * Heat 27's policy defaults ask for the roles member or reader, which that
#   identity lacks: ``[oslo_policy] enforce_new_defaults = false`` lets each
#   rule's deprecated check (mostly "not role:heat_stack_user") grant it,
#   and policy.yaml grants the one rule that still refuses the admin role.
# * ``keystone_backend``: Heat's own FakeKeystoneClient, so stack domain
#   users (OS::Heat::DeployedServer with POLL_SERVER_HEAT), trusts and the
#   like are stubs.
# * ``[noauth] token_response``: a token with a service catalog that the
#   noauth middleware attaches to every request: this Heat as
#   ``orchestration`` (OS::Heat::DeployedServer refuses to exist without
#   one) and the loopback Swift as ``object-store``, account AUTH_admin
#   (Heat signs temp URLs for /v1/AUTH_<project>).  Heat does use that
#   Swift, but Swift shows and accepts X-Account-Meta-Temp-URL-Key only for
#   a "swift owner", which no request is without auth middleware:
#   POLL_TEMP_URL and TEMP_URL_SIGNAL would fail (KeyError); the proxy's
#   ``swift_owner_headers = x-account-access-control`` leaves the temp-url
#   keys out of the owner-only headers, and both work.
# * A signal to a resource (``openstack stack resource signal``,
#   signal_transport HEAT_SIGNAL) runs with the stack's stored credentials,
#   which only Keystone can turn into a session: it fails.  Complete a
#   deployment with NO_SIGNAL, or by updating it (PUT
#   /software_deployments/<id> with status COMPLETE).
#
# Request counting: uWSGI writes one line per request, after its response
# went out, to <state>/heat/api-access.log, e.g.
#
#   [21/Nov/2026:15:49:18 +0000] "GET /v1/admin/stacks HTTP/1.1" 200 343 37ms
#
# The readiness polls of ``start`` and ``status`` are requests too (GET /,
# /v1/admin/services, /v1/admin/stacks).  Other logs, in the same directory:
# heat-engine.log, heat-api.log (uWSGI and the application),
# heat-manage.log.

HEAT_REQUIREMENTS = ['openstack-heat==27.0.1', 'yaql==2.0.1',
                     'psycopg2-binary==2.9.13', 'pyuwsgi==2.0.30.post1']
# What `pip install openstack-heat==27.0.1 'yaql<3' psycopg2-binary pyuwsgi`
# resolved to on Python 3.11 (known good).  yaql 3 dropped format(), which
# tripleo-heat-templates 18 use.
HEAT_CONSTRAINTS = [
    'alembic==1.20.1', 'amqp==5.4.2', 'aodhclient==3.12.0', 'attrs==26.1.0',
    'autopage==0.6.0', 'bcrypt==5.0.0', 'cachetools==8.0.1',
    'certifi==2026.10.18', 'cffi==2.1.1', 'charset-normalizer==3.5.2',
    'cliff==4.17.0', 'cmd2==4.3.1', 'cotyledon==2.2.0', 'croniter==7.0.0',
    'cryptography==50.0.2', 'debtcollector==3.1.0', 'decorator==5.3.1',
    'dnspython==2.9.2', 'docker==7.2.0', 'dogpile.cache==1.5.0',
    'eventlet==0.41.3', 'fasteners==0.20', 'futurist==3.5.0',
    'greenlet==3.5.6', 'idna==3.20', 'invoke==3.0.3', 'iso8601==2.1.0',
    'Jinja2==3.1.6', 'jmespath==1.1.0', 'jsonpatch==1.47',
    'jsonpointer==3.12', 'jsonschema-specifications==2025.9.1',
    'jsonschema==4.26.0', 'keystoneauth1==5.18.1',
    'keystonemiddleware==13.0.1', 'kombu==5.7.0', 'lxml==6.1.3',
    'Mako==1.4.3', 'markdown-it-py==4.3.0', 'MarkupSafe==3.0.4',
    'mdurl==0.1.2', 'msgpack==1.2.4', 'ncclient==0.7.1', 'netaddr==1.3.0',
    'neutron-lib==5.0.1', 'openstack-heat==27.0.1', 'openstacksdk==4.22.0',
    'os-ken==4.2.2', 'os-service-types==1.9.0', 'os-traits==3.9.0',
    'osc-lib==4.7.0', 'oslo.cache==4.3.0', 'oslo.concurrency==7.6.1',
    'oslo.config==10.7.0', 'oslo.context==6.5.0', 'oslo.db==18.1.1',
    'oslo.i18n==6.9.0', 'oslo.log==8.3.2', 'oslo.messaging==18.3.1',
    'oslo.metrics==0.17.0', 'oslo.middleware==8.2.0', 'oslo.policy==6.0.1',
    'oslo.reports==3.9.0', 'oslo.serialization==5.11.0',
    'oslo.service==4.8.0', 'oslo.upgradecheck==2.8.0', 'oslo.utils==10.2.0',
    'oslo.versionedobjects==3.12.0', 'osprofiler==4.4.0', 'ovs==4.0.0',
    'packaging==26.3', 'paramiko==5.1.0', 'Paste==3.10.1',
    'PasteDeploy==3.1.0', 'pbr==7.1.3', 'pecan==1.8.0',
    'platformdirs==4.14.7', 'ply==3.11', 'prettytable==3.18.0',
    'prometheus_client==0.26.0', 'prompt_toolkit==3.0.53', 'psutil==7.2.2',
    'psycopg2-binary==2.9.13', 'pycadf==4.1.0', 'pycparser==3.12',
    'Pygments==2.21.0', 'PyJWT==2.15.1', 'PyNaCl==1.6.2', 'pyOpenSSL==26.4.0',
    'pyparsing==3.3.3', 'pyperclip==1.11.0', 'python-barbicanclient==7.6.0',
    'python-blazarclient==4.6.0', 'python-cinderclient==9.10.0',
    'python-dateutil==4.0.0', 'python-designateclient==7.0.0',
    'python-glanceclient==4.13.0', 'python-heatclient==5.3.0',
    'python-ironicclient==6.3.0', 'python-keystoneclient==6.0.0',
    'python-magnumclient==5.0.0', 'python-manilaclient==6.3.0',
    'python-mistralclient==6.3.0', 'python-neutronclient==14.0.0',
    'python-novaclient==18.13.1', 'python-octaviaclient==3.15.0',
    'python-openstackclient==10.5.0', 'python-swiftclient==4.11.0',
    'python-troveclient==8.11.0', 'python-zaqarclient==4.7.0',
    'python-zunclient==5.5.0', 'pyuwsgi==2.0.30.post1', 'PyYAML==6.0.3',
    'referencing==0.37.0', 'repoze-lru==0.8', 'requests==2.34.2',
    'rfc3986==2.0.0', 'rich-argparse==1.8.0', 'rich==15.0.0',
    'Routes==2.5.1', 'rpds-py==2026.9.1', 'setproctitle==1.3.8',
    'six==1.17.0', 'sortedcontainers==2.4.0', 'SQLAlchemy==2.1.9',
    'statsd==4.0.1', 'stevedore==5.10.0', 'tenacity==9.2.1',
    'testresources==2.1.2', 'testscenarios==0.7.0',
    'typing_extensions==4.16.0', 'tzdata==2026.6', 'urllib3==2.8.0',
    'vine==5.1.0', 'warlock==2.1.0', 'wcwidth==0.9.4', 'WebOb==1.8.11',
    'websocket-client==1.9.2', 'wrapt==2.5.2', 'yappi==1.7.6',
    'yaql==2.0.1',
]
HEAT_DB = 'heat'                        # database, and its owner role
HEAT_DB_PASSWORD = 'heat-loopback'
HEAT_PROJECT = 'admin'                  # what the noauth middleware gives
# 32 characters, fixed: the database keeps what Heat encrypted with it
HEAT_AUTH_ENCRYPTION_KEY = 'tripleoplanclient-loopback-key32'
HEAT_PIDNAMES = ['heat-engine', 'heat-api']
# heat-engine's own entry point, run with a longer thread switch interval.
# Heat 27's engine runs on native threads (oslo.service's threading
# backend) and every yaql function shares one parser whose ply lexer keeps
# the text being parsed: a thread switch in the middle of a parse lets
# another nested stack's expression replace it, and THT 18 failed at
# random with "Bad expression Parse error: unexpected end of statement"
# (seen on FirewallFrontendRules).  A parse does no I/O, so with 1 s
# between forced switches (default 5 ms) one practically never yields
# mid-parse; threads still switch whenever one waits for I/O.
HEAT_ENGINE_MAIN = ('import sys; sys.argv[0] = "heat-engine"; '
                    'sys.setswitchinterval(1.0); '
                    'from heat.cmd.engine import main; sys.exit(main())')
# what heat-engine's master (cotyledon) logs when a worker process died
HEAT_WORKER_DIED = 'exited with status'


def heat_settings() -> dict:
    base = state_dir() / 'heat'
    return {
        'base': base,
        'conf': base / 'heat.conf',
        'engine_log': base / 'heat-engine.log',
        'api_log': base / 'heat-api.log',
        'access_log': base / 'api-access.log',
        'db_log': base / 'heat-manage.log',
        'db_stamp': base / 'db.stamp',
        'run_stamp': base / 'running.stamp',
        'port': env_port('LOOPBACK_HEAT_PORT', 18004),
        'venv': cache_dir() / 'venvs' / 'heat',
    }


def heat_url(path: str = '') -> str:
    return 'http://%s:%d/v1/%s%s' % (HOST, heat_settings()['port'],
                                     HEAT_PROJECT, path)


def heat_cloud() -> dict:
    # python-heatclient's own OSC commands (openstack stack ...) ignore
    # orchestration_endpoint_override: they ask the session, whose auth
    # plugin (none) then answers with its endpoint, for any service that
    # has no override of its own
    return {'orchestration_endpoint_override': heat_url(),
            'auth': {'endpoint': heat_url()}}


def heat_env() -> dict:
    h = heat_settings()
    return {'LOOPBACK_HEAT_URL': heat_url(),
            'LOOPBACK_HEAT_ENGINE_LOG': str(h['engine_log']),
            'LOOPBACK_HEAT_API_LOG': str(h['api_log']),
            'LOOPBACK_HEAT_ACCESS_LOG': str(h['access_log'])}


def heat_token_response() -> str:
    """What the noauth middleware attaches to each request as its
    Keystone token: the identity it uses, and a service catalog."""
    def service(kind: str, name: str, url: str) -> dict:
        return {'type': kind, 'name': name, 'id': name, 'endpoints': [
            {'id': '%s-%s' % (name, interface), 'interface': interface,
             'region': 'RegionOne', 'region_id': 'RegionOne', 'url': url}
            for interface in ('public', 'internal', 'admin')]}
    domain = {'id': 'default', 'name': 'Default'}
    return json.dumps({'token': {
        'methods': ['token'],
        'issued_at': '2020-01-01T00:00:00.000000Z',
        'expires_at': '2999-12-31T23:59:59.000000Z',
        'user': {'id': 'admin', 'name': 'admin', 'domain': domain},
        'project': {'id': HEAT_PROJECT, 'name': HEAT_PROJECT,
                    'domain': domain},
        'roles': [{'id': 'admin', 'name': 'admin'}],
        # Heat signs temp URLs for /v1/AUTH_<project>: its own account
        'catalog': [service('orchestration', 'heat', heat_url()),
                    service('object-store', 'swift',
                            swift_url('/v1/AUTH_' + HEAT_PROJECT))],
    }}, indent=1) + '\n'


HEAT_POLICY = '''\
# generated by tools/loopback.py
# Requests run as user admin, project admin, roles [admin] (noauth).  With
# [oslo_policy] enforce_new_defaults = false each rule's deprecated check
# grants that identity everything but the rules below (and the
# *:global_index rules, which deny everybody).
"software_deployments:metadata": "role:admin"
'''


def heat_files(h: dict, venv: Path, db_url: str) -> dict[str, str]:
    """File name (in <state>/heat) -> content."""
    base = h['base']
    conf = '''# generated by tools/loopback.py
[DEFAULT]
transport_url = %(transport_url)s
# no log_file: oslo.log writes to stderr: heat-engine.log, heat-api.log
debug = false
# stop within seconds (the default is to wait 60 s; the engine's worker
# waits out the whole timeout even when it has nothing left to do)
graceful_shutdown_timeout = 2
num_engine_workers = 1
# the legacy engine: several times faster than convergence here
convergence_engine = false
# no Keystone: Heat's stub for stack domain users, trusts, ...
keystone_backend = \
heat.engine.clients.os.keystone.fake_keystoneclient.FakeKeystoneClient
auth_encryption_key = %(key)s
# the stack's stored credentials: the noauth user and password (with the
# default, trusts, every stack delete logs an ERROR about [trustee])
deferred_auth_method = password
# tripleo-heat-templates: hundreds of nested stacks, nested deeply, and
# stack-create requests of several MB (every template in "files")
max_resources_per_stack = -1
max_stacks_per_tenant = -1
max_software_configs_per_tenant = -1
max_software_deployments_per_tenant = -1
max_nested_stack_depth = 20
max_template_size = 10485760
max_json_body_size = 67108864
# the legacy engine validates the whole tree of nested stacks within the
# create call (default 60 s)
rpc_response_timeout = 300

[paste_deploy]
flavor = noauth
api_paste_config = %(paste)s

[noauth]
token_response = %(token)s

[oslo_policy]
enforce_new_defaults = false
policy_file = %(policy)s

[database]
connection = %(db_url)s

[clients_heat]
url = http://%(host)s:%(port)d/v1/%%(tenant_id)s

[yaql]
# tripleo-heat-templates' expressions over all roles' data (defaults: 200
# and 10000)
limit_iterators = 10000
memory_quota = 1000000
''' % {'transport_url': rabbitmq_url(), 'key': HEAT_AUTH_ENCRYPTION_KEY,
       'paste': venv / 'etc' / 'heat' / 'api-paste.ini',
       'token': base / 'token-response.json', 'policy': base / 'policy.yaml',
       'db_url': db_url, 'host': HOST, 'port': h['port']}
    uwsgi = '''# generated by tools/loopback.py
[uwsgi]
strict = true
http-socket = %(host)s:%(port)d
# http-socket closes the connection after each response; saying so keeps
# clients from sending their next request on it (connection reset)
add-header = Connection: close
module = heat.wsgi.api:application
pyargv = --config-file %(conf)s
master = true
processes = 2
threads = 4
enable-threads = true
# each worker loads Heat (and connects to RabbitMQ) after the fork
lazy-apps = true
need-app = true
# SIGTERM stops (uWSGI 2.0 would reload)
die-on-term = true
worker-reload-mercy = 5
buffer-size = 65535
# one line per request, once its response went out
req-logger = file:%(access_log)s
log-format = [%%(ltime)] "%%(method) %%(uri) %%(proto)" %%(status) \
%%(size) %%(msecs)ms
''' % {'host': HOST, 'port': h['port'], 'conf': h['conf'],
       'access_log': h['access_log']}
    return {'heat.conf': conf, 'policy.yaml': HEAT_POLICY,
            'token-response.json': heat_token_response(),
            'heat-api-uwsgi.ini': uwsgi}


def heat_manage(h: dict, *args: str) -> None:
    cmd = [str(h['venv'] / 'bin' / 'heat-manage'),
           '--config-file', str(h['conf'])] + list(args)
    with open(h['db_log'], 'ab') as out:
        out.write(('=== loopback start %s: %s\n' % (
            datetime.datetime.now().isoformat(timespec='seconds'),
            ' '.join(shlex.quote(c) for c in cmd))).encode())
        out.flush()
        result = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, cwd=h['base'])
    if result.returncode != 0:
        raise LoopbackError('heat: heat-manage %s failed (exit %d)'
                            % (' '.join(args), result.returncode),
                            h['db_log'])


def heat_sync_db(h: dict) -> None:
    """The schema, when the database is new (or Heat or the cluster
    changed)."""
    def stamp() -> str:
        return json.dumps([HEAT_REQUIREMENTS, postgres_cluster_id(),
                           postgres_alembic_version(HEAT_DB)])
    if h['db_stamp'].exists() and h['db_stamp'].read_text() == stamp():
        return
    started = time.monotonic()
    heat_manage(h, 'db_sync')
    h['db_stamp'].write_text(stamp())
    say('heat: database schema ready in %.1f s' % (
        time.monotonic() - started))


def heat_get_json(url: str, timeout: float) -> tuple[int, dict | None]:
    try:
        status, body = http_get(url, timeout=timeout)
        return status, json.loads(body)
    except (OSError, ValueError):
        return 0, None


def heat_answers() -> bool:
    """The API answers (GET / lists the versions: 300)."""
    status, body = heat_get_json('http://%s:%d/' % (
        HOST, heat_settings()['port']), timeout=5)
    return status == 300 and bool(body)


def heat_engine_registered(since: str) -> bool:
    """A heat-engine registered itself (in the database, from its RPC
    server's start) at ``since`` (UTC, ISO) or later."""
    status, body = heat_get_json(heat_url('/services'), timeout=5)
    if status != 200 or not isinstance(body, dict):
        return False
    return any(s.get('binary') == 'heat-engine' and
               str(s.get('created_at') or '') >= since
               for s in body.get('services') or [])


def heat_api_ready() -> bool:
    """A stack list (an RPC call to the engine) gives 200."""
    status, body = heat_get_json(heat_url('/stacks'), timeout=10)
    return status == 200 and isinstance(body, dict) and 'stacks' in body


def heat_environ() -> dict:
    """Our environment; requests from Heat to 127.0.0.1 (Swift) bypass
    any HTTP proxy."""
    env = dict(os.environ)
    for var in ('no_proxy', 'NO_PROXY'):
        hosts = [x for x in env.get(var, '').split(',') if x]
        env[var] = ','.join(hosts + [HOST, 'localhost'])
    return env


def heat_start(clean: bool = False) -> None:
    h = heat_settings()
    require_broker_and_database('heat')
    venv = ensure_venv('heat', HEAT_REQUIREMENTS, HEAT_CONSTRAINTS,
                       'heat.version, psycopg2, pyuwsgi')
    if ' ' in str(h['conf']):
        raise LoopbackError('heat: uWSGI cannot pass a path with spaces to '
                            'Heat (%s): set LOOPBACK_DIR' % h['conf'])
    paste = venv / 'etc' / 'heat' / 'api-paste.ini'
    if not paste.exists():
        raise LoopbackError('heat: %s is missing from the venv' % paste)
    db_url = postgres_url(HEAT_DB, HEAT_DB, HEAT_DB_PASSWORD)
    files = heat_files(h, venv, db_url)
    engine_cmd = [str(venv / 'bin' / 'python'), '-c', HEAT_ENGINE_MAIN,
                  '--config-file', str(h['conf'])]
    api_cmd = [str(venv / 'bin' / 'uwsgi'),
               '--ini', str(h['base'] / 'heat-api-uwsgi.ini')]
    stamp = hashlib.sha256(json.dumps(
        [HEAT_REQUIREMENTS, files, engine_cmd, api_cmd]).encode()).hexdigest()
    if not clean and all(pidname_alive(n) for n in HEAT_PIDNAMES) and \
            heat_api_ready():
        if h['run_stamp'].exists() and h['run_stamp'].read_text() == stamp:
            say('heat: already running at %s' % heat_url())
            return
        say('heat: the configuration changed since it started: restarting')
    heat_stop(quiet=True)
    check_ports_free('heat', {'api': h['port']}, 'LOOPBACK_HEAT_PORT')
    h['base'].mkdir(parents=True, exist_ok=True)
    h['run_stamp'].unlink(missing_ok=True)
    started = time.monotonic()
    engine = {'heat-engine': h['engine_log']}
    api = {'heat-api': h['api_log']}
    try:
        if clean:
            say('heat: dropping database %s' % HEAT_DB)
            postgres_drop_database(HEAT_DB)
        postgres_ensure_database(HEAT_DB, HEAT_DB_PASSWORD)
        for name, text in files.items():
            write_if_changed(h['base'] / name, text)
        heat_sync_db(h)
        # the engine's registration, in its clock (UTC, to the second)
        since = (datetime.datetime.now(datetime.timezone.utc) -
                 datetime.timedelta(seconds=1)).strftime('%Y-%m-%dT%H:%M:%S')
        env = heat_environ()
        offset = h['engine_log'].stat().st_size \
            if h['engine_log'].exists() else 0

        def registered() -> bool:
            # the engine's master forks a new worker whenever one dies
            # (e.g. no database): give up at the first death
            if HEAT_WORKER_DIED in log_since(h['engine_log'], offset):
                raise LoopbackError('heat: the heat-engine worker exited '
                                    'during start', h['engine_log'])
            return heat_engine_registered(since)
        spawn('heat-engine', engine_cmd, h['engine_log'], h['base'],
              env=env, stop_timeout=20.0)
        spawn('heat-api', api_cmd, h['api_log'], h['base'], env=env,
              stop_timeout=15.0)
        wait_until('heat', 'the API did not answer on %s:%d' % (
            HOST, h['port']), heat_answers, engine | api, 120)
        # a request before the engine consumes its queue would wait for
        # rpc_response_timeout: first the engine's registration (a
        # database read), then one stack list (an RPC call)
        wait_until('heat', 'the engine did not register (GET %s)' %
                   heat_url('/services'), registered, api | engine, 120)
        wait_until('heat', 'GET %s gave no 200' % heat_url('/stacks'),
                   heat_api_ready, engine | api, 60)
    except LoopbackError as e:
        heat_stop(quiet=True)
        raise with_log_tail(e) from None
    h['run_stamp'].write_text(stamp)
    say('heat: running at %s (access log %s), started in %.1f s' % (
        heat_url(), h['access_log'], time.monotonic() - started))


def heat_stop(quiet: bool = False) -> None:
    # the API first: no new requests for the engine
    stop_pidnames(['heat-api', 'heat-engine'], quiet)


def heat_status() -> bool:
    running = print_pids(HEAT_PIDNAMES)
    healthy = running and heat_api_ready()
    print('heat: %s' % ('running at %s' % heat_url() if healthy else
                        'running but a stack list fails' if running
                        else 'not running'))
    return healthy


# ---------------------------------------------------------------------------
# registry and subcommands
# ---------------------------------------------------------------------------

# start order; 'requires': started first by ``start``, and ``stop`` of one
# of those stops the services that need it first
SERVICES = {
    'swift': {'start': swift_start, 'stop': swift_stop,
              'status': swift_status, 'cloud': swift_cloud, 'env': swift_env,
              'requires': []},
    'rabbitmq': {'start': rabbitmq_start, 'stop': rabbitmq_stop,
                 'status': rabbitmq_status, 'cloud': rabbitmq_cloud,
                 'env': rabbitmq_env, 'requires': []},
    'postgres': {'start': postgres_start, 'stop': postgres_stop,
                 'status': postgres_status, 'cloud': postgres_cloud,
                 'env': postgres_env, 'requires': []},
    'mistral': {'start': mistral_start, 'stop': mistral_stop,
                'status': mistral_status, 'cloud': mistral_cloud,
                'env': mistral_env, 'requires': ['rabbitmq', 'postgres']},
    'heat': {'start': heat_start, 'stop': heat_stop, 'status': heat_status,
             'cloud': heat_cloud, 'env': heat_env,
             'requires': ['rabbitmq', 'postgres']},
}


def with_requirements(names: list[str]) -> list[str]:
    """names plus what they require, in SERVICES order."""
    wanted = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name not in wanted:
            wanted.add(name)
            todo.extend(SERVICES[name]['requires'])
    return [n for n in SERVICES if n in wanted]


def with_dependents(names: list[str]) -> list[str]:
    """names plus the services that require them, in SERVICES order."""
    wanted = set(names)
    changed = True
    while changed:
        changed = False
        for name, service in SERVICES.items():
            if name not in wanted and wanted & set(service['requires']):
                wanted.add(name)
                changed = True
    return [n for n in SERVICES if n in wanted]


def cmd_start(args: argparse.Namespace) -> int:
    ensure_state_dir()
    named = args.services or list(SERVICES)
    for name in with_requirements(named):
        # --clean wipes the named services only, not what they pull in
        SERVICES[name]['start'](clean=args.clean and name in named)
        set_started(started() | {name})
    path = write_clouds_yaml()
    say('clouds.yaml: %s (cloud "loopback")' % path)
    return 0


def cmd_stop(args: argparse.Namespace) -> int:
    services = with_dependents(args.services or list(SERVICES))
    for name in reversed(services):
        SERVICES[name]['stop']()
    set_started(started() - set(services))
    write_clouds_yaml()
    if not args.services and pids_dir().is_dir():
        # anything else with a pid file here (a service removed since?)
        for path in sorted(pids_dir().glob('*.pid')):
            say(stop_pidfile(path))
    wait_reaped()
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    ok = True
    for name in args.services or list(SERVICES):
        ok = SERVICES[name]['status']() and ok
    if not args.services:
        return 0
    return 0 if ok else 3


def cmd_env(args: argparse.Namespace) -> int:
    for key, value in env_vars().items():
        print('export %s=%s' % (key, shlex.quote(value)))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description='Run real OpenStack services on 127.0.0.1.')
    sub = parser.add_subparsers(dest='command', required=True)
    p = sub.add_parser('start', help='install if needed and start services')
    p.add_argument('--clean', action='store_true',
                   help='wipe the services\' data first')
    p.add_argument('services', nargs='*', metavar='SERVICE',
                   help='one of: %s (default: all)' % ', '.join(SERVICES))
    p.set_defaults(func=cmd_start)
    p = sub.add_parser('stop', help='stop services started here, by PID')
    p.add_argument('services', nargs='*', metavar='SERVICE',
                   help='one of: %s (default: all)' % ', '.join(SERVICES))
    p.set_defaults(func=cmd_stop)
    p = sub.add_parser('status', help='show which services run')
    p.add_argument('services', nargs='*', metavar='SERVICE',
                   help='one of: %s (default: all)' % ', '.join(SERVICES))
    p.set_defaults(func=cmd_status)
    p = sub.add_parser('env', help='print shell export lines')
    p.set_defaults(func=cmd_env)
    p = sub.add_parser('_syslog-sink', help=argparse.SUPPRESS)
    p.add_argument('--ready', help='file to create once listening')
    p.add_argument('--bare', action='append', metavar='PORT=FILE',
                   help='write the message alone (no syslog tag)')
    p.add_argument('--stamped', action='append', metavar='PORT=FILE',
                   help='write local time, syslog tag and message')
    p.set_defaults(func=syslog_sink_main)
    args = parser.parse_args(argv)
    for name in getattr(args, 'services', None) or []:
        if name not in SERVICES:
            parser.error('unknown service %r (known: %s)' % (
                name, ', '.join(SERVICES)))
    try:
        return args.func(args)
    except LoopbackError as e:
        say('ERROR: %s' % e.args[0])
        return 1
    except subprocess.CalledProcessError as e:
        say('ERROR: command failed (exit %d): %s' % (
            e.returncode, ' '.join(shlex.quote(str(c)) for c in e.cmd)))
        return 1


if __name__ == '__main__':
    sys.exit(main())
