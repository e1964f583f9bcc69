"""Swift (from PyPI): proxy, account, container and object servers.

Swift, as configured here (templates/swift/):

* No auth middleware: every request is allowed; accounts are auto-created.
  Account used by the project: ``AUTH_tripleo``.  One replica, rings built
  in Python, ``workers = 0``, data in <state>/swift/srv (user xattrs).
* Proxy pipeline (the order of Swift 2.38's etc/proxy-server.conf-sample,
  minus container_sync, ratelimit, tempauth and account-quotas; ``cache`` only
  when memcached runs -- without it the proxy simply has no shared cache)::

    catch_errors gatekeeper healthcheck proxy-logging [cache] listing_formats
    bulk tempurl copy container-quotas slo dlo versioned_writes symlink
    subrequest-logging proxy-server

* Request counting.  Swift logs through syslog; here every logger is pointed
  at a UDP port on 127.0.0.1 where ``_syslog-sink`` (this tool, one
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

import getpass
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from . import process
from .common import (HOST, PACKAGE, LoopbackError, env_port, http_get,
                     render, say)
from .service import Service
from .state import pids_dir
from .venv import ensure_venv, venv_dir

ACCOUNT = 'AUTH_tripleo'
PART_POWER = 8
SERVERS = ('account', 'container', 'object', 'proxy')   # start order
PIPELINE = ['catch_errors', 'gatekeeper', 'healthcheck', 'proxy-logging',
            'cache', 'listing_formats', 'bulk', 'tempurl', 'copy',
            'container-quotas', 'slo', 'dlo', 'versioned_writes', 'symlink',
            'subrequest-logging', 'proxy-server']

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


def url(path: str = '') -> str:
    return 'http://%s:%d%s' % (HOST, env_port('LOOPBACK_SWIFT_PORT', 18080),
                               path)


def memcached() -> str | None:
    """memcached's path, when on PATH and not turned off."""
    if os.environ.get('LOOPBACK_MEMCACHED', '1') in ('0', 'no', 'false'):
        return None
    return shutil.which('memcached')


def ports() -> dict[str, int]:
    return {
        'proxy': env_port('LOOPBACK_SWIFT_PORT', 18080),
        'object': env_port('LOOPBACK_SWIFT_OBJECT_PORT', 16010),
        'container': env_port('LOOPBACK_SWIFT_CONTAINER_PORT', 16011),
        'account': env_port('LOOPBACK_SWIFT_ACCOUNT_PORT', 16012),
        'memcached': env_port('LOOPBACK_MEMCACHED_PORT', 16013),
    }


def log_ports() -> dict[str, int]:
    """The sink's syslog UDP ports, one per destination file."""
    first = env_port('LOOPBACK_SWIFT_LOG_PORT', 16014)
    return {name: first + i for i, name in enumerate(
        ('access', 'subrequests', 'proxy', 'object', 'container', 'account'))}


def healthcheck(port: int) -> bool:
    try:
        status, body = http_get('http://%s:%d/healthcheck' % (HOST, port),
                                timeout=1)
    except OSError:
        return False
    return status == 200 and body.strip() == b'OK'


def info_ok() -> bool:
    try:
        status, body = http_get(url('/info'), timeout=2)
        return status == 200 and 'swift' in json.loads(body)
    except (OSError, ValueError):
        return False


