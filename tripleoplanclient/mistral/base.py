"""What every Mistral action of ours shares: the request-reading base
class (``PlanAction``), the plan store, Swift and Heat as the caller, the
workflow execution an action runs in, and the protocol version action.

Each action takes the one ``request`` its workflow passes, or the client
when it runs the action on its own (``protocol`` defines them).
Endpoints: only those ``endpoints`` allows, never a URL from the
request. Each acts as its caller, with the caller's token or, for a
follow task, a trust (``follow_trust``).
"""

import getpass
import logging
import threading

from mistral_lib import actions

from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import auth
from tripleoplanclient.mistral import endpoints
from tripleoplanclient import protocol

LOG = logging.getLogger(__name__)


def plan_store(context, url, session=None):
    """The plan store at ``url`` (an allowed endpoint) as the caller: with
    its token, or on ``session`` (a trust)."""
    from swiftclient import client as swift_client

    from tripleoplanclient.record import plan_store as plan_store_mod

    caller = auth.Caller(context)
    local = threading.local()

    def connect():
        if not hasattr(local, 'conn'):
            if session is not None:
                local.conn = swift_client.Connection(
                    session=session, retries=2,
                    os_options={'object_storage_url': url})
            else:
                local.conn = swift_client.Connection(
                    preauthurl=url, preauthtoken=caller.token or 'none',
                    retries=2)
        return local.conn

    def actor():
        # The user Keystone validated; without Keystone (auth off) only
        # the login name this service runs as is known.
        return caller.actor() or {'user': _login()}

    return plan_store_mod.PlanStore(connect, progress=LOG.info, actor=actor)


def _login():
    try:
        return getpass.getuser()
    except Exception:  # no login name in some containers
        return 'unknown'


class Version(actions.Action):
    """The protocol these actions speak, for the client's check."""

    def run(self, context):
        return {'protocol': protocol.PROTOCOL}


class PlanAction(actions.Action):
    """Reads its request, runs, and turns a CommandError into a failure."""

    # the request it reads: protocol.WORKFLOWS or protocol.ACTIONS
    request_name = None

    def __init__(self, request):
        self.request = request

    def run(self, context):
        container = (self.request or {}).get('container')
        try:
            return self.do(context, protocol.read(self.request_name,
                                                  self.request))
        except exceptions.CommandError as exc:
            LOG.warning('%s of plan %s failed: %s', self.request_name,
                        container, exc)
            return actions.Result(error=str(exc))


def workflow_execution(context):
    """The id of the workflow execution running this action; None when
    the action runs on its own."""
    return getattr(getattr(context, 'execution', None),
                   'workflow_execution_id', None)


def heat_client(context, req, session=None):
    """Heat at the request's (allowed) endpoint, as the caller (its token,
    or ``session``); both endpoints of ``req`` resolved."""
    from heatclient import client as heat_api

    req['heat_url'] = endpoints.choose(context, req['heat_url'],
                                       'orchestration')
    req['swift_url'] = endpoints.choose(context, req['swift_url'],
                                        'object-store')
    if session is not None:
        return heat_api.Client('1', session=session,
                               endpoint_override=req['heat_url'])
    return heat_api.Client('1', endpoint=req['heat_url'],
                           token=auth.Caller(context).token or 'none')
