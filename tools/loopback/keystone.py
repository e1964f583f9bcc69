"""Keystone (from PyPI): the identity service in front of the others.

One uWSGI master and one worker of 4 threads serving Keystone's WSGI
application (keystone.wsgi.api) on 127.0.0.1:15000, on the postgres
service's database ``keystone`` (sqlite answers "database is locked" to
concurrent requests).  Fernet tokens; credential and fernet keys under
<state>/keystone/keys.  Made fast for a small machine by configuration:
``[identity] password_hash_rounds = 4`` (bcrypt's cost: a password token
in ~10 ms instead of ~300 ms) and an in-process cache
(``dogpile.cache.memory``) for tokens, roles and the catalog.

``[token] expiration`` is LOOPBACK_KEYSTONE_TOKEN_EXPIRATION seconds
(default 3600, Keystone's own).  With 120 keystoneauth asks for a new
token before every request (it renews a token with less than 120 s left:
keystoneauth1's MIN_TOKEN_LIFE_SECONDS), which is how the long-operation
tests prove that nothing keeps a token it cannot renew.

What ``start`` makes (``keystone-manage bootstrap``, then the API):

* user ``admin`` (its password: admin_password()) with the role ``admin``
  on the project ``admin``, the roles admin > member > reader (each
  implies the next), region RegionOne, the identity endpoint;
* the project ``service`` and the roles ``service`` and
  ``heat_stack_user`` (identity.basics()); each service that starts in
  Keystone mode adds its user (swift, heat, mistral, ironic; roles admin
  and service on ``service``) and its catalog entry
  (identity.service_user(), register()); Heat also the domain ``heat``
  with its admin user ``heat_domain_admin``, for the users it makes for
  stacks (OS::Heat::DeployedServer, HEAT_SIGNAL).

Every password is random, one per state directory (credentials.py); a
state directory made with the old fixed ones gets them changed at start:
``bootstrap`` again for admin (it resets a password that differs), the
others by ensure_user() as their service starts with its new one.

The mode: the other services use Keystone unless LOOPBACK_KEYSTONE=0
(then: Swift without auth, Heat noauth, Mistral auth off, as before).
``start`` records the mode in <state>/auth-mode, which ``env`` and
clouds.yaml follow.  In Keystone mode clouds.yaml's cloud ``loopback``
has password auth as admin and no endpoint overrides: the catalog says
where each service is.

Request counting: one line per request in <state>/keystone/access.log,
e.g. ``[...] "POST /v3/auth/tokens HTTP/1.1" 201 7391 12ms``.
"""

from __future__ import annotations

import grp
import hashlib
import json
import os
import pwd
import re
import time
import urllib.error
import urllib.request
from pathlib import Path

from . import credentials, identity, postgres, process, state
from .common import HOST, LoopbackError, env_port, render, say
from .service import Service
from .venv import ensure_venv, requirements, venv_dir

DB = 'keystone'                         # database, and its owner role
REGION = 'RegionOne'
SERVICE_PROJECT = 'service'
# Heat's stack user domain and the user that administers it
HEAT_DOMAIN = 'heat'
HEAT_DOMAIN_ADMIN = 'heat_domain_admin'
# state file: the admin project's id (accounts and URLs carry it)
ADMIN_PROJECT_FILE = 'admin-project-id'

_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))
_TOKEN: dict[str, object] = {}


def enabled() -> bool:
    """Keystone mode: LOOPBACK_KEYSTONE (0 or 1), else what the last
    ``start`` recorded, else yes."""
    value = os.environ.get('LOOPBACK_KEYSTONE')
    if value is None:
        path = state.state_dir() / 'auth-mode'
        value = '0' if path.exists() and \
            path.read_text().strip() == 'none' else '1'
    return value != '0'


def record_mode() -> None:
    state.ensure_state_dir()
    (state.state_dir() / 'auth-mode').write_text(
        ('keystone' if enabled() else 'none') + '\n')


def port() -> int:
    return env_port('LOOPBACK_KEYSTONE_PORT', 15000)


def url(path: str = '') -> str:
    """The identity endpoint (v3)."""
    return 'http://%s:%d/v3%s' % (HOST, port(), path)


def auth_uri() -> str:
    """Unversioned, as keystonemiddleware and Heat want it."""
    return 'http://%s:%d' % (HOST, port())


def token_expiration() -> int:
    return env_port('LOOPBACK_KEYSTONE_TOKEN_EXPIRATION', 3600)


def admin_password() -> str:
    return credentials.secret('keystone-admin')


def service_password(name: str) -> str:
    """The password of the service user ``name`` (or of Heat's domain
    admin)."""
    return credentials.secret('keystone-user-%s' % name)


