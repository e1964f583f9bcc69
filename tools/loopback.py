#!/usr/bin/env python3
"""Real OpenStack services on 127.0.0.1, for functional tests, benchmarks and
the demo.

Standard library only (Python 3.11).  Each service is one small group of
functions (``swift_*``) registered in ``SERVICES``; the subcommands dispatch
to them.  Every service runs from its own virtualenv under
``$LOOPBACK_CACHE/venvs/<service>`` (installed from PyPI on first use) and
keeps its configuration, data, logs and pid files under the state directory
``$LOOPBACK_DIR``.

Usage::

    python3 tools/loopback.py start [--clean] [swift]   # idempotent
    python3 tools/loopback.py stop [swift]             # by PID, safe to repeat
    python3 tools/loopback.py status [swift]            # exit 3 if not running
    python3 tools/loopback.py env                       # shell export lines
    eval "$(python3 tools/loopback.py env)"

Environment:

    LOOPBACK_CACHE   virtualenvs + downloads (def. ~/.cache/tripleoplanclient)
    LOOPBACK_DIR     state directory          (default <repo>/.loopback)
    LOOPBACK_PYTHON  interpreter for the venvs (default: the one running this)
    LOOPBACK_SWIFT_PORT (18080), LOOPBACK_SWIFT_OBJECT_PORT (16010),
    LOOPBACK_SWIFT_CONTAINER_PORT (16011), LOOPBACK_SWIFT_ACCOUNT_PORT (16012),
    LOOPBACK_MEMCACHED_PORT (16013), LOOPBACK_SWIFT_LOG_PORT (16014; the log
    sink uses this port and the next five), LOOPBACK_MEMCACHED=0 to never run
    memcached even when it is on PATH.

Everything binds 127.0.0.1 only.  ``stop`` signals only the PIDs recorded in
``<state>/pids/*.pid``, and only when the recorded process start time still
matches (so a stale pid file after a reboot never hits another process).

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


def cloud_config() -> dict:
    cloud = {'auth_type': 'none'}
    for service in SERVICES.values():
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
# registry and subcommands
# ---------------------------------------------------------------------------

SERVICES = {
    'swift': {'start': swift_start, 'stop': swift_stop,
              'status': swift_status, 'cloud': swift_cloud, 'env': swift_env},
}


def cmd_start(args: argparse.Namespace) -> int:
    ensure_state_dir()
    for name in args.services or list(SERVICES):
        SERVICES[name]['start'](clean=args.clean)
    path = write_clouds_yaml()
    say('clouds.yaml: %s (cloud "loopback")' % path)
    return 0


def cmd_stop(args: argparse.Namespace) -> int:
    services = args.services or list(SERVICES)
    for name in reversed(services):
        SERVICES[name]['stop']()
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
