"""sshd: Debian's OpenSSH server, the "deployed servers" of the validations
and of config-download.

A validation or a config-download run that works on the plan's servers
logs in to them over SSH (``[tripleoplan] validation_ssh_*`` of Mistral's
configuration); here the servers are this host: 127.0.0.1:16022
(LOOPBACK_SSHD_PORT), the validations' server, and 127.0.0.2 ..
127.0.0.(1+N) on the same port (N: LOOPBACK_SSHD_SERVERS, default 4),
each address a server of its own: the same user and key, but its own
home and /tmp, kept under <state>/sshd/servers/<address>/ across sessions
and restarts (what a play writes on 127.0.0.3 is not seen on 127.0.0.2,
and a later login finds it).  One process, inetd.py listening on every
address, runs ``sshd -i -e`` for each connection, told the address it
came to, with its own configuration, host key and authorized key under
<state>/sshd/server (not /etc/ssh; the system's ssh service stays
untouched):

* public keys only, and only the user ``tripleo-admin`` (AllowUsers; root
  is refused): an unprivileged system user that ``start`` creates when
  missing (``useradd``, home /var/lib/tripleoplan-loopback/tripleo-admin,
  no password, no group of privilege, no sudo) and refuses to use when it
  is uid 0 or in such a group.  Validations are untrusted playbooks.
* the key pair it accepts: <state>/sshd/client/id_ed25519 (0600, in a
  0700 directory); Mistral's configuration names it when sshd is started
  (mistral.py: start Mistral after sshd).
* the listener runs in a mount namespace of its own (``unshare
  --mount``) where the loopback's state directory is an empty tmpfs but
  for <state>/sshd/server (read-only) and <state>/sshd/servers, and /tmp
  is a tmpfs of its own; each session in one more (``SESSION``): on
  127.0.0.1 the listener's /tmp and the user's home, on another address
  that server's home and /tmp bound in their place; in every session
  <state>/sshd/servers is an empty tmpfs too.  A validation logged in
  sees none of the services' configuration, keys or data, nor the
  undercloud's scratch files, nor another server's files;
* each session has a network namespace of its own (``unshare --net``,
  nothing but a loopback interface that is down): from the "server" a
  validation reaches none of the undercloud's services, which the egress
  proxy of its sandbox keeps it from too.

Log: <state>/sshd/sshd.log (every login and refusal: LogLevel VERBOSE).
"""

from __future__ import annotations

import grp
import hashlib
import os
from pathlib import Path
import pwd
import shutil
import socket
import subprocess
import sys

from . import process
from .common import env_port
from .common import HOST
from .common import LoopbackError
from .common import not_installed
from .common import PACKAGE
from .common import render
from .common import say
from .common import write_if_changed
from .service import Service
from .state import started
from .state import state_dir

USER = 'tripleo-admin'
HOME = Path('/var/lib/tripleoplan-loopback') / USER
SSHD = '/usr/sbin/sshd'
# groups that give a member more than its own files
PRIVILEGED = ('root', 'sudo', 'wheel', 'admin', 'adm', 'shadow', 'disk',
              'docker', 'lxd', 'staff')
# sshd's privilege separation directory (Debian's package makes it at boot)
PRIVSEP = Path('/run/sshd')
# run by ``unshare --mount``: the state directory hidden but for the
# server's files (set aside first: the state may lie under /tmp), a /tmp
# of its own; then sshd itself (same PID)
HIDE = r'''set -e
state=$1 server=$2 servers=$3
stage=$(mktemp -d /run/loopback-sshd.XXXXXX)
mount --bind "$server" "$stage"
homes=$(mktemp -d /run/loopback-sshd.XXXXXX)
mkdir -p "$servers"
mount --bind "$servers" "$homes"
mount -t tmpfs -o mode=0755 loopback-sshd-hidden "$state"
mount -t tmpfs -o mode=1777 loopback-sshd-tmp /tmp
mkdir -p "$server" "$servers"
mount --move "$stage" "$server"
mount -o remount,bind,ro "$server"
mount --move "$homes" "$servers"
rmdir "$stage" "$homes"
shift 3
exec "$@"
'''
# run by ``unshare --mount --net`` for each session, as inetd.py says on
# which address it came: another address than HOST gets that server's
# home and /tmp; every server's files are then out of sight
SESSION = r'''set -e
address=$1 servers=$2 home=$3 server=$4
shift 4
own="$servers/$address"
stage= keep=
if [ "$address" != "%s" ]; then
    [ -d "$own/home" ] && [ -d "$own/tmp" ] || exit 1
    mount --bind "$own/home" "$home"
    stage=$(mktemp -d /run/loopback-session.XXXXXX)
    mount --bind "$own/tmp" "$stage"
    case "$server" in /tmp/*)
        # sshd's own files lie under the /tmp the server's replaces
        keep=$(mktemp -d /run/loopback-session.XXXXXX)
        mount --bind "$server" "$keep";;
    esac
fi
mount -t tmpfs -o mode=0755,size=64k loopback-sshd-servers "$servers"
if [ -n "$stage" ]; then
    mount --move "$stage" /tmp
    rmdir "$stage"
fi
if [ -n "$keep" ]; then
    mkdir -p "$server"
    mount --move "$keep" "$server"
    mount -o remount,bind,ro "$server"
    rmdir "$keep"
fi
exec "$@"
''' % HOST


