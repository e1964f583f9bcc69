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


def _swift_url(context, swift_url):
    if swift_url:
        return swift_url
    security = getattr(context, 'security', None)
    for service in getattr(security, 'service_catalog', None) or []:
        if service.get('type') == 'object-store':
            for endpoint in service.get('endpoints', []):
                if endpoint.get('interface', 'public') == 'public':
                    return endpoint.get('url') or endpoint.get('publicURL')
    raise errors.CommandError(
        'No Swift endpoint: pass swift_url or run Mistral with Keystone.')


def plan_store(context, swift_url):
    from swiftclient import client as swift_client

    from tripleoplanclient import plan_store as store_mod

    url = _swift_url(context, swift_url)
    token = getattr(getattr(context, 'security', None), 'auth_token', None)
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