def admin_project_id() -> str:
    """The admin project's id: Swift's account is AUTH_<it>, Heat's URL
    /v1/<it>.  Known once Keystone was bootstrapped."""
    path = state.state_dir() / 'keystone' / ADMIN_PROJECT_FILE
    return path.read_text().strip() if path.exists() else 'unknown-project'


def authtoken(name: str) -> dict[str, str]:
    """keystonemiddleware's (and any service client's) options for the
    service user ``name``."""
    return {'www_authenticate_uri': auth_uri(), 'auth_url': auth_uri(),
            'auth_type': 'password', 'username': name,
            'password': service_password(name),
            'project_name': SERVICE_PROJECT, 'user_domain_id': 'default',
            'project_domain_id': 'default', 'region_name': REGION}


def ini(options: dict[str, str]) -> str:
    return ''.join('%s = %s\n' % item for item in options.items())


# ---------------------------------------------------------------------------
# the API, as admin (standard library only)
# ---------------------------------------------------------------------------

def call(method: str, path: str, body: dict | None = None,
         token: str | None = None, timeout: float = 10.0
         ) -> tuple[int, dict, dict]:
    """(status, headers, JSON body) of one request to the identity API."""
    headers = {'Content-Type': 'application/json'}
    if token is not None:
        headers['X-Auth-Token'] = token
    req = urllib.request.Request(
        url(path), method=method, headers=headers,
        data=None if body is None else json.dumps(body).encode())
    try:
        with _NO_PROXY.open(req, timeout=timeout) as resp:
            data, status, hdrs = resp.read(), resp.status, resp.headers
    except urllib.error.HTTPError as e:
        data, status, hdrs = e.read(), e.code, e.headers
    try:
        parsed = json.loads(data) if data else {}
    except ValueError:
        parsed = {}
    return status, dict(hdrs), parsed


def password_token(user: str, password: str, project: str | None = None,
                   domain: str | None = None) -> tuple[str, dict]:
    """(token, token body) for a user of the Default domain, scoped to a
    project of the Default domain or to a domain."""
    auth: dict = {'identity': {'methods': ['password'], 'password': {
        'user': {'name': user, 'domain': {'id': 'default'},
                 'password': password}}}}
    if project:
        auth['scope'] = {'project': {'name': project,
                                     'domain': {'id': 'default'}}}
    elif domain:
        auth['scope'] = {'domain': {'name': domain}}
    status, headers, body = call('POST', '/auth/tokens', {'auth': auth})
    if status != 201:
        raise LoopbackError('keystone: no token for %s (HTTP %d: %s)' % (
            user, status, body.get('error', {}).get('message', body)))
    return headers['X-Subject-Token'], body['token']


def admin_token() -> str:
    """An admin token, renewed a minute before it expires."""
    if _TOKEN.get('until', 0) < time.time() + 60:
        token, _ = password_token('admin', admin_password(),
                                  project='admin')
        _TOKEN.update(id=token, until=time.time() + min(
            token_expiration(), 3600) - 5)
    return str(_TOKEN['id'])


def admin(method: str, path: str, body: dict | None = None,
          ok: tuple[int, ...] = (200, 201, 204)) -> dict:
    status, _, answer = call(method, path, body, token=admin_token())
    if status not in ok:
        raise LoopbackError('keystone: %s %s gave HTTP %d: %s' % (
            method, path, status, answer.get('error', {}).get(
                'message', answer)))
    return answer


def answers() -> bool:
    try:
        status, _, body = call('GET', '', timeout=5)
    except OSError:
        return False
    return status == 200 and 'version' in body


