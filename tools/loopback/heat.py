"""Heat (from PyPI), with Keystone or without.

Heat 27 has no heat-all, and heat-engine forks a worker even with one, so
the API cannot reach the engine over fake:// messaging: two programs, from
one venv, on the rabbitmq and postgres services:

  heat-engine  the stock engine (a master and one worker process)
  heat-api     the WSGI application heat.wsgi.api under uWSGI (the
               pyuwsgi wheel: nothing to compile), a master and 2 workers
               of 4 threads, HTTP on 127.0.0.1:18004

``heat-manage db_sync`` runs when the ``heat`` database is new (or Heat or
the cluster changed).  The legacy engine (``convergence_engine = false``)
is several times faster than convergence on a small machine.  Heat waits
one second between the steps of a task (a constant: there is no setting
for it), so a resource takes about a second.

With Keystone (templates/heat/keystone.conf): the stock paste pipeline
(authtoken, as the service user heat), default policies, trusts for
deferred operations and for operations that outlive the caller's token
(``reauthentication_auth_method = trusts``; [trustee] is the heat user),
stack users in the domain ``heat`` (identity.heat_domain() as Heat
starts), catalog entry ``orchestration``
http://127.0.0.1:18004/v1/$(project_id)s.  Its API for
the tools is /v1/<admin project id>, asked with an admin token.

No Keystone (LOOPBACK_KEYSTONE=0, templates/heat/noauth.conf):

* Paste flavor ``noauth``: each request runs as user ``admin`` (or the
  X-Auth-User header), project ``admin`` (or X-Auth-Project), roles
  ``admin`` only.  Heat's URLs carry the project: the API is
  http://127.0.0.1:18004/v1/admin, clouds.yaml's
  ``orchestration_endpoint_override`` and, for python-heatclient's own
  ``openstack stack ...`` commands, which ignore that, ``auth: endpoint``.
* Heat 27's policy defaults ask for the roles member or reader, which that
  identity lacks: ``[oslo_policy] enforce_new_defaults = false`` lets each
  rule's deprecated check (mostly "not role:heat_stack_user") grant it,
  and policy.yaml grants the one rule that still refuses the admin role.
* ``keystone_backend``: Heat's own FakeKeystoneClient, so stack domain
  users (OS::Heat::DeployedServer with POLL_SERVER_HEAT), trusts and the
  like are stubs.
* ``[noauth] token_response``: a token with a service catalog that the
  noauth middleware attaches to every request: this Heat as
  ``orchestration`` (OS::Heat::DeployedServer refuses to exist without
  one) and the loopback Swift as ``object-store``, account AUTH_admin
  (Heat signs temp URLs for /v1/AUTH_<project>).  Heat does use that
  Swift, but Swift shows and accepts X-Account-Meta-Temp-URL-Key only for
  a "swift owner", which no request is without auth middleware:
  POLL_TEMP_URL and TEMP_URL_SIGNAL would fail (KeyError); the proxy's
  ``swift_owner_headers = x-account-access-control`` leaves the temp-url
  keys out of the owner-only headers, and both work.
* A signal to a resource (``openstack stack resource signal``,
  signal_transport HEAT_SIGNAL) runs with the stack's stored credentials,
  which only Keystone can turn into a session: it fails.  Complete a
  deployment with NO_SIGNAL, or by updating it (PUT
  /software_deployments/<id> with status COMPLETE).

Request counting: uWSGI writes one line per request, after its response
went out, to <state>/heat/api-access.log, e.g.

  [21/Nov/2026:15:49:18 +0000] "GET /v1/admin/stacks HTTP/1.1" 200 343 37ms

The readiness polls of ``start`` and ``status`` are requests too (GET /,
/v1/admin/services, /v1/admin/stacks).  Other logs, in the same directory:
heat-engine.log, heat-api.log (uWSGI and the application),
heat-manage.log.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
from pathlib import Path
import time

from . import credentials
from . import identity
from . import keystone
from . import postgres
from . import process
from . import rabbitmq
from . import swift
from .common import env_port
from .common import HOST
from .common import http_get
from .common import log_since
from .common import log_size
from .common import LoopbackError
from .common import render
from .common import say
from .service import Service
from .venv import ensure_venv
from .venv import requirements
from .venv import venv_dir

DB = 'heat'                             # database, and its owner role
PROJECT = 'admin'                       # what the noauth middleware gives
# the fixed auth_encryption_key of state directories made before keys
# were random (credentials.py): their database keeps what Heat encrypted
# with it
OLD_AUTH_ENCRYPTION_KEY = 'tripleoplanclient-loopback-key32'
# heat-engine's own entry point, run with a longer thread switch interval.
# Heat 27's engine runs on native threads (oslo.service's threading
# backend) and every yaql function shares one parser whose ply lexer keeps
# the text being parsed: a thread switch in the middle of a parse lets
# another nested stack's expression replace it, and THT 18 failed at
# random with "Bad expression Parse error: unexpected end of statement"
# (seen on FirewallFrontendRules).  A parse does no I/O, so with 1 s
# between forced switches (default 5 ms) one practically never yields
# mid-parse; threads still switch whenever one waits for I/O.
ENGINE_MAIN = ('import sys; sys.argv[0] = "heat-engine"; '
               'sys.setswitchinterval(1.0); '
               'from heat.cmd.engine import main; sys.exit(main())')
# what heat-engine's master (cotyledon) logs when a worker process died
WORKER_DIED = 'exited with status'


def port() -> int:
    return env_port('LOOPBACK_HEAT_PORT', 18004)


def project() -> str:
    """The project in Heat's URLs: the admin project."""
    return keystone.admin_project_id() if keystone.enabled() else PROJECT


