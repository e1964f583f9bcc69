"""The loopback Keystone as its clients see it: the mode (Keystone or
none), the identity endpoint, the passwords of its users (credentials.py)
and the identity API as admin (standard library only).  The service
itself, its configuration and what its start makes: keystone_service.py;
users, roles, domains and the catalog: identity.py.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request

from . import credentials
from . import state
from .common import env_port
from .common import HOST
from .common import LoopbackError

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


def forget_admin_token() -> None:
    """After a (re)start: the next admin request gets a new token."""
    _TOKEN.clear()


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
