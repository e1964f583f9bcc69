"""Mistral (from PyPI), with this checkout's actions.

One ``mistral-server --server api,engine,executor,notifier`` (a master
that forks one process per component, oslo.service; ``all`` would add
event-engine and periodic, which serve event and cron triggers, unused
here) on the rabbitmq and postgres services: the RPC between the
components needs the real broker, and ``mistral-db-manage upgrade head``
a real database.  The API listens on 127.0.0.1:18989.  With Keystone, auth
is on ([keystone_authtoken]: the service user mistral, which our actions'
trusts name as trustee), executions belong to the caller's project and
the caller's token, identity and catalog reach an action as
``context.security``; catalog entry ``workflowv2``.  Without Keystone
(LOOPBACK_KEYSTONE=0) auth is off: the X-Auth-Token / X-Project-Id
headers of a request reach an action as ``context.security.auth_token``
/ ``project_id``, while every execution is stored under the project
``<default-project>``.

The venv also holds this checkout, installed editable with its
``mistral`` extra: the actions load from the ``mistral.actions`` entry
point when the server starts.  Entry points live in the egg-info, so the
editable install is redone whenever setup.cfg changes, and ``start``
restarts a running server when the package's files (or the configuration)
changed since it started.  Log: <state>/mistral/mistral-server.log.

config-download's Ansible is a venv of its own (``config-ansible``:
ansible-core 2.14, which tripleo-ansible's strategy plugins need, beside
Mistral's 2.19): ``[tripleoplan] config_ansible_playbook`` names its
ansible-playbook and ``config_skip_tags`` the tags of the THT playbooks
this host cannot run (CONFIG_SKIP_TAGS).  Beside tripleo-ansible's
modules it gets a stand-in for ansible-pacemaker's pacemaker_resource
(config_ansible/), without which THT's update playbook does not load.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
import shlex
import subprocess
import time

from . import heat
from . import identity
from . import ironic
from . import keystone
from . import postgres
from . import process
from . import rabbitmq
from . import sshd
from . import swift
from .common import env_port
from .common import HOST
from .common import http_get
from .common import log_since
from .common import log_size
from .common import LoopbackError
from .common import PACKAGE
from .common import render
from .common import REPO
from .common import say
from .common import write_if_changed
from .service import Service
from .state import started
from .state import state_dir
from .venv import ensure_venv
from .venv import pip_install
from .venv import requirements
from .venv import venv_dir

# The components run: event-engine (event triggers) and periodic (cron
# triggers, disabled in mistral.conf) are not used by this project.
SERVERS = 'api,engine,executor,notifier'
DB = 'mistral'                          # database, and its owner role
# Tags of tripleo-heat-templates 18.0.0's config-download playbooks whose
# tasks need what the loopback's servers lack (root, a container
# runtime, puppet, packages, systemd units): measured and explained by
# tools/tht-config-run.sh and doc/source/contributor/loopback.rst.
CONFIG_SKIP_TAGS = (
    # plays and tasks without a tag: SELinux, /etc/hosts, the update's
    # and post-upgrade's pacemaker and podman tasks (root)
    'untagged',
    'common_roles',      # tripleo_bootstrap: packages, /var/lib (root)
    'pre_deploy_steps',  # hieradata in /etc/puppet, os-net-config (root)
    'host_prep_steps',   # firewall, kernel, tuned (root; RHEL only)
    'deploy_steps',      # the services' steps: puppet, podman, systemd
    'upgrade_steps',     # pacemaker, podman, dnf
    # the same steps' tasks inline in the update's plays
    'host_config', 'container_config', 'container_config_tasks',
    'container_startup_configs', 'container_config_scripts',
    'external',          # the undercloud's: Neutron, the overcloud's APIs
)
CONFIG_VENV = 'config-ansible'
# files of the checkout the editable install depends on (entry points,
# extras); a change means `pip install -e` again
PACKAGE_METADATA = ('setup.cfg', 'setup.py', 'pyproject.toml')
# logged by each component once its RPC server listens (mistral.service.base)
STARTED = ('Engine server started.', 'Executor server started.',
           'Notification server started.')


def url(path: str = '') -> str:
    return 'http://%s:%d/v2%s' % (
        HOST, env_port('LOOPBACK_MISTRAL_PORT', 18989), path)


def api_ready() -> bool:
    try:
        headers = ({'X-Auth-Token': keystone.admin_token()}
                   if keystone.enabled() else {})
        status, _ = http_get(url('/workflows'), timeout=5, headers=headers)
    except (OSError, LoopbackError):
        return False
    return status == 200


def package_metadata_stamp() -> str:
    h = hashlib.sha256(str(REPO).encode())
    for name in PACKAGE_METADATA:
        path = REPO / name
        if path.exists():
            h.update(b'\0' + name.encode() + b'\0' + path.read_bytes())
    return h.hexdigest()


def package_code_stamp() -> str:
    """Changes when a file of the package (or its metadata) changes."""
    h = hashlib.sha256(package_metadata_stamp().encode())
    package = REPO / 'tripleoplanclient'
    for path in sorted(package.rglob('*')):
        if '__pycache__' in path.parts or not path.is_file():
            continue
        st = path.stat()
        h.update(('%s %d %d\n' % (path.relative_to(package), st.st_size,
                                  st.st_mtime_ns)).encode())
    return h.hexdigest()


def install_config_ansible() -> Path:
    """config-download's Ansible: the venv, and the stand-in module."""
    venv = ensure_venv(CONFIG_VENV, 'ansible.release, '
                       'ansible_collections.ansible.posix')
    # where a real undercloud's ansible-pacemaker RPM puts it
    write_if_changed(venv / 'share' / 'ansible' / 'plugins' / 'modules' /
                     'pacemaker_resource.py', (
                         PACKAGE / 'config_ansible' /
                         'pacemaker_resource.py').read_text())
    return venv