def url(path: str = '') -> str:
    return 'http://%s:%d/v1/%s%s' % (HOST, port(), project(), path)


def get_json(address: str, timeout: float) -> tuple[int, dict | None]:
    headers = {}
    if keystone.enabled() and '/v1/' in address:
        headers['X-Auth-Token'] = keystone.admin_token()
    try:
        status, body = http_get(address, timeout=timeout, headers=headers)
        return status, json.loads(body)
    except (OSError, ValueError, LoopbackError):
        return 0, None


def answers() -> bool:
    """The API answers (GET / lists the versions: 300)."""
    status, body = get_json('http://%s:%d/' % (HOST, port()), timeout=5)
    return status == 300 and bool(body)


def engine_registered(since: str) -> bool:
    """A heat-engine registered itself (in the database, from its RPC
    server's start) at ``since`` (UTC, ISO) or later."""
    status, body = get_json(url('/services'), timeout=5)
    if status != 200 or not isinstance(body, dict):
        return False
    return any(s.get('binary') == 'heat-engine' and
               str(s.get('created_at') or '') >= since
               for s in body.get('services') or [])


def api_ready() -> bool:
    """A stack list (an RPC call to the engine) gives 200."""
    status, body = get_json(url('/stacks'), timeout=10)
    return status == 200 and isinstance(body, dict) and 'stacks' in body


def token_response() -> str:
    """What the noauth middleware attaches to each request as its
    Keystone token: the identity it uses, and a service catalog."""
    def service(kind: str, name: str, address: str) -> dict:
        return {'type': kind, 'name': name, 'id': name, 'endpoints': [
            {'id': '%s-%s' % (name, interface), 'interface': interface,
             'region': 'RegionOne', 'region_id': 'RegionOne',
             'url': address}
            for interface in ('public', 'internal', 'admin')]}
    domain = {'id': 'default', 'name': 'Default'}
    return json.dumps({'token': {
        'methods': ['token'],
        'issued_at': '2020-01-01T00:00:00.000000Z',
        'expires_at': '2999-12-31T23:59:59.000000Z',
        'user': {'id': 'admin', 'name': 'admin', 'domain': domain},
        'project': {'id': PROJECT, 'name': PROJECT, 'domain': domain},
        'roles': [{'id': 'admin', 'name': 'admin'}],
        # Heat signs temp URLs for /v1/AUTH_<project>: its own account
        'catalog': [service('orchestration', 'heat', url()),
                    service('object-store', 'swift',
                            swift.url('/v1/AUTH_' + PROJECT))],
    }}, indent=1) + '\n'


