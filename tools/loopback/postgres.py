"""PostgreSQL: Debian's postgresql package, run as a private cluster; and
the databases the other services keep in it.

Cluster in <state>/postgres/data made by initdb, server started directly
(not pg_ctlcluster, not the system service) as a foreground child:
TCP 127.0.0.1:15432 only, unix socket in <state>/postgres/run.  initdb and
the server refuse to run as root, so as root both run as the ``postgres``
OS user (which then owns <state>/postgres).  Superuser ``postgres``: trust
on the unix socket (only we can reach that directory), passwords
(scram-sha-256) over TCP; the superuser has none, so it cannot log in
that way, and each database's role has a random one (credentials.py,
set again at every start: a state directory of the old fixed passwords
gets the new one).  Throw-away test data: fsync off.  Stopped with
SIGINT (PostgreSQL's "fast" shutdown: it does not wait for clients).
"""

from __future__ import annotations

import getpass
import os
from pathlib import Path
import pwd
import shutil
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
from .common import write_if_changed
from .service import Service
from .state import state_dir

SUPERUSER = 'postgres'
SETTINGS = {
    'max_connections': '200',
    'fsync': 'off', 'synchronous_commit': 'off', 'full_page_writes': 'off',
    'logging_collector': 'off',
    'log_line_prefix': '%m [%p] %q%u@%d ',
}


def port() -> int:
    return env_port('LOOPBACK_POSTGRES_PORT', 15432)


def run_dir() -> Path:
    """The unix socket's directory."""
    return state_dir() / 'postgres' / 'run'


def bindir() -> Path | None:
    """LOOPBACK_PG_BINDIR, else the newest /usr/lib/postgresql/*/bin."""
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


def os_user() -> str:
    """The OS user of the server (initdb and postgres refuse root)."""
    return 'postgres' if os.geteuid() == 0 else getpass.getuser()


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith('PG')}


def url(database: str, user: str, password: str) -> str:
    """SQLAlchemy URL of a database of ours, over TCP."""
    return 'postgresql+psycopg2://%s:%s@%s:%d/%s' % (
        user, password, HOST, port(), database)


def ready() -> bool:
    if not bindir():
        return False
    result = subprocess.run(
        [str(bindir() / 'pg_isready'), '-q', '-h', str(run_dir()),
         '-p', str(port()), '-U', SUPERUSER, '-d', 'postgres'],
        env=clean_env())
    return result.returncode == 0 and tcp_accepts(port())


# ---------------------------------------------------------------------------
# SQL, for the services that keep a database here
# ---------------------------------------------------------------------------

def psql(sql: str, database: str = 'postgres', **variables: str) -> str:
    """Run SQL (psql syntax, :'var' for the variables) as the superuser
    over the unix socket; its output, unaligned."""
    if not bindir():
        raise not_installed('postgres', 'PostgreSQL')
    cmd = [str(bindir() / 'psql'), '-X', '-q', '-A', '-t',
           '-v', 'ON_ERROR_STOP=1', '-h', str(run_dir()),
           '-p', str(port()), '-U', SUPERUSER, '-d', database]
    # on stdin, not the command line: some are passwords
    sets = ''.join("\\set %s '%s'\n" % (key, value.replace("'", "''"))
                   for key, value in variables.items())
    result = subprocess.run(cmd + ['-f', '-'], input=sets + sql, text=True,
                            capture_output=True, env=clean_env())
    if result.returncode != 0:
        raise LoopbackError('postgres: psql on %s failed: %s' % (
            database, (result.stderr or result.stdout).strip()))
    return result.stdout


def password(name: str) -> str:
    """The password of the role that owns database ``name``."""
    return credentials.secret('postgres-%s' % name)


def database_url(name: str) -> str:
    """SQLAlchemy URL of database ``name`` as its owner role."""
    return url(name, name, password(name))


def ensure_database(name: str) -> str:
    """Role ``name`` (LOGIN, password(name)) owning database ``name``, both
    created when missing; returns the SQLAlchemy URL."""
    psql("SELECT format('CREATE ROLE %I', :'name') WHERE NOT EXISTS\n"
         "  (SELECT FROM pg_roles WHERE rolname = :'name') \\gexec\n"
         "ALTER ROLE :\"name\" WITH LOGIN PASSWORD :'password';\n"
         "SELECT format('CREATE DATABASE %I OWNER %I', :'name', :'name')\n"
         "  WHERE NOT EXISTS\n"
         "  (SELECT FROM pg_database WHERE datname = :'name') \\gexec\n",
         name=name, password=password(name))
    return database_url(name)


def drop_database(name: str) -> None:
    psql('DROP DATABASE IF EXISTS :"name" WITH (FORCE);\n', name=name)