def port() -> int:
    return env_port('LOOPBACK_SSHD_PORT', 16022)


def servers() -> list[str]:
    """The addresses of the servers beside HOST (config-download's)."""
    count = env_port('LOOPBACK_SSHD_SERVERS', 4)
    if not 0 <= count <= 200:
        raise LoopbackError('sshd: LOOPBACK_SSHD_SERVERS is %d: 0 to 200'
                            % count)
    return ['127.0.0.%d' % n for n in range(2, 2 + count)]


def addresses() -> list[str]:
    """Every address sshd listens on: HOST first."""
    return [HOST] + servers()


def base() -> Path:
    return state_dir() / 'sshd'


def servers_dir() -> Path:
    """<address>/home and <address>/tmp of each server but HOST."""
    return base() / 'servers'


def client_key() -> Path:
    """The private key Mistral's validations log in with."""
    return base() / 'client' / 'id_ed25519'


def validation_settings(project: str = '*') -> str:
    """The ``[tripleoplan]`` lines of mistral.conf that send the
    validations to this server: none unless sshd was started here (and
    not stopped since). Only the plans of ``project`` may reach it (the
    admin project's with Keystone, ``*`` any): another project's stack
    naming 127.0.0.1 reaches nothing (tests/functional/
    validations/test_ssh)."""
    if 'sshd' not in started():
        return ''
    return ('# the validations\' deployed server: the sshd service\n'
            'validation_ssh_user = %s\nvalidation_ssh_key = %s\n'
            'validation_ssh_port = %d\nvalidation_servers = %s:*=%s\n'
            % (USER, client_key(), port(), project, ','.join(addresses())))


def python_outside_tmp(executable: str | None = None) -> str:
    """A Python for inetd.py (standard library only) that the listener's
    namespace does not cover with its own /tmp: this one's real file, or
    the system's."""
    for candidate in (os.path.realpath(executable or sys.executable),
                      shutil.which('python3', path='/usr/bin:/bin')):
        if candidate and not (candidate + '/').startswith('/tmp/'):
            return candidate
    raise LoopbackError('sshd: no Python outside /tmp to run inetd.py '
                        '(its namespace has a /tmp of its own): install '
                        'python3 in /usr/bin')


def hidden(argv: list[str], state: Path, server: Path,
           homes: Path | None = None) -> list[str]:
    """argv run in a mount namespace where ``state`` is empty but for
    ``server`` (read-only) and ``homes`` (the servers', default
    ``servers_dir``), and /tmp is its own (root only)."""
    return [shutil.which('unshare') or 'unshare', '--mount', '--propagation',
            'private', '--', '/bin/sh', '-c', HIDE, 'sshd', str(state),
            str(server), str(homes or servers_dir())] + list(argv)


def session(argv: list[str], homes: Path, server: Path) -> list[str]:
    """argv run for one connection (inetd.py's ``{address}`` the address
    it came to) in mount and network namespaces of its own (``SESSION``);
    ``server``: sshd's own files, kept in sight."""
    return [shutil.which('unshare') or 'unshare', '--mount', '--net',
            '--propagation', 'private', '--', '/bin/sh', '-c', SESSION,
            'session', '{address}', str(homes), str(HOME),
            str(server)] + list(argv)


def banner(port: int, host: str = HOST) -> bool:
    """The server greets with its SSH version line."""
    try:
        with socket.create_connection((host, port), timeout=2) as sock:
            return sock.recv(8).startswith(b'SSH-2.0-')
    except OSError:
        return False


def _keygen(path: Path, comment: str) -> None:
    path.unlink(missing_ok=True)
    path.with_name(path.name + '.pub').unlink(missing_ok=True)
    subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C',
                    comment, '-f', str(path)], check=True,
                   stdin=subprocess.DEVNULL)


def ensure_user() -> None:
    """USER exists, unprivileged, able to log in by key only."""
    try:
        found = pwd.getpwnam(USER)
    except KeyError:
        if os.geteuid() != 0:
            raise LoopbackError('sshd: the user %s does not exist and only '
                                'root can create it: run start as root'
                                % USER)
        HOME.parent.mkdir(parents=True, exist_ok=True)
        # '*': no password, yet not "locked" ('!'), which sshd refuses
        # even for a key when it runs without PAM
        subprocess.run(['useradd', '--system', '--user-group',
                        '--create-home', '--home-dir', str(HOME),
                        '--shell', '/bin/sh', '--password', '*',
                        '--comment', 'tripleoplan loopback validations',
                        USER], check=True, stdin=subprocess.DEVNULL)
        say('sshd: created the user %s (home %s)' % (USER, HOME))
        found = pwd.getpwnam(USER)
    groups = {g.gr_name for g in grp.getgrall() if USER in g.gr_mem}
    groups.add(grp.getgrgid(found.pw_gid).gr_name)
    bad = sorted(groups & set(PRIVILEGED))
    if found.pw_uid == 0 or found.pw_gid == 0 or bad:
        raise LoopbackError(
            'sshd: the user %s is privileged (uid %d, groups %s): '
            'validations are untrusted playbooks; remove it (userdel %s) '
            'and start again' % (USER, found.pw_uid, ', '.join(
                sorted(groups)), USER))


