"""Swift (from PyPI): proxy, account, container and object servers.

Swift, as configured here (templates/swift/):

* With Keystone: authtoken (keystonemiddleware, as the service user swift,
  delay_auth_decision) and keystoneauth after tempurl; accounts are
  AUTH_<project id>, the client's the admin project's; admin and member
  write, reader reads (templates/swift/keystone.conf); catalog entry
  ``object-store``.  Without (LOOPBACK_KEYSTONE=0): no auth middleware,
  every request is allowed, accounts are auto-created, the project uses
  ``AUTH_tripleo``.  One replica, rings built
  in Python, ``workers = 0``, data in <state>/swift/srv (user xattrs).
* ``LOOPBACK_SWIFT_REPLICAS=3``: three sets of storage servers, their
  consistency daemons and an rsync daemon (see swift_sets.py for their
  names, ports and rings); ``down``/``up`` stop and start one of them for
  failure tests.
* The configuration files: swift_config.py (the proxy pipeline, how
  requests are counted, memcached).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
import shutil
import socket
import sys

from . import identity
from . import keystone
from . import process
from . import swift_config
from . import swift_sets
from .common import check_ports_free
from .common import env_port
from .common import HOST
from .common import http_get
from .common import log_since
from .common import log_size
from .common import LoopbackError
from .common import PACKAGE
from .common import say
from .service import Service
from .state import pids_dir
from .swift_sets import DAEMON_SCRIPT
from .swift_sets import daemon_section
from .swift_sets import daemon_server
from .swift_sets import daemons
from .swift_sets import EXTRA_PIDNAME
from .swift_sets import FIRST_PASS
from .swift_sets import kind
from .swift_sets import log_ports
from .swift_sets import pidname
from .swift_sets import ports
from .swift_sets import replicas
from .swift_sets import rsync
from .swift_sets import server_name
from .swift_sets import servers
from .venv import ensure_venv
from .venv import requirements
from .venv import venv_dir

ACCOUNT = 'AUTH_tripleo'


def url(path: str = '') -> str:
    return 'http://%s:%d%s' % (HOST, env_port('LOOPBACK_SWIFT_PORT', 18080),
                               path)


def memcached() -> str | None:
    """memcached's path, when on PATH and not turned off."""
    if os.environ.get('LOOPBACK_MEMCACHED', '1') in ('0', 'no', 'false'):
        return None
    return shutil.which('memcached')


def healthcheck(port: int) -> bool:
    try:
        status, body = http_get('http://%s:%d/healthcheck' % (HOST, port),
                                timeout=1)
    except OSError:
        return False
    return status == 200 and body.strip() == b'OK'


def rsyncd_ok(port: int) -> bool:
    """The rsync daemon lists its modules (account, container)."""
    try:
        with socket.create_connection((HOST, port), timeout=2) as sock:
            f = sock.makefile('rwb')
            if not f.readline().startswith(b'@RSYNCD: '):
                return False
            f.write(b'@RSYNCD: 30.0\n\n')        # an empty module: list
            f.flush()
            return b'container' in f.read()
    except OSError:
        return False


def info_ok() -> bool:
    try:
        status, body = http_get(url('/info'), timeout=2)
        return status == 200 and 'swift' in json.loads(body)
    except (OSError, ValueError):
        return False


def account() -> str:
    """The account the client uses: the admin project's with Keystone."""
    if keystone.enabled():
        return 'AUTH_' + keystone.admin_project_id()
    return ACCOUNT