def alembic_version(database: str) -> str:
    """Alembic revision of a database ('' if it has none yet)."""
    return psql("SELECT to_regclass('public.alembic_version') IS NOT NULL "
                "AS has\n"
                "\\gset\n"
                "\\if :has\n"
                "SELECT version_num FROM alembic_version;\n"
                "\\endif\n", database=database).strip()


def cluster_id() -> str:
    """Changes whenever the cluster is made anew (initdb)."""
    return psql('SELECT system_identifier FROM pg_control_system();\n'
                ).strip()


# ---------------------------------------------------------------------------
# the service
# ---------------------------------------------------------------------------

class Postgres(Service):
    name = 'postgres'
    port_variables = 'LOOPBACK_POSTGRES_PORT'
    unhealthy = 'not accepting connections'

    @property
    def data(self) -> Path:
        return self.base / 'data'

    def location(self) -> str:
        return 'on %s:%d' % (HOST, port())

    def details(self) -> str:
        return ' (%s)' % bindir().parent.name

    def logs(self) -> dict[str, Path]:
        return {'server': self.base / 'postgres.log'}

    def pidnames(self) -> list[str]:
        return ['postgres']

    def ports(self) -> dict[str, int]:
        return {'postgres': port()}

    def healthy(self) -> bool:
        return ready()

    def install(self) -> None:
        if not bindir() or not (bindir() / 'postgres').exists():
            raise not_installed('postgres', 'PostgreSQL (postgres, initdb)')

    def prepare(self, clean: bool) -> None:
        if clean and self.data.exists():
            say('postgres: wiping %s' % self.data)
            shutil.rmtree(self.data)
        self.prepare_dirs()
        if not (self.data / 'PG_VERSION').exists():
            self.initdb()

    def configs(self) -> dict[str, str]:
        return {'data/pg_hba.conf': render('postgres/pg_hba.conf', host=HOST)}

    def configure(self, files: dict[str, str]) -> None:
        # in the cluster initdb made: owned by the server's user
        for name, text in files.items():
            if write_if_changed(self.base / name, text) and \
                    os.geteuid() == 0:
                pw = pwd.getpwnam(os_user())
                os.chown(self.base / name, pw.pw_uid, pw.pw_gid)

    def launch(self) -> None:
        cmd = [str(bindir() / 'postgres'), '-D', str(self.data),
               '-c', 'listen_addresses=%s' % HOST, '-c', 'port=%d' % port(),
               '-c', 'unix_socket_directories=%s' % run_dir()]
        for key, value in SETTINGS.items():
            cmd += ['-c', '%s=%s' % (key, value)]
        log = self.logs()['server']
        process.spawn('postgres', cmd, log, self.base, env=clean_env(),
                      user=os_user(), stop_signal='SIGINT', stop_timeout=30.0)
        process.wait_until('postgres', 'no connection to %s:%d' % (
            HOST, port()), ready, {'postgres': log}, 60)

    def prepare_dirs(self) -> None:
        """Directories owned by the server's OS user, reachable by it."""
        for d in (self.base, run_dir()):
            d.mkdir(parents=True, exist_ok=True)
        os.chmod(run_dir(), 0o700)
        if os.geteuid() != 0:
            return
        pw = pwd.getpwnam(os_user())
        for d in (self.base, run_dir()):
            os.chown(d, pw.pw_uid, pw.pw_gid)
        if self.data.exists():
            st = self.data.stat()
            if (st.st_uid, st.st_gid) != (pw.pw_uid, pw.pw_gid):
                for root, dirs, files in os.walk(self.data):
                    for name in [root] + [os.path.join(root, n)
                                          for n in dirs + files]:
                        os.chown(name, pw.pw_uid, pw.pw_gid,
                                 follow_symlinks=False)
        for parent in self.base.parents:
            st = parent.stat()
            if st.st_uid != pw.pw_uid and not st.st_mode & 0o001 and not (
                    st.st_gid == pw.pw_gid and st.st_mode & 0o010):
                raise LoopbackError(
                    'postgres: the server runs as OS user %s, which cannot '
                    'enter %s; set LOOPBACK_DIR to a directory it can reach'
                    % (os_user(), parent))

    def initdb(self) -> None:
        say('postgres: initdb %s' % self.data)
        try:
            process.run('postgres', 'initdb', [
                str(bindir() / 'initdb'), '-D', str(self.data),
                '-U', SUPERUSER, '-A', 'trust', '-E', 'UTF8', '--no-locale',
                '--no-sync'], self.logs()['server'], self.base,
                env=clean_env(), user=os_user())
        except LoopbackError:
            shutil.rmtree(self.data, ignore_errors=True)
            raise
