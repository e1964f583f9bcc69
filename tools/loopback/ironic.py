"""Ironic (from PyPI), with Keystone or without, on fake hardware.

One process: ``ironic`` (Ironic's all-in-one program: the conductor with
the API embedded, ``rpc_transport = none``, so no broker), its API (a
cheroot server) on 127.0.0.1:16385, on the postgres service's database
``ironic``.  PostgreSQL rather than SQLite: the others keep theirs there
too (``--clean`` drops it the same way), and the API's threads and the
conductor's periodic tasks write at the same time, which SQLite answers
with "database is locked".  ``ironic-dbsync create_schema`` makes a new
database, ``upgrade`` an older one.

Hardware: ``fake-hardware`` only, with fake boot, deploy, management and
power (a node powers on and off, deploys to ``active``, in no time),
network ``noop``, no DHCP, no automated cleaning (provide goes straight to
``available``); fake BIOS and RAID for a node that asks (``no-bios`` and
``no-raid`` by default).  Inspection: ``fake``, ``agent`` (the default) or
``no-inspect``.  With ``agent`` a node waits in ``inspect wait`` until an
inventory is posted to ``POST /v1/continue_inspection`` (API version 1.84;
no token: it is the ramdisk's call, found by the node's port MACs), as
ironic-python-agent does; the hooks then fill ``cpus``, ``memory_mb``,
``local_gb``, ``cpu_arch`` and the ``boot_mode`` capability.  Its built-in
server queues few connections: keep at most 5 requests in flight.

With Keystone (templates/ironic/keystone.conf): keystonemiddleware as the
service user ironic, catalog entry ``baremetal`` http://127.0.0.1:16385.
Policy: Ironic's new defaults keep node creation (and most inventory
work) for system-scoped tokens.  We keep project-scoped tokens and let a
project's ``admin`` role do it: ``[oslo_policy] enforce_new_defaults =
false`` adds each rule's legacy check (``rule:is_admin``: the admin role)
next to the new one.  Why not system scope: every command of ours runs as
the operator's project token, and our workflows run in Mistral on that
token or a trust from it, which are project-scoped; a second,
system-scoped session for one service would leave the GUI and workflow
clients without a way in.  That is how a TripleO undercloud's admin
worked.  A project member without the admin role is still refused
(legacy: admin only; new defaults: the nodes its project owns).  What
stays system-only: oslo.policy 5 always checks a rule's scope types, and
a few of Ironic's rules name the system scope alone (drivers, chassis,
events, changing the owner of a provisioned node): ``GET /v1/drivers``
refuses a project token (with a 500: Ironic 39 does not map oslo.policy's
InvalidScope to 403).  The admin user has the admin role on the
system too (keystone-manage bootstrap), should one need it; the node
commands do not.  A node a project admin creates is owned by that project
(Ironic's ``[api] project_admin_can_manage_own_nodes``).  Ironic's new
defaults alone (that owner model) were tried: a project admin then
creates and drives its own nodes, but listing conductors (our readiness
check) and drivers, and seeing nodes of other projects, want system
scope.

Without Keystone (LOOPBACK_KEYSTONE=0): ``auth_strategy = noauth``, where
Ironic allows every request; clouds.yaml's ``baremetal_endpoint_override``
points at it.

Log: <state>/ironic/ironic.log (and ironic-dbsync.log).  Clients should
ask for a microversion (``X-OpenStack-Ironic-API-Version``): without one
the API answers as 1.1, where a new node is ``available`` at once.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
import time

from . import identity
from . import keystone
from . import postgres
from . import process
from .common import env_port
from .common import HOST
from .common import http_get
from .common import LoopbackError
from .common import render
from .common import say
from .service import Service
from .venv import ensure_venv
from .venv import requirements
from .venv import venv_dir

DB = 'ironic'                           # database, and its owner role
HARDWARE_TYPE = 'fake-hardware'
# the API version that lists conductors with their drivers
CONDUCTORS_VERSION = '1.49'


def port() -> int:
    return env_port('LOOPBACK_IRONIC_PORT', 16385)


def url(path: str = '') -> str:
    """Unversioned, as in the catalog: /v1 follows."""
    return 'http://%s:%d%s' % (HOST, port(), path)


def serves_hardware(body: bytes) -> bool:
    """A GET /v1/conductors answer (with their drivers) has a live
    conductor that runs fake-hardware."""
    try:
        conductors = json.loads(body).get('conductors') or []
    except (ValueError, AttributeError):
        return False
    return any(c.get('alive') and HARDWARE_TYPE in (c.get('drivers') or ())
               for c in conductors if isinstance(c, dict))


def api_ready() -> bool:
    # not /v1/drivers: its policy is for system-scoped tokens only
    headers = {'X-OpenStack-Ironic-API-Version': CONDUCTORS_VERSION}
    try:
        if keystone.enabled():
            headers['X-Auth-Token'] = keystone.admin_token()
        status, body = http_get(url('/v1/conductors?fields=hostname,alive,'
                                    'drivers'), timeout=5, headers=headers)
    except (OSError, LoopbackError):
        return False
    return status == 200 and serves_hardware(body)


class Ironic(Service):
    name = 'ironic'
    port_variables = 'LOOPBACK_IRONIC_PORT'
    unhealthy = 'the API lists no %s conductor' % HARDWARE_TYPE
    conf_file = 'ironic.conf'

    @property
    def requires(self) -> tuple[str, ...]:
        return ('keystone',) * keystone.enabled() + ('postgres',)

    def location(self) -> str:
        return 'at %s' % url()

    def cloud(self) -> dict:
        if keystone.enabled():
            return {}           # the catalog
        return {'baremetal_endpoint_override': url()}

    def env(self) -> dict[str, str]:
        return {'LOOPBACK_IRONIC_URL': url(),
                'LOOPBACK_IRONIC_LOG': str(self.logs()['server'])}

    def logs(self) -> dict[str, Path]:
        return {'server': self.base / 'ironic.log',
                'dbsync': self.base / 'ironic-dbsync.log'}

    def pidnames(self) -> list[str]:
        return ['ironic']

    def ports(self) -> dict[str, int]:
        return {'api': port()}

    def healthy(self) -> bool:
        return api_ready()

    def command(self) -> list[str]:
        return [str(venv_dir('ironic') / 'bin' / 'ironic'),
                '--config-file', str(self.conf)]

    def configs(self) -> dict[str, str]:
        if keystone.enabled():
            auth = render('ironic/keystone.conf', authtoken=keystone.ini(
                keystone.authtoken('ironic')))
        else:
            auth = render('ironic/noauth.conf')
        return {'ironic.conf': render(
            'ironic/ironic.conf', host=HOST, port=port(),
            db_url=postgres.database_url(DB),
            lock_path=self.base / 'locks', auth=auth)}

    def run_stamp(self, files: dict[str, str]) -> str:
        return hashlib.sha256(json.dumps(
            [requirements('ironic'), files, self.command()]
        ).encode()).hexdigest()

    def install(self) -> None:
        ensure_venv('ironic', 'ironic.command.singleprocess, psycopg2')

    def prepare(self, clean: bool) -> None:
        if clean:
            say('ironic: dropping database %s' % DB)
            postgres.drop_database(DB)
        postgres.ensure_database(DB)
        if keystone.enabled():
            identity.service_user('ironic')
            identity.register('baremetal', 'ironic', url())

    def configure(self, files: dict[str, str]) -> None:
        super().configure(files)
        (self.base / 'locks').mkdir(exist_ok=True)
        self.sync_db()

    def launch(self) -> None:
        log = self.logs()['server']
        process.spawn('ironic', self.command(), log, self.base,
                      stop_timeout=15.0)
        what = 'GET %s listed no live %s conductor' % (
            url('/v1/conductors'), HARDWARE_TYPE)
        process.wait_until('ironic', what, api_ready, {'ironic': log}, 120)

    def sync_db(self) -> None:
        """The schema, when the database is new (or Ironic or the cluster
        changed)."""
        db_stamp = self.base / 'db.stamp'

        def stamp() -> str:
            return json.dumps([requirements('ironic'), postgres.cluster_id(),
                               postgres.alembic_version(DB)])
        if db_stamp.exists() and db_stamp.read_text() == stamp():
            return
        started = time.monotonic()
        # a new database: the models' schema at once, not every migration
        step = 'upgrade' if postgres.alembic_version(DB) else 'create_schema'
        process.run('ironic', 'ironic-dbsync %s' % step, [
            str(venv_dir('ironic') / 'bin' / 'ironic-dbsync'),
            '--config-file', str(self.conf), step],
            self.logs()['dbsync'], self.base)
        db_stamp.write_text(stamp())
        say('ironic: database schema ready in %.1f s' % (
            time.monotonic() - started))
