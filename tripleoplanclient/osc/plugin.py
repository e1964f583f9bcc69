"""OpenStackClient plugin hooks for tripleoplanclient.

Every ``openstack`` run imports this module, so it imports only the
standard library and osc-lib; the service client libraries are imported
the first time a command asks for them.
"""

import logging
import os
import threading

from osc_lib import exceptions

LOG = logging.getLogger(__name__)

DEFAULT_API_VERSION = '1'
API_VERSION_OPTION = 'os_tripleoplan_api_version'
API_NAME = 'tripleoplan'
API_VERSIONS = {'1': 'tripleoplanclient.osc.plugin.ClientWrapper'}


def make_client(instance):
    """The lazy client wrapper, cached as ``client_manager.tripleoplan``."""
    return ClientWrapper(instance)


def build_option_parser(parser):
    parser.add_argument(
        '--os-tripleoplan-api-version',
        metavar='<tripleoplan-api-version>',
        default=os.environ.get('OS_TRIPLEOPLAN_API_VERSION'),
        help='tripleoplan API version, default=%s '
             '(Env: OS_TRIPLEOPLAN_API_VERSION)' % DEFAULT_API_VERSION)
    # Read by tripleoplanclient.osc.shared; clouds.yaml:
    # tripleoplan_shared_commands.
    parser.add_argument(
        '--os-tripleoplan-shared-commands',
        metavar='<api>',
        default=os.environ.get('OS_TRIPLEOPLAN_SHARED_COMMANDS'),
        help='Which plugin runs a command name that another plugin '
             'registers too, e.g. "overcloud deploy": tripleoplan '
             '(default) or tripleoclient '
             '(Env: OS_TRIPLEOPLAN_SHARED_COMMANDS)')
    return parser


class ClientWrapper:
    """Builds service clients from osc-lib's keystoneauth session on demand."""

    def __init__(self, instance):
        self._instance = instance
        self._local = threading.local()

    def endpoint(self, service_type):
        """The endpoint of ``service_type``, or None when none is configured.

        clouds.yaml ``<service>_endpoint_override`` keys win over the catalog.
        """
        try:
            return self._instance.get_endpoint_for_service_type(
                service_type,
                region_name=self._instance.region_name,
                interface=self._instance.interface)
        except Exception as exc:  # keystoneauth's EndpointNotFound and kin
            LOG.debug('no %s endpoint: %s', service_type, exc)
            return None

    def actor(self):
        """``{'user', 'project'}`` names of the Keystone token the commands
        act with, for the record; None without Keystone (auth_type none or
        admin_token: nobody is known)."""
        if not hasattr(self._local, 'actor'):
            session = self._instance.session
            get_access = getattr(session.auth, 'get_access', None)
            access = get_access(session) if get_access else None
            name = getattr(access, 'username', None)
            self._local.actor = {
                'user': name, 'project': access.project_name or
                access.domain_name or ''} if name else None
            self._local.user_id = getattr(access, 'user_id', None)
        return self._local.actor

    def user_id(self):
        """The Keystone user id of that token (ids, unlike names, are not
        shared across domains); None without Keystone."""
        self.actor()
        return self._local.user_id

    def object_store(self):
        """A python-swiftclient Connection for the calling thread.

        swiftclient connections are not thread-safe; concurrent uploads get
        one connection per worker thread, all sharing one session.
        """
        conn = getattr(self._local, 'swift', None)
        if conn is None:
            url = self.endpoint('object-store')
            if not url:
                raise exceptions.CommandError(
                    'No object-store (Swift) endpoint: add one to the service '
                    'catalog or set object_store_endpoint_override in '
                    'clouds.yaml.')
            from swiftclient import client as swift_client
            conn = swift_client.Connection(
                session=self._instance.session,
                os_options={'object_storage_url': url},
                retries=2, timeout=120)
            self._local.swift = conn
        return conn

    def workflow_engine(self):
        """``(python-mistralclient v2 client, url)``, or ``(None, None)``."""
        url = self.endpoint('workflow') or self.endpoint('workflowv2')
        if not url:
            return None, None
        from mistralclient.api import client as mistral_client
        return mistral_client.client(session=self._instance.session,
                                     mistral_url=url), url

    def orchestration(self):
        """A python-heatclient client, or None when no Heat is configured."""
        url = self.endpoint('orchestration')
        if not url:
            return None
        from heatclient import client as heat_client
        return heat_client.Client('1', session=self._instance.session,
                                  endpoint_override=url)