class Keystone(Service):
    name = 'keystone'
    requires = ('postgres',)
    port_variables = 'LOOPBACK_KEYSTONE_PORT'
    unhealthy = 'it gives no admin token'
    conf_file = 'keystone.conf'

    def location(self) -> str:
        return 'at %s' % url()

    def details(self) -> str:
        return ' (tokens expire after %d s, access log %s)' % (
            token_expiration(), self.logs()['access'])

    def cloud(self) -> dict:
        if not enabled():
            return {}
        return {'auth_type': 'password', 'region_name': REGION,
                'identity_api_version': '3',
                'auth': {'auth_url': url(), 'username': 'admin',
                         'password': admin_password(),
                         'project_name': 'admin',
                         'user_domain_name': 'Default',
                         'project_domain_name': 'Default'}}

    def env(self) -> dict[str, str]:
        if not enabled():
            return {}
        logs = self.logs()
        return {'LOOPBACK_KEYSTONE_URL': url(),
                'LOOPBACK_KEYSTONE_ACCESS_LOG': str(logs['access']),
                'LOOPBACK_KEYSTONE_LOG': str(logs['server']),
                'LOOPBACK_KEYSTONE_TOKEN_EXPIRATION':
                    str(self.running_expiration()),
                'LOOPBACK_PROJECT_ID': admin_project_id()}

    def logs(self) -> dict[str, Path]:
        return {'server': self.base / 'keystone.log',
                'access': self.base / 'access.log',
                'manage': self.base / 'keystone-manage.log'}

    def pidnames(self) -> list[str]:
        return ['keystone']

    def ports(self) -> dict[str, int]:
        return {'api': port()}

    def healthy(self) -> bool:
        if not answers():
            return False
        try:
            password_token('admin', admin_password(), project='admin')
        except (LoopbackError, OSError):
            return False
        return True

    def running_expiration(self) -> int:
        """[token] expiration of the configuration it was started with
        (LOOPBACK_KEYSTONE_TOKEN_EXPIRATION then)."""
        found = re.search(r'^expiration = (\d+)$', self.conf.read_text(),
                          re.M) if self.conf.exists() else None
        return int(found.group(1)) if found else token_expiration()

    @property
    def keys(self) -> Path:
        return self.base / 'keys'

    def configs(self) -> dict[str, str]:
        return {
            'keystone.conf': render(
                'keystone/keystone.conf', keys=self.keys,
                db_url=postgres.database_url(DB),
                expiration=token_expiration()),
            'keystone-uwsgi.ini': render(
                'keystone/keystone-uwsgi.ini', host=HOST, port=port(),
                access_log=self.logs()['access']),
        }

    def run_stamp(self, files: dict[str, str]) -> str:
        return json.dumps([requirements('keystone'), files])

    def install(self) -> None:
        ensure_venv('keystone', 'keystone.wsgi, psycopg2')

    def manage(self, *args: str, env: dict | None = None) -> None:
        process.run('keystone', 'keystone-manage %s' % args[0], [
            str(venv_dir('keystone') / 'bin' / 'keystone-manage'),
            '--config-file', str(self.conf)] + list(args),
            self.logs()['manage'], self.base, env=env)

    def prepare(self, clean: bool) -> None:
        if clean:
            say('keystone: dropping database %s' % DB)
            postgres.drop_database(DB)
            (self.base / ADMIN_PROJECT_FILE).unlink(missing_ok=True)
        postgres.ensure_database(DB)

    def configure(self, files: dict[str, str]) -> None:
        super().configure(files)
        user = pwd.getpwuid(os.getuid()).pw_name
        group_name = grp.getgrgid(os.getgid()).gr_name
        for what in ('fernet', 'credential'):
            if not (self.keys / what / '0').exists():
                (self.keys / what).mkdir(parents=True, exist_ok=True)
                self.manage('%s_setup' % what, '--keystone-user', user,
                            '--keystone-group', group_name)
        db_stamp = self.base / 'db.stamp'

        def stamp() -> str:
            # a new admin password (the old fixed one's state directory):
            # bootstrap again, which resets it
            return json.dumps([requirements('keystone'),
                               postgres.cluster_id(),
                               postgres.alembic_version(DB),
                               hashlib.sha256(
                                   admin_password().encode()).hexdigest()])
        if db_stamp.exists() and db_stamp.read_text() == stamp():
            return
        started = time.monotonic()
        self.manage('db_sync')
        # the password in the environment, not on a command line
        self.manage('bootstrap', '--bootstrap-region-id', REGION,
                    '--bootstrap-admin-url', url(),
                    '--bootstrap-internal-url', url(),
                    '--bootstrap-public-url', url(),
                    env=dict(os.environ,
                             OS_BOOTSTRAP_PASSWORD=admin_password()))
        db_stamp.write_text(stamp())
        say('keystone: database and bootstrap ready in %.1f s' % (
            time.monotonic() - started))

    def launch(self) -> None:
        log = self.logs()['server']
        process.spawn('keystone', [
            str(venv_dir('keystone') / 'bin' / 'uwsgi'), '--ini',
            str(self.base / 'keystone-uwsgi.ini')], log, self.base,
            # read when Python starts (pyuwsgi): uWSGI's env option is late
            env=dict(os.environ, OS_KEYSTONE_CONFIG_FILES=str(self.conf)),
            stop_timeout=10.0)
        process.wait_until('keystone', 'GET %s gave no 200' % url(),
                           answers, {'keystone': log}, 60)
        _TOKEN.clear()
        _, body = password_token('admin', admin_password(), project='admin')
        (self.base / ADMIN_PROJECT_FILE).write_text(
            body['project']['id'] + '\n')
        identity.basics()