class Mistral(Service):
    name = 'mistral'

    @property
    def requires(self) -> tuple[str, ...]:
        return ('keystone',) * keystone.enabled() + ('rabbitmq', 'postgres')
    port_variables = 'LOOPBACK_MISTRAL_PORT'
    unhealthy = 'the API does not answer'
    stamped = 'tripleoplanclient or the configuration'
    conf_file = 'mistral.conf'

    def location(self) -> str:
        return 'at %s' % url()

    def cloud(self) -> dict:
        if keystone.enabled():
            return {}           # the catalog
        # workflowv2: the service type python-mistralclient's OSC commands
        # (openstack workflow ...) look up
        return {'workflow_endpoint_override': url(),
                'workflowv2_endpoint_override': url()}

    def env(self) -> dict[str, str]:
        return {'LOOPBACK_MISTRAL_URL': url(),
                'LOOPBACK_MISTRAL_LOG': str(self.logs()['server'])}

    def logs(self) -> dict[str, Path]:
        return {'server': self.base / 'mistral-server.log',
                'db-manage': self.base / 'mistral-db-manage.log'}

    def pidnames(self) -> list[str]:
        return ['mistral-server']

    def ports(self) -> dict[str, int]:
        return {'api': env_port('LOOPBACK_MISTRAL_PORT', 18989)}

    def healthy(self) -> bool:
        return api_ready()

    def command(self) -> list[str]:
        return [str(venv_dir('mistral') / 'bin' / 'mistral-server'),
                '--config-file', str(self.conf), '--server', SERVERS]

    def configs(self) -> dict[str, str]:
        # Our actions call the endpoints of the caller's catalog and these:
        # without Keystone the loopback Swift, Heat and Ironic; with or
        # without, any Swift LOOPBACK_MISTRAL_EXTRA_SWIFT_URLS adds
        # (comma-separated; the tests' three-replica Swift: no auth).
        extra = os.environ.get('LOOPBACK_MISTRAL_EXTRA_SWIFT_URLS', '')
        swift_urls = [u for u in extra.split(',') if u]
        heat_urls, ironic_urls = [], []
        # the plans whose validations may reach sshd: the admin
        # project's (any without Keystone)
        project = '*'
        if keystone.enabled():
            auth = render('mistral/keystone.conf', authtoken=keystone.ini(
                keystone.authtoken('mistral')))
            if 'sshd' in started():
                project = identity.find('projects', 'admin')['id']
        else:
            auth = render('mistral/noauth.conf')
            swift_urls.insert(0, swift.url('/v1/' + swift.ACCOUNT))
            heat_urls.append(heat.url())
            ironic_urls.append(ironic.url())
        return {'mistral.conf': render(
            'mistral/mistral.conf', transport_url=rabbitmq.transport_url(),
            log=self.logs()['server'], host=HOST,
            port=self.ports()['api'],
            db_url=postgres.database_url(DB),
            swift_urls=','.join(swift_urls), heat_urls=','.join(heat_urls),
            ironic_urls=','.join(ironic_urls), hidden_paths=state_dir(),
            config_ansible_playbook=venv_dir(CONFIG_VENV) / 'bin' /
            'ansible-playbook', config_skip_tags=','.join(CONFIG_SKIP_TAGS),
            ssh=sshd.validation_settings(project), auth=auth)}

    def run_stamp(self, files: dict[str, str]) -> str:
        # the package's files, the configuration and the command
        return hashlib.sha256(json.dumps(
            [package_code_stamp(), files['mistral.conf'], self.command()]
        ).encode()).hexdigest()

    def install(self) -> None:
        venv = ensure_venv('mistral', 'mistral.version, psycopg2')
        self.install_package(venv)
        install_config_ansible()

    def prepare(self, clean: bool) -> None:
        if clean:
            say('mistral: dropping database %s' % DB)
            postgres.drop_database(DB)
        postgres.ensure_database(DB)
        if keystone.enabled():
            identity.service_user('mistral')
            identity.register('workflowv2', 'mistral', url())

    def configure(self, files: dict[str, str]) -> None:
        super().configure(files)
        self.sync_db()

    def launch(self) -> None:
        log = self.logs()['server']
        offset = log_size(log)
        process.spawn('mistral-server', self.command(), log, self.base,
                      stop_timeout=20.0)
        # the API answering is not enough: an execution started before the
        # engine consumes its queue waits for the RPC timeout (60 s)
        process.wait_until(
            'mistral', 'the engine, executor and notifier did not report '
            '"started"', lambda: all(line in log_since(log, offset)
                                     for line in STARTED),
            {'mistral-server': log}, 120)
        process.wait_until('mistral', 'GET %s gave no 200' % url(
            '/workflows'), api_ready, {'mistral-server': log}, 120)

    def install_package(self, venv: Path) -> None:
        """This checkout, editable, with its mistral extra, in Mistral's
        venv; again only when the package metadata (or the checkout)
        changed."""
        python = venv / 'bin' / 'python'
        marker = venv / '.loopback-tripleoplanclient'
        wanted = package_metadata_stamp()
        if marker.exists() and marker.read_text().strip() == wanted:
            check = subprocess.run(
                [str(python), '-c', 'import tripleoplanclient.mistral.'
                 'plan_actions as m; print(m.__file__)'],
                capture_output=True, text=True)
            if check.returncode == 0 and Path(
                    check.stdout.strip()).is_relative_to(REPO):
                return
        started = time.monotonic()
        marker.unlink(missing_ok=True)
        say('mistral: pip install -e "%s[mistral]"' % REPO)
        cmd = pip_install(venv, 'mistral') + [
            '--no-build-isolation', '-e', '%s[mistral]' % REPO]
        if subprocess.run(cmd).returncode != 0:
            raise LoopbackError('mistral: pip install failed: %s' % ' '.join(
                shlex.quote(c) for c in cmd))
        marker.write_text(wanted + '\n')
        say('mistral: tripleoplanclient installed in %.1f s' % (
            time.monotonic() - started))

    def sync_db(self) -> None:
        """Schema and the preinstalled workflows/actions, when the database
        is new (or Mistral or the cluster changed)."""
        db_stamp = self.base / 'db.stamp'

        def stamp() -> str:
            return json.dumps([requirements('mistral'), postgres.cluster_id(),
                               postgres.alembic_version(DB)])
        if db_stamp.exists() and db_stamp.read_text() == stamp():
            return
        started = time.monotonic()
        for args in (['upgrade', 'head'], ['populate']):
            process.run('mistral', 'mistral-db-manage %s' % ' '.join(args),
                        [str(venv_dir('mistral') / 'bin' /
                             'mistral-db-manage'),
                         '--config-file', str(self.conf)] + args,
                        self.logs()['db-manage'], self.base)
        db_stamp.write_text(stamp())
        say('mistral: database schema and std workflows ready in %.1f s' % (
            time.monotonic() - started))
