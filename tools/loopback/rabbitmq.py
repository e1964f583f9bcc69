"""RabbitMQ: Debian's rabbitmq-server package, run as a private node.

Not the system broker: the package's scripts run as a node of our own
(RABBITMQ_* variables; the Debian wrapper in /usr/sbin, which switches to
the rabbitmq user and to /var/lib/rabbitmq, is not used), with its own
epmd on a port of ours (ERL_EPMD_PORT), HOME (the Erlang cookie), config,
Mnesia data and no plugins, all under <state>/rabbitmq.  Processes:

  rabbitmq-epmd    epmd -address 127.0.0.1 -port P, in the foreground
                   (epmd adds the loopback addresses itself: it also
                   listens on [::1]:P, nothing else)
  rabbitmq-server  the package's rabbitmq-server script in its foreground
                   mode: a shell that turns SIGTERM into a clean stop of
                   the Erlang VM it started
  rabbitmq-beam    that VM (beam.smp), recorded too so that it can be
                   killed should the shell die first

The VM listens on AMQP 127.0.0.1:16672 and on the distribution port
127.0.0.1:16673 (inet_dist_use_interface), nowhere else.  The Erlang
cookie (<state>/rabbitmq/.erlang.cookie) is the VM's own random one.

The clients' user is ``loopback`` with a random password (credentials.py),
not guest/guest, which anything on 127.0.0.1 could use: a new node makes
it instead of guest (rabbitmq.conf's default_user); a node of an older
state directory gets it, and loses guest once no client uses guest any
more, from ``rabbitmqctl`` at start (ensure_user()).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
import shutil
import socket
import struct
import subprocess

from . import credentials
from . import process
from .common import env_port
from .common import HOST
from .common import LoopbackError
from .common import not_installed
from .common import render
from .common import say
from .common import tcp_accepts
from .service import Service
from .state import pids_dir

NODE = 'loopback@localhost'
USER = 'loopback'
# the user of state directories made before (and a new node's default)
OLD_USER = 'guest'


def password() -> str:
    return credentials.secret('rabbitmq-' + USER)


def ports() -> dict[str, int]:
    return {'amqp': env_port('LOOPBACK_RABBITMQ_PORT', 16672),
            'distribution': env_port('LOOPBACK_RABBITMQ_DIST_PORT', 16673),
            'epmd': env_port('LOOPBACK_EPMD_PORT', 16369)}


def transport_url(with_password: bool = True) -> str:
    """oslo.messaging's transport_url of this broker (without the
    password: what start, status and env show)."""
    secret = ':' + password() if with_password else ''
    return 'rabbit://%s%s@%s:%d/' % (USER, secret, HOST, ports()['amqp'])


def amqp_ready(port: int) -> bool:
    """The broker answers an AMQP 0-9-1 protocol header with a method
    frame (connection.start): it is up and accepting clients."""
    try:
        with socket.create_connection((HOST, port), timeout=2) as sock:
            sock.sendall(b'AMQP\x00\x00\x09\x01')
            return sock.recv(1) == b'\x01'
    except OSError:
        return False


def amqp_login(port: int, user: str, secret: str) -> bool:
    """The broker accepts this user and password (AMQP 0-9-1, PLAIN):
    it answers connection.start-ok with connection.tune, not with a
    close (or by closing the socket)."""
    def frame(sock: socket.socket) -> bytes:
        data = b''
        while len(data) < 7 or len(data) < 8 + struct.unpack(
                '>I', data[3:7])[0]:
            chunk = sock.recv(4096)
            if not chunk:
                return b''
            data += chunk
        return data[7:7 + struct.unpack('>I', data[3:7])[0]]

    def short(text: str) -> bytes:
        return bytes([len(text)]) + text.encode()
    response = ('\0%s\0%s' % (user, secret)).encode()
    start_ok = (struct.pack('>HHI', 10, 11, 0) + short('PLAIN') +
                struct.pack('>I', len(response)) + response + short('en_US'))
    try:
        with socket.create_connection((HOST, port), timeout=10) as sock:
            sock.sendall(b'AMQP\x00\x00\x09\x01')
            if frame(sock)[:4] != struct.pack('>HH', 10, 10):
                return False            # no connection.start
            sock.sendall(struct.pack('>BHI', 1, 0, len(start_ok)) +
                         start_ok + b'\xce')
            return frame(sock)[:4] == struct.pack('>HH', 10, 30)
    except OSError:
        return False


class RabbitMQ(Service):
    name = 'rabbitmq'
    port_variables = ('LOOPBACK_RABBITMQ_PORT, LOOPBACK_RABBITMQ_DIST_PORT, '
                      'LOOPBACK_EPMD_PORT')
    unhealthy = 'not answering AMQP'

    @property
    def server(self) -> Path:
        return Path(os.environ.get('LOOPBACK_RABBITMQ_SERVER') or
                    '/usr/lib/rabbitmq/bin/rabbitmq-server')

    @property
    def beam_pidfile(self) -> Path:
        """Where the VM writes its PID (RABBITMQ_PID_FILE)."""
        return self.base / 'beam.pid'

    def location(self) -> str:
        return 'at %s' % transport_url(with_password=False)

    def details(self) -> str:
        return ' (node %s)' % NODE

    def env(self) -> dict[str, str]:
        return {'LOOPBACK_RABBITMQ_URL': transport_url(with_password=False)}

    def logs(self) -> dict[str, Path]:
        return {'server': self.base / 'rabbitmq-server.log',
                'epmd': self.base / 'epmd.log'}

    def pidnames(self) -> list[str]:
        names = ['rabbitmq-epmd', 'rabbitmq-server']
        if (pids_dir() / 'rabbitmq-beam.pid').exists():
            names.append('rabbitmq-beam')
        return names

    def running(self) -> bool:
        # the VM's own record is a fallback for stop, not a requirement
        return all(process.pidname_alive(n)
                   for n in ('rabbitmq-epmd', 'rabbitmq-server'))

    def ports(self) -> dict[str, int]:
        return ports()

    def healthy(self) -> bool:
        return amqp_ready(ports()['amqp'])

    def configs(self) -> dict[str, str]:
        return {
            'rabbitmq-env.conf': render('rabbitmq/rabbitmq-env.conf'),
            'enabled_plugins': render('rabbitmq/enabled_plugins'),
            'rabbitmq.conf': render('rabbitmq/rabbitmq.conf', host=HOST,
                                    port=ports()['amqp'], user=USER,
                                    password=password()),
        }

    def install(self) -> None:
        if not self.server.exists():
            raise not_installed('rabbitmq', str(self.server))
        if not shutil.which('epmd'):
            raise not_installed('rabbitmq', 'epmd (Erlang)')

    def prepare(self, clean: bool) -> None:
        if clean:
            say('rabbitmq: wiping %s' % (self.base / 'mnesia'))
            shutil.rmtree(self.base / 'mnesia', ignore_errors=True)
        self.beam_pidfile.unlink(missing_ok=True)
        if not (self.base / 'mnesia' / NODE).exists():
            # a new node: default_user is ours, there is no guest
            self.users_stamp.write_text(self.users_wanted())

    @property
    def users_stamp(self) -> Path:
        """What ensure_user() last made sure of."""
        return self.base / 'users.stamp'

    def users_wanted(self) -> str:
        return hashlib.sha256(('%s:%s' % (USER, password())).encode()
                              ).hexdigest() + '\n'

    def start(self, clean: bool = False) -> None:
        super().start(clean)
        self.ensure_user()

    def settle(self) -> None:
        self.ensure_user()

    def ensure_user(self) -> None:
        """Our user with password(), and no guest (a node of an older
        state directory): once, by rabbitmqctl.  guest goes only when no
        client uses it: a service still running with the old transport_url
        keeps working until it restarts."""
        wanted = self.users_wanted()
        if self.users_stamp.exists() and \
                self.users_stamp.read_text() == wanted:
            return
        users = [line.split('\t')[0]
                 for line in self.ctl('list_users').splitlines()]
        self.ctl('change_password' if USER in users else 'add_user', USER,
                 input=password() + '\n')
        self.ctl('set_permissions', '-p', '/', USER, '.*', '.*', '.*')
        if OLD_USER in users:
            used = [line for line in self.ctl(
                'list_connections', 'user').splitlines()
                if line.strip() == OLD_USER]
            if used:
                say('rabbitmq: user %s kept while %d connection(s) use it'
                    % (OLD_USER, len(used)))
                return
            self.ctl('delete_user', OLD_USER)
            say('rabbitmq: user %s deleted, clients use %s' % (
                OLD_USER, USER))
        self.users_stamp.write_text(wanted)

    def ctl(self, *args: str, input: str | None = None) -> str:
        """rabbitmqctl on our node (secrets on stdin); its output."""
        cmd = [str(self.server.with_name('rabbitmqctl')), '--silent'] + \
            list(args)
        result = subprocess.run(cmd, env=self.environ(), cwd=self.base,
                                input=input, capture_output=True, text=True)
        if result.returncode != 0:
            raise LoopbackError('rabbitmq: rabbitmqctl %s failed: %s' % (
                args[0], (result.stderr or result.stdout).strip()))
        return result.stdout

    def environ(self) -> dict[str, str]:
        base, p = self.base, ports()
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(('RABBITMQ_', 'ERL_'))}
        env.update({
            'HOME': str(base),                 # .erlang.cookie lives here
            'ERL_EPMD_ADDRESS': HOST,
            'ERL_EPMD_PORT': str(p['epmd']),
            'RABBITMQ_NODENAME': NODE,
            'RABBITMQ_NODE_IP_ADDRESS': HOST,
            'RABBITMQ_NODE_PORT': str(p['amqp']),
            'RABBITMQ_DIST_PORT': str(p['distribution']),
            # our (empty) file instead of /etc/rabbitmq/rabbitmq-env.conf
            'RABBITMQ_CONF_ENV_FILE': str(base / 'rabbitmq-env.conf'),
            'RABBITMQ_CONFIG_FILE': str(base / 'rabbitmq.conf'),
            'RABBITMQ_ADVANCED_CONFIG_FILE': str(base / 'advanced.config'),
            'RABBITMQ_ENABLED_PLUGINS_FILE': str(base / 'enabled_plugins'),
            'RABBITMQ_MNESIA_BASE': str(base / 'mnesia'),
            'RABBITMQ_LOG_BASE': str(base / 'logs'),
            'RABBITMQ_LOGS': '-',              # stdout, i.e. our log file
            'RABBITMQ_PID_FILE': str(self.beam_pidfile),
            'RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS':
                '-kernel inet_dist_use_interface {%s}' % HOST.replace(
                    '.', ','),
        })
        return env

    def launch(self) -> None:
        env, logs, p = self.environ(), self.logs(), ports()
        process.spawn('rabbitmq-epmd', [shutil.which('epmd'), '-address',
                                        HOST, '-port', str(p['epmd'])],
                      logs['epmd'], self.base, env=env)
        process.wait_until('rabbitmq', 'epmd did not listen',
                           lambda: tcp_accepts(p['epmd']),
                           {'rabbitmq-epmd': logs['epmd']}, 10)
        shell = process.spawn('rabbitmq-server', [str(self.server)],
                              logs['server'], self.base, env=env,
                              stop_timeout=30.0)

        def ready() -> bool:
            if not (pids_dir() / 'rabbitmq-beam.pid').exists():
                self.record_beam(shell)
            return amqp_ready(p['amqp'])
        process.wait_until(
            'rabbitmq', 'AMQP did not answer on %s:%d' % (HOST, p['amqp']),
            ready, {'rabbitmq-epmd': logs['epmd'],
                    'rabbitmq-server': logs['server']}, 120)

    def record_beam(self, shell_pid: int) -> None:
        """Record the VM that the rabbitmq-server shell started."""
        try:
            pid = int(self.beam_pidfile.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return
        stat = process.proc_stat(pid)
        if stat is None or stat[1] != str(shell_pid):
            return                      # not our shell's child: leave it
        process.record_pid('rabbitmq-beam', pid, process.proc_starttime(pid),
                           ['beam.smp', NODE], self.logs()['server'],
                           stop_timeout=20.0)

    def stop(self, quiet: bool = False) -> None:
        # the shell stops the VM cleanly; the VM's own record only if left
        process.stop_pidnames(['rabbitmq-server'], quiet)
        process.stop_pidnames(['rabbitmq-beam'], quiet=True)
        process.stop_pidnames(['rabbitmq-epmd'], quiet)