def environ() -> dict[str, str]:
    """Our environment; requests from Heat to 127.0.0.1 (Swift) bypass
    any HTTP proxy."""
    env = dict(os.environ)
    for var in ('no_proxy', 'NO_PROXY'):
        hosts = [x for x in env.get(var, '').split(',') if x]
        env[var] = ','.join(hosts + [HOST, 'localhost'])
    return env


class Heat(Service):
    name = 'heat'

    @property
    def requires(self) -> tuple[str, ...]:
        return ('keystone',) * keystone.enabled() + ('rabbitmq', 'postgres')
    port_variables = 'LOOPBACK_HEAT_PORT'
    unhealthy = 'a stack list fails'
    conf_file = 'heat.conf'

    def location(self) -> str:
        return 'at %s' % url()

    def details(self) -> str:
        return ' (access log %s)' % self.logs()['access']

    def cloud(self) -> dict:
        if keystone.enabled():
            return {}           # the catalog
        # python-heatclient's own OSC commands (openstack stack ...) ignore
        # orchestration_endpoint_override: they ask the session, whose auth
        # plugin (none) then answers with its endpoint, for any service that
        # has no override of its own
        return {'orchestration_endpoint_override': url(),
                'auth': {'endpoint': url()}}

    def env(self) -> dict[str, str]:
        logs = self.logs()
        return {'LOOPBACK_HEAT_URL': url(),
                'LOOPBACK_HEAT_ENGINE_LOG': str(logs['engine']),
                'LOOPBACK_HEAT_API_LOG': str(logs['api']),
                'LOOPBACK_HEAT_ACCESS_LOG': str(logs['access'])}

    def logs(self) -> dict[str, Path]:
        return {'engine': self.base / 'heat-engine.log',
                'api': self.base / 'heat-api.log',
                'access': self.base / 'api-access.log',
                'manage': self.base / 'heat-manage.log'}

    def pidnames(self) -> list[str]:
        # stop goes the other way: the API first, no new requests for the
        # engine
        return ['heat-engine', 'heat-api']

    def ports(self) -> dict[str, int]:
        return {'api': port()}

    def healthy(self) -> bool:
        return api_ready()

    def commands(self) -> dict[str, list[str]]:
        bindir = venv_dir('heat') / 'bin'
        return {'heat-engine': [str(bindir / 'python'), '-c', ENGINE_MAIN,
                                '--config-file', str(self.conf)],
                'heat-api': [str(bindir / 'uwsgi'), '--ini',
                             str(self.base / 'heat-api-uwsgi.ini')]}

    def configs(self) -> dict[str, str]:
        files = {}
        if keystone.enabled():
            trustee = keystone.authtoken('heat')
            for key in ('www_authenticate_uri', 'project_name',
                        'project_domain_id', 'region_name'):
                del trustee[key]        # a trust gives the scope
            auth = render(
                'heat/keystone.conf',
                authtoken=keystone.ini(keystone.authtoken('heat')),
                trustee=keystone.ini(trustee), auth_uri=keystone.auth_uri(),
                heat_domain=keystone.HEAT_DOMAIN,
                heat_domain_admin=keystone.HEAT_DOMAIN_ADMIN,
                heat_domain_admin_password=keystone.service_password(
                    keystone.HEAT_DOMAIN_ADMIN))
        else:
            auth = render('heat/noauth.conf',
                          token=self.base / 'token-response.json',
                          policy=self.base / 'policy.yaml')
            files['policy.yaml'] = render('heat/policy.yaml')
            files['token-response.json'] = token_response()
        return dict(files, **{
            'heat.conf': render(
                'heat/heat.conf', transport_url=rabbitmq.transport_url(),
                key=self.auth_encryption_key(), paste=self.paste_config(),
                db_url=postgres.database_url(DB), host=HOST,
                port=port(), auth=auth),
            'heat-api-uwsgi.ini': render(
                'heat/heat-api-uwsgi.ini', host=HOST, port=port(),
                conf=self.conf, access_log=self.logs()['access']),
        })

    def run_stamp(self, files: dict[str, str]) -> str:
        commands = self.commands()
        return hashlib.sha256(json.dumps(
            [requirements('heat'), files, commands['heat-engine'],
             commands['heat-api']]).encode()).hexdigest()

    def auth_encryption_key(self) -> str:
        """32 characters, made once: the database keeps what Heat
        encrypted with it (a database of the old fixed key keeps it)."""
        old = (self.base / 'db.stamp').exists()
        return credentials.secret('heat-auth-encryption-key',
                                  keep=OLD_AUTH_ENCRYPTION_KEY if old
                                  else None)

    def paste_config(self) -> Path:
        return venv_dir('heat') / 'etc' / 'heat' / 'api-paste.ini'

    def install(self) -> None:
        ensure_venv('heat', 'heat.version, psycopg2, pyuwsgi')
        if ' ' in str(self.conf):
            raise LoopbackError('heat: uWSGI cannot pass a path with spaces '
                                'to Heat (%s): set LOOPBACK_DIR' % self.conf)
        if not self.paste_config().exists():
            raise LoopbackError('heat: %s is missing from the venv' %
                                self.paste_config())

    def prepare(self, clean: bool) -> None:
        if clean:
            say('heat: dropping database %s' % DB)
            postgres.drop_database(DB)
        postgres.ensure_database(DB)
        if keystone.enabled():
            identity.service_user('heat')
            identity.heat_domain()
            identity.register('orchestration', 'heat', 'http://%s:%d/v1/'
                              '$(project_id)s' % (HOST, port()))

    def configure(self, files: dict[str, str]) -> None:
        super().configure(files)
        self.sync_db()

    def launch(self) -> None:
        logs, commands = self.logs(), self.commands()
        # the engine's registration, in its clock (UTC, to the second)
        since = (datetime.datetime.now(datetime.timezone.utc) -
                 datetime.timedelta(seconds=1)).strftime('%Y-%m-%dT%H:%M:%S')
        env = environ()
        offset = log_size(logs['engine'])

        def registered() -> bool:
            # the engine's master forks a new worker whenever one dies
            # (e.g. no database): give up at the first death
            if WORKER_DIED in log_since(logs['engine'], offset):
                raise LoopbackError('heat: the heat-engine worker exited '
                                    'during start', logs['engine'])
            return engine_registered(since)
        process.spawn('heat-engine', commands['heat-engine'], logs['engine'],
                      self.base, env=env, stop_timeout=20.0)
        process.spawn('heat-api', commands['heat-api'], logs['api'],
                      self.base, env=env, stop_timeout=15.0)
        engine = {'heat-engine': logs['engine']}
        api = {'heat-api': logs['api']}
        process.wait_until('heat', 'the API did not answer on %s:%d' % (
            HOST, port()), answers, engine | api, 120)
        # a request before the engine consumes its queue would wait for
        # rpc_response_timeout: first the engine's registration (a
        # database read), then one stack list (an RPC call)
        process.wait_until('heat', 'the engine did not register (GET %s)' %
                           url('/services'), registered, api | engine, 120)
        process.wait_until('heat', 'GET %s gave no 200' % url('/stacks'),
                           api_ready, engine | api, 60)

    def sync_db(self) -> None:
        """The schema, when the database is new (or Heat or the cluster
        changed)."""
        db_stamp = self.base / 'db.stamp'

        def stamp() -> str:
            return json.dumps([requirements('heat'), postgres.cluster_id(),
                               postgres.alembic_version(DB)])
        if db_stamp.exists() and db_stamp.read_text() == stamp():
            return
        started = time.monotonic()
        process.run('heat', 'heat-manage db_sync', [
            str(venv_dir('heat') / 'bin' / 'heat-manage'),
            '--config-file', str(self.conf), 'db_sync'],
            self.logs()['manage'], self.base)
        db_stamp.write_text(stamp())
        say('heat: database schema ready in %.1f s' % (
            time.monotonic() - started))
