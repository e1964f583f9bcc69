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
from pathlib import Path
import pwd
import re
import time

from . import identity
from . import postgres
from . import process
from .common import HOST
from .common import LoopbackError
from .common import render
from .common import say
from .keystone import admin_password
from .keystone import ADMIN_PROJECT_FILE
from .keystone import admin_project_id
from .keystone import answers
from .keystone import enabled
from .keystone import forget_admin_token
from .keystone import password_token
from .keystone import port
from .keystone import REGION
from .keystone import token_expiration
from .keystone import url
from .service import Service
from .venv import ensure_venv
from .venv import requirements
from .venv import venv_dir

DB = 'keystone'                         # database, and its owner role


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
        forget_admin_token()
        _, body = password_token('admin', admin_password(), project='admin')
        (self.base / ADMIN_PROJECT_FILE).write_text(
            body['project']['id'] + '\n')
        identity.basics()
