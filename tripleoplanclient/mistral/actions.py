"""Mistral actions of tripleoplanclient (run inside Mistral's executor).

Swift access: the endpoint comes from the ``swift_url`` input (the client
passes the object-store endpoint it uses itself), else from the service
catalog in the execution context; the token is the one the client sent to
Mistral (``context.security.auth_token``), so the action acts as the user.
"""

import logging
import threading

from mistral_lib import actions

from tripleoplanclient import errors
from tripleoplanclient import mistral as protocol

LOG = logging.getLogger(__name__)


def _endpoint(context, url, service_type, what):
    if url:
        return url
    security = getattr(context, 'security', None)
    for service in getattr(security, 'service_catalog', None) or []:
        if service.get('type') == service_type:
            for endpoint in service.get('endpoints', []):
                if endpoint.get('interface', 'public') == 'public':
                    return endpoint.get('url') or endpoint.get('publicURL')
    raise errors.CommandError(
        'No %s endpoint: pass %s or run Mistral with Keystone.'
        % (service_type, what))


def _token(context):
    return getattr(getattr(context, 'security', None), 'auth_token', None)


def plan_store(context, swift_url):
    from swiftclient import client as swift_client

    from tripleoplanclient import plan_store as store_mod

    url = _endpoint(context, swift_url, 'object-store', 'swift_url')
    token = _token(context)
    local = threading.local()

    def connect():
        if not hasattr(local, 'conn'):
            local.conn = swift_client.Connection(
                preauthurl=url, preauthtoken=token or 'none', retries=2)
        return local.conn

    return store_mod.PlanStore(connect, progress=LOG.info)


class _Action(actions.Action):

    def __init__(self, protocol=None):
        self.protocol = protocol

    def check_protocol(self):
        if self.protocol is not None and int(self.protocol) != \
                protocol.PROTOCOL:
            raise errors.CommandError(
                'The tripleoplan actions in this Mistral speak protocol %d, '
                'the client protocol %s: install the same tripleoplanclient '
                'version in Mistral\'s environment (pip install -U '
                '"tripleoplanclient[mistral]") and restart Mistral.'
                % (protocol.PROTOCOL, self.protocol))


class Version(_Action):
    """The protocol these actions speak, for the client's check."""

    def run(self, context):
        return {'protocol': protocol.PROTOCOL}


class RenderPlan(_Action):
    """Render the plan's jinja2 templates in place in Swift."""

    def __init__(self, container, swift_url=None, roles_data=None,
                 network_data=None, protocol=None):
        super().__init__(protocol)
        self.container = container
        self.swift_url = swift_url
        self.inputs = {'roles_data': roles_data,
                       'network_data': network_data}

    def run(self, context):
        from tripleoplanclient.mistral import render
        try:
            self.check_protocol()
            return render.render_plan(
                plan_store(context, self.swift_url), self.container,
                self.inputs)
        except errors.CommandError as exc:
            LOG.warning('render of plan %s failed: %s', self.container, exc)
            return actions.Result(error=str(exc))


class DeployPlan(_Action):
    """Create or update the plan's Heat stack from the plan in Swift.

    Returns at once when Heat accepted the operation; the client follows
    the stack's events itself.
    """

    def __init__(self, container, environments, swift_url=None,
                 heat_url=None, plan_environment=None, timeout=240,
                 unchanged=None, protocol=None):
        super().__init__(protocol)
        self.container = container
        self.environments = environments or []
        self.swift_url = swift_url
        self.heat_url = heat_url
        self.plan_environment = plan_environment
        self.timeout = timeout
        self.unchanged = unchanged

    def run(self, context):
        from heatclient import client as heat_client

        from tripleoplanclient.mistral import deploy
        try:
            self.check_protocol()
            heat_url = _endpoint(context, self.heat_url, 'orchestration',
                                 'heat_url')
            swift_url = _endpoint(context, self.swift_url, 'object-store',
                                  'swift_url')
            heat = heat_client.Client('1', endpoint=heat_url,
                                      token=_token(context) or 'none')
            return deploy.deploy(
                plan_store(context, swift_url), heat, heat_url, swift_url,
                self.container, self.environments, self.plan_environment,
                self.timeout, self.unchanged)
        except errors.CommandError as exc:
            LOG.warning('deploy of plan %s failed: %s', self.container, exc)
            return actions.Result(error=str(exc))