class Swift(Service):
    name = 'swift'
    port_variables = 'LOOPBACK_SWIFT_*_PORT'

    @property
    def requires(self) -> tuple[str, ...]:
        return ('keystone',) if keystone.enabled() else ()

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
        return self.base / 'logs' / ('%s.log' % server_name(server))

    def server_conf(self, server: str) -> Path:
        return self.etc / ('%s.conf' % server_name(server))

    def daemon_log(self, daemon: str) -> Path:
        return self.base / 'logs' / ('%s.log' % daemon)

    def node(self, n: int) -> Path:
        """With 3 replicas, the devices directory of set n: only its own
        device, d<n> (a link to srv/d<n>), as on a node of a real cluster
        (the object updater sweeps every device of its directory)."""
        return self.base / 'nodes' / str(n)

    def location(self) -> str:
        return 'at %s' % url()

    def details(self) -> str:
        return ' (account %s, %s%s)' % (
            account(), '%d replicas with replicators and updaters, %s, ' % (
                replicas(), 'rsync on %d' % ports()['rsync'] if rsync()
                else 'no rsync') if replicas() > 1 else '',
            'memcached on %d' % ports()['memcached'] if memcached()
            else 'no memcached')

    def cloud(self) -> dict:
        if keystone.enabled():
            return {}           # the catalog
        return {'object_store_endpoint_override': url('/v1/' + ACCOUNT)}

    def env(self) -> dict[str, str]:
        return {'LOOPBACK_SWIFT_URL': url('/v1/' + account()),
                'LOOPBACK_SWIFT_ACCESS_LOG': str(self.access_log)}

    def logs(self) -> dict[str, Path]:
        logs = {'access': self.access_log,
                'subrequests': self.base / 'logs' / 'proxy-subrequests.log',
                'syslog-sink': self.base / 'logs' / 'syslog-sink.log',
                'memcached': self.base / 'logs' / 'memcached.log'}
        logs.update({s: self.server_log(s) for s in servers()})
        logs.update({d: self.daemon_log(d) for d in daemons()})
        if replicas() > 1:
            logs['rsyncd'] = self.base / 'logs' / 'rsyncd.log'
        return logs

    def pidnames(self) -> list[str]:
        names = ['swift-syslog-sink']
        # memcached: when on PATH, or a start left it running
        if memcached() or (pids_dir() /
                           'swift-memcached.pid').exists():
            names.append('swift-memcached')
        return names + self.wanted() + self.leftovers()

    def wanted(self) -> list[str]:
        """The rsync daemon, the servers, the daemons, in start order."""
        return ['swift-rsyncd'] * bool(rsync()) + [
            pidname(s) for s in servers()] + [
            'swift-' + d for d in daemons()]

    def leftovers(self) -> list[str]:
        """Pid files of other sets' servers, daemons or the rsync daemon
        that LOOPBACK_SWIFT_REPLICAS no longer asks for (a start with 3,
        then 1): stopped with the rest, and ``start`` restarts Swift while
        they are there."""
        wanted = set(self.wanted())
        found = [p.stem for p in sorted(pids_dir().glob('swift-*.pid'))]
        # in start order (rsync daemon, servers, daemons): stopped reversed
        return sorted((n for n in found
                       if EXTRA_PIDNAME.match(n) and n not in wanted),
                      key=lambda n: ('rsyncd' not in n, '-server' not in n))

    def running(self) -> bool:
        return super().running() and not self.leftovers()

    def members(self) -> list[str]:
        return [pidname(s) for s in servers()] + [
            'swift-' + d for d in daemons()]

    def ports(self) -> dict[str, int]:
        found = ports()
        if not memcached():
            del found['memcached']
        if not rsync():
            found.pop('rsync', None)
        return found

    def udp_ports(self) -> dict[str, int]:
        return {'log sink %s' % k: v for k, v in log_ports().items()}

    def healthy(self) -> bool:
        return all(healthcheck(ports()[s]) for s in servers()) and info_ok()

    def configs(self) -> dict[str, str]:
        return swift_config.files(self, cache=bool(memcached()))

    def run_stamp(self, files: dict[str, str]) -> str:
        # with or without Keystone, replicas, ports: all in the files
        return hashlib.sha256(json.dumps(
            [requirements('swift'), files]).encode()).hexdigest()

    def install(self) -> None:
        ensure_venv('swift', 'swift.proxy.server')

    def start(self, clean: bool = False) -> None:
        if not clean:
            swift_sets.check_part_power(self.etc, self.devices)
        super().start(clean)

    def prepare(self, clean: bool) -> None:
        if clean and self.devices.exists():
            say('swift: wiping %s' % self.devices)
            shutil.rmtree(self.devices, ignore_errors=True)
        disks = [self.devices / ('d%d' % n)
                 for n in range(1, replicas() + 1)]
        for d in [self.etc, self.base / 'logs'] + disks:
            d.mkdir(parents=True, exist_ok=True)
        for d in disks:
            self.check_xattr(d)
        if keystone.enabled():
            identity.service_user('swift')
            identity.register('object-store', 'swift',
                              url('/v1/AUTH_$(project_id)s'))
        if replicas() > 1:
            for n in range(1, replicas() + 1):
                link = self.node(n) / ('d%d' % n)
                target = Path('..', '..', 'srv', 'd%d' % n)
                if not link.is_symlink() or link.readlink() != target:
                    link.parent.mkdir(parents=True, exist_ok=True)
                    link.unlink(missing_ok=True)
                    link.symlink_to(target)
                (self.base / 'recon' / str(n)).mkdir(parents=True,
                                                     exist_ok=True)

    def configure(self, files: dict[str, str]) -> None:
        super().configure(files)
        swift_sets.build_rings(self.etc)

    def launch(self) -> None:
        logs, lp = self.base / 'logs', log_ports()
        ready = self.base / 'syslog-sink.ready'
        ready.unlink(missing_ok=True)
        sink = [sys.executable, str(PACKAGE), '_syslog-sink',
                '--ready', str(ready),
                '--bare', '%d=%s' % (lp['access'], self.access_log),
                '--bare', '%d=%s' % (lp['subrequests'],
                                     self.logs()['subrequests'])]
        for server in servers():
            sink += ['--stamped', '%d=%s' % (lp[server],
                                             self.server_log(server))]
        for daemon in daemons():    # same port as its server, own file
            sink += ['--stamped', '%d/%s=%s' % (
                lp[daemon_server(daemon)], daemon_section(daemon),
                self.daemon_log(daemon))]
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
        if rsync():
            spawned['swift-rsyncd'] = logs / 'rsyncd.log'
            process.spawn('swift-rsyncd', [
                rsync(), '--daemon', '--no-detach',
                '--config=%s' % (self.etc / 'rsyncd.conf')],
                spawned['swift-rsyncd'], self.base)
        process.wait_until('swift', 'the syslog sink did not start',
                           ready.exists, spawned, 10)
        for server in servers():
            spawned[pidname(server)] = self.spawn_server(server)
        for server in servers():
            self.wait_server(server, spawned)
        process.wait_until('swift', 'GET %s gave no 200' % url('/info'),
                           info_ok, spawned, 30,
                           log=self.server_log('proxy'))
        if rsync():
            process.wait_until(
                'swift', 'the rsync daemon listed no modules on port %d' %
                ports()['rsync'], lambda: rsyncd_ok(ports()['rsync']),
                spawned, 10)
        started = {d: self.spawn_daemon(d) for d in daemons()}
        for daemon, since in started.items():
            self.wait_daemon(daemon, since, spawned)

    def spawn_daemon(self, daemon: str) -> int:
        """Start one daemon (no wait); where its log ended before."""
        log = self.daemon_log(daemon)
        since = log_size(log)
        process.spawn('swift-' + daemon, [
            str(venv_dir('swift') / 'bin' / 'python'), '-c', DAEMON_SCRIPT,
            str(self.etc), 'swift-' + daemon_section(daemon),
            str(self.server_conf(daemon_server(daemon)))], log, self.base)
        return since

    def wait_daemon(self, daemon: str, since: int,
                    spawned: dict[str, Path]) -> None:
        """Until it logged the end of its first pass (see FIRST_PASS)
        through the syslog sink: it runs, and logs where it should."""
        name = 'swift-' + daemon
        spawned[name] = log = self.daemon_log(daemon)
        pid = (process.read_pidfile(pids_dir() / (name + '.pid')) or
               {}).get('pid', 0)
        done = '%s: %s' % (daemon_section(daemon), FIRST_PASS[
            daemon_section(daemon)] % {'pid': pid})
        process.wait_until(
            'swift', '%s did not log %r' % (name, done),
            lambda: done in log_since(log, since), spawned, 30, log=log)

    def spawn_server(self, server: str) -> Path:
        """Start one server (no wait); its log."""
        binary = venv_dir('swift') / 'bin' / ('swift-%s-server' % kind(
            server))
        log = self.server_log(server)
        process.spawn(pidname(server), [str(binary), str(
            self.server_conf(server))], log, self.base)
        return log

    def wait_server(self, server: str, spawned: dict[str, Path]) -> None:
        process.wait_until(
            'swift', '%s gave no healthy answer (GET /healthcheck)' %
            pidname(server), lambda port=ports()[server]: healthcheck(port),
            spawned, 30, log=self.server_log(server))

    def up(self, name: str) -> None:
        """Start one server or daemon of the running sets again (after
        ``down``)."""
        daemon = next((d for d in daemons() if 'swift-' + d == name), None)
        server = daemon_server(daemon) if daemon else next(
            s for s in servers() if pidname(s) == name)
        pid = process.pidname_alive(name)
        if pid:
            say('%s: already running, pid %d' % (name, pid))
            return
        if not self.server_conf(server).exists() or \
                not process.pidname_alive('swift-syslog-sink'):
            raise LoopbackError('%s: swift is not running here (%s); start '
                                'it first: python3 tools/loopback start swift'
                                % (name, self.base))
        if daemon:
            try:
                self.wait_daemon(daemon, self.spawn_daemon(daemon), {})
            except LoopbackError as e:
                process.stop_pidnames([name], quiet=True)
                raise process.with_log_tail(e) from None
            say('%s: running, pid %d' % (name, process.pidname_alive(name)))
            return
        check_ports_free(self.name, {server: ports()[server]},
                         self.port_variables)
        try:
            self.wait_server(server, {name: self.spawn_server(server)})
        except LoopbackError as e:
            process.stop_pidnames([name], quiet=True)
            raise process.with_log_tail(e) from None
        say('%s: running, pid %d, on port %d' % (
            name, process.pidname_alive(name), ports()[server]))

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