class Swift(Service):
    name = 'swift'
    port_variables = 'LOOPBACK_SWIFT_*_PORT'

    @property
    def etc(self) -> Path:
        return self.base / 'etc'

    @property
    def devices(self) -> Path:
        return self.base / 'srv'

    @property
    def access_log(self) -> Path:
        return self.base / 'proxy-access.log'

    def server_log(self, server: str) -> Path:
        return self.base / 'logs' / ('%s-server.log' % server)

    def location(self) -> str:
        return 'at %s' % url()

    def details(self) -> str:
        return ' (account %s, %s)' % (ACCOUNT, 'memcached on %d' % ports()[
            'memcached'] if memcached() else 'no memcached')

    def cloud(self) -> dict:
        return {'object_store_endpoint_override': url('/v1/' + ACCOUNT)}

    def env(self) -> dict[str, str]:
        return {'LOOPBACK_SWIFT_URL': url('/v1/' + ACCOUNT),
                'LOOPBACK_SWIFT_ACCESS_LOG': str(self.access_log)}

    def logs(self) -> dict[str, Path]:
        logs = {'access': self.access_log,
                'subrequests': self.base / 'logs' / 'proxy-subrequests.log',
                'syslog-sink': self.base / 'logs' / 'syslog-sink.log',
                'memcached': self.base / 'logs' / 'memcached.log'}
        logs.update({s: self.server_log(s) for s in SERVERS})
        return logs

    def pidnames(self) -> list[str]:
        names = ['swift-syslog-sink']
        # memcached: when on PATH, or a start left it running
        if memcached() or (pids_dir() /
                           'swift-memcached.pid').exists():
            names.append('swift-memcached')
        return names + ['swift-%s-server' % n for n in SERVERS]

    def ports(self) -> dict[str, int]:
        found = ports()
        if not memcached():
            del found['memcached']
        return found

    def udp_ports(self) -> dict[str, int]:
        return {'log sink %s' % k: v for k, v in log_ports().items()}

    def healthy(self) -> bool:
        return all(healthcheck(ports()[s]) for s in SERVERS) and info_ok()

    def configs(self) -> dict[str, str]:
        lp = log_ports()

        def default(server: str) -> str:
            return render('swift/default.conf', host=HOST,
                          port=ports()[server], user=getpass.getuser(),
                          etc=self.etc, devices=self.devices,
                          log_port=lp[server])
        files = {'etc/swift.conf': render('swift/swift.conf')}
        for server in ('account', 'container', 'object'):
            files['etc/%s-server.conf' % server] = default(server) + render(
                'swift/server.conf', server=server)
        pipeline = [f for f in PIPELINE if f != 'cache' or memcached()]
        files['etc/proxy-server.conf'] = default('proxy') + render(
            'swift/proxy-server.conf', pipeline=' '.join(pipeline),
            host=HOST, access_port=lp['access'],
            subrequest_port=lp['subrequests'],
            memcached_port=ports()['memcached'])
        return files

    def install(self) -> None:
        ensure_venv('swift', 'swift.proxy.server')

    def prepare(self, clean: bool) -> None:
        if clean and self.devices.exists():
            say('swift: wiping %s' % self.devices)
            shutil.rmtree(self.devices, ignore_errors=True)
        for d in (self.etc, self.devices / 'd1', self.base / 'logs'):
            d.mkdir(parents=True, exist_ok=True)
        self.check_xattr(self.devices / 'd1')

    def configure(self, files: dict[str, str]) -> None:
        super().configure(files)
        self.build_rings()

    def launch(self) -> None:
        logs, lp = self.base / 'logs', log_ports()
        ready = self.base / 'syslog-sink.ready'
        ready.unlink(missing_ok=True)
        sink = [sys.executable, str(PACKAGE), '_syslog-sink',
                '--ready', str(ready),
                '--bare', '%d=%s' % (lp['access'], self.access_log),
                '--bare', '%d=%s' % (lp['subrequests'],
                                     self.logs()['subrequests'])]
        for server in SERVERS:
            sink += ['--stamped', '%d=%s' % (lp[server],
                                             self.server_log(server))]
        spawned = {'swift-syslog-sink': logs / 'syslog-sink.log'}
        process.spawn('swift-syslog-sink', sink, spawned['swift-syslog-sink'],
                      self.base)
        if memcached():
            cmd = [memcached(), '-l', HOST, '-p', str(ports()['memcached']),
                   '-U', '0', '-m', '64', '-c', '1024']
            if os.geteuid() == 0:
                cmd += ['-u', 'root']
            spawned['swift-memcached'] = logs / 'memcached.log'
            process.spawn('swift-memcached', cmd, logs / 'memcached.log',
                          self.base)
        process.wait_until('swift', 'the syslog sink did not start',
                           ready.exists, spawned, 10)
        bindir = venv_dir('swift') / 'bin'
        for server in SERVERS:
            name = 'swift-%s-server' % server
            spawned[name] = self.server_log(server)
            process.spawn(name, [str(bindir / name), str(
                self.etc / ('%s-server.conf' % server))],
                spawned[name], self.base)
        for server in SERVERS:
            process.wait_until(
                'swift', 'swift-%s-server gave no healthy answer (GET '
                '/healthcheck)' % server,
                lambda port=ports()[server]: healthcheck(port), spawned, 30,
                log=self.server_log(server))
        process.wait_until('swift', 'GET %s gave no 200' % url('/info'),
                           info_ok, spawned, 30,
                           log=self.server_log('proxy'))

    def build_rings(self) -> None:
        """One device per ring; built again only when the ports change."""
        spec = {'host': HOST, 'part_power': PART_POWER, 'etc': str(self.etc),
                'ports': {k: ports()[k]
                          for k in ('account', 'container', 'object')}}
        stamp = self.etc / 'rings.json'
        rings = [self.etc / (k + '.ring.gz') for k in spec['ports']]
        wanted = json.dumps(spec, sort_keys=True)
        if stamp.exists() and stamp.read_text() == wanted and \
                all(r.exists() for r in rings):
            return
        subprocess.run([str(venv_dir('swift') / 'bin' / 'python'), '-c',
                        RING_SCRIPT, json.dumps(spec)], check=True)
        stamp.write_text(wanted)

    @staticmethod
    def check_xattr(devices: Path) -> None:
        probe = devices / '.xattr-probe'
        probe.touch()
        try:
            os.setxattr(probe, 'user.loopback', b'1')
        except OSError as e:
            raise LoopbackError(
                'Swift needs user xattrs on %s, the filesystem refuses them '
                '(%s); set LOOPBACK_DIR to a directory on another filesystem'
                % (devices, e)) from None
        finally:
            probe.unlink(missing_ok=True)