class Sshd(Service):
    name = 'sshd'
    port_variables = 'LOOPBACK_SSHD_PORT'
    unhealthy = 'not greeting SSH clients'
    conf_file = 'server/sshd_config'

    @property
    def server_dir(self) -> Path:
        return self.base / 'server'

    def location(self) -> str:
        return 'on %s:%d' % (','.join(addresses()), port())

    def details(self) -> str:
        return ' (user %s, key %s)' % (USER, client_key())

    def env(self) -> dict[str, str]:
        return {'LOOPBACK_SSHD_PORT': str(port()),
                'LOOPBACK_SSHD_USER': USER,
                'LOOPBACK_SSHD_KEY': str(client_key()),
                'LOOPBACK_SSHD_ADDRESSES': ','.join(servers()),
                'LOOPBACK_SSHD_LOG': str(self.logs()['server'])}

    def logs(self) -> dict[str, Path]:
        return {'server': self.base / 'sshd.log'}

    def pidnames(self) -> list[str]:
        return ['sshd']

    def ports(self) -> dict[str, int]:
        return {'ssh': port()}

    def healthy(self) -> bool:
        return all(banner(port(), host) for host in addresses())

    def configs(self) -> dict[str, str]:
        server = self.server_dir
        return {self.conf_file: render(
            'sshd/sshd_config', host=HOST, port=port(), user=USER,
            host_key=server / 'ssh_host_ed25519_key',
            authorized_keys=server / 'authorized_keys')}

    def command(self) -> list[str]:
        # inetd.py from the server's directory and a Python outside /tmp:
        # the checkout or a venv may lie under /tmp, which the namespace
        # covers
        return hidden([python_outside_tmp(),
                       str(self.server_dir / 'inetd.py'),
                       ','.join(addresses()), str(port()), '--'] +
                      session([SSHD, '-i', '-e', '-f', str(self.conf)],
                              servers_dir(), self.server_dir),
                      state_dir(), self.server_dir)

    def run_stamp(self, files: dict[str, str]) -> str:
        return hashlib.sha256('\0'.join(
            [files[self.conf_file]] + self.command()).encode()).hexdigest()

    def install(self) -> None:
        for program in (SSHD, 'ssh-keygen', 'unshare', 'useradd'):
            if not shutil.which(program):
                raise not_installed('sshd', program)

    def prepare(self, clean: bool) -> None:
        if os.geteuid() != 0:
            raise LoopbackError('sshd: runs as root only (it logs users in '
                                'and mounts in a namespace of its own)')
        ensure_user()
        PRIVSEP.mkdir(mode=0o755, exist_ok=True)
        client, server = client_key(), self.server_dir
        for where, mode in ((server, 0o755), (client.parent, 0o700)):
            where.mkdir(parents=True, exist_ok=True)
            os.chmod(where, mode)
        host_key = server / 'ssh_host_ed25519_key'
        if clean or not host_key.exists():
            _keygen(host_key, 'loopback sshd host key')
        if clean or not client.exists():
            _keygen(client, 'loopback validations')
        self.prepare_servers()
        write_if_changed(server / 'inetd.py',
                         (PACKAGE / 'inetd.py').read_text())
        # restrict: no forwarding of any kind; pty: Ansible asks for one
        write_if_changed(server / 'authorized_keys', 'restrict,pty ' +
                         client.with_name(client.name + '.pub').read_text())

    def prepare_servers(self) -> None:
        """Each server's home (the user's, 0700) and /tmp (1777), kept
        from one start to the next."""
        found = pwd.getpwnam(USER)
        homes = servers_dir()
        homes.mkdir(parents=True, exist_ok=True)
        os.chmod(homes, 0o755)
        for address in servers():
            home, tmp = homes / address / 'home', homes / address / 'tmp'
            for where in (home, tmp):
                where.mkdir(parents=True, exist_ok=True)
            os.chown(home, found.pw_uid, found.pw_gid)
            os.chmod(home, 0o700)
            os.chmod(tmp, 0o1777)

    def launch(self) -> None:
        log = self.logs()['server']
        process.run('sshd', 'the configuration check (sshd -t)',
                    [SSHD, '-t', '-f', str(self.conf)], log, self.base)
        process.spawn('sshd', self.command(), log, self.base)
        process.wait_until('sshd', 'no SSH greeting on %s:%d' % (
            HOST, port()), self.healthy, {'sshd': log}, 10)
