"""Mistral actions of tripleoplanclient (run inside Mistral's executor).

Each takes the one ``request`` its workflow passes, or the client when it
runs the action on its own (``protocol`` defines them). Endpoints: only
those ``endpoints`` allows, never a URL from the request. Each acts as its
caller, with the caller's token or, for the follow task, a trust
(``follow_trust``).
"""

import getpass
import logging
import threading

from mistral_lib import actions

from tripleoplanclient import protocol
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import auth
from tripleoplanclient.mistral import endpoints
from tripleoplanclient.mistral import follow_trust

LOG = logging.getLogger(__name__)


def plan_store(context, url, session=None):
    """The plan store at ``url`` (an allowed endpoint) as the caller: with
    its token, or on ``session`` (a trust)."""
    from swiftclient import client as swift_client

    from tripleoplanclient.record import plan_store

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

    return plan_store.PlanStore(connect, progress=LOG.info, actor=actor)


def _login():
    try:
        return getpass.getuser()
    except Exception:  # no login name in some containers
        return 'unknown'


class Version(actions.Action):
    """The protocol these actions speak, for the client's check."""

    def run(self, context):
        return {'protocol': protocol.PROTOCOL}


class _PlanAction(actions.Action):
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


class RenderPlan(_PlanAction):
    """Render the plan's jinja2 templates in place in Swift."""

    request_name = 'render'

    def do(self, context, req):
        from tripleoplanclient.mistral import objects
        from tripleoplanclient.mistral import render
        url = endpoints.choose(context, req['swift_url'], 'object-store')
        return render.render_plan(
            plan_store(context, url), req['container'],
            {'roles_data': req['roles_data'],
             'network_data': req['network_data']}, tree=req['tree'],
            cache=objects.CACHE.scoped(url, req['container']))


def _workflow_execution(context):
    """The id of the workflow execution running this action; None when
    the action runs on its own."""
    return getattr(getattr(context, 'execution', None),
                   'workflow_execution_id', None)


def _services(context, req):
    """``(heat or None, store)`` as the caller: Heat when the request
    names one (both endpoints resolved), the plan store at its Swift."""
    if 'heat_url' in req:
        heat = _heat(context, req)
    else:
        heat, req['swift_url'] = None, endpoints.choose(
            context, req['swift_url'], 'object-store')
    return heat, plan_store(context, req['swift_url'])


def _heat(context, req, session=None):
    """Heat at the request's (allowed) endpoint, as the caller (its token,
    or ``session``); both endpoints of ``req`` resolved."""
    from heatclient import client as heat_client

    req['heat_url'] = endpoints.choose(context, req['heat_url'],
                                       'orchestration')
    req['swift_url'] = endpoints.choose(context, req['swift_url'],
                                        'object-store')
    if session is not None:
        return heat_client.Client('1', session=session,
                                  endpoint_override=req['heat_url'])
    return heat_client.Client('1', endpoint=req['heat_url'],
                              token=auth.Caller(context).token or 'none')


class DeployPlan(_PlanAction):
    """Record a deploy, update or upgrade step, then create or update the
    plan's Heat stack from it (``mistral.stack_step``).

    Returns at once when Heat accepted the operation; the follow task
    records its end (unless a client following the events did).
    """

    request_name = 'deploy'

    def do(self, context, req):
        from tripleoplanclient.mistral import objects
        from tripleoplanclient.mistral import stack_step
        heat = _heat(context, req)
        execution = _workflow_execution(context)
        # the stack may outlast the caller's token: its follow task works
        # on a trust (the deploy request's timeout is in minutes)
        return follow_trust.start(
            context, execution, req['timeout'], lambda: stack_step.run(
                plan_store(context, req['swift_url']), heat, req,
                objects.CACHE.scoped(req['swift_url'], req['container']),
                execution))


class PreviewStack(_PlanAction):
    """Heat's preview of the plan's stack operation, with the changes a
    step would make on top of the plan (``mistral.preview``).

    The client runs it on its own, synchronously, its execution not saved
    (``executions.Workflows.preview``): the request may carry secrets.
    Writes nothing.
    """

    request_name = 'preview'

    def do(self, context, req):
        from tripleoplanclient.mistral import objects
        from tripleoplanclient.mistral import preview
        heat = _heat(context, req)
        return preview.preview(
            plan_store(context, req['swift_url']), heat, req,
            cache=objects.CACHE.scoped(req['swift_url'], req['container']))


class FollowStack(_PlanAction):
    """Follow the stack the deploy task started; record its outcome.

    Run again by the workflow every few seconds while it answers
    ``{'done': False}``: each run is one look at Heat, so no executor
    thread is held for hours.
    """

    request_name = 'deploy'

    def __init__(self, request, started=None):
        super().__init__(request)
        self.started = started

    def do(self, context, req):
        from tripleoplanclient.mistral import follow
        if not self.started or not follow.recorded_step(req, self.started):
            return {'done': True}

        def look(session):
            heat = _heat(context, req, session)
            return follow.follow(plan_store(context, req['swift_url'],
                                            session), heat, req, self.started)

        return follow_trust.follow(context, _workflow_execution(context),
                                   self.started, look)


class _LibraryAction(_PlanAction):
    """One of the deployment library's operations (``mistral.library``,
    ``mistral.settings``): the plan as its newest step recorded it, read
    (and written) as the caller."""

    def do(self, context, req):
        from tripleoplanclient.mistral import library
        from tripleoplanclient.mistral import objects
        heat, store = _services(context, req)
        plan = library.Plan(store, req, objects.CACHE.scoped(
            req['swift_url'], req['container']))
        self.execution = _workflow_execution(context)
        return self.act(store, plan, heat, req)


class Capabilities(_LibraryAction):
    """The plan's capabilities (topics, groups, environments, which are
    enabled, their constraints)."""

    request_name = 'capabilities'

    def act(self, store, plan, heat, req):
        from tripleoplanclient.mistral import library
        return library.capabilities(plan)


class SetCapabilities(_LibraryAction):
    """Enable and disable environment files of the plan's capabilities:
    a recorded step, refused when it breaks a constraint."""

    request_name = 'capabilities_set'

    def act(self, store, plan, heat, req):
        from tripleoplanclient.mistral import settings
        return settings.set_capabilities(store, plan, req)


class Roles(_LibraryAction):
    """The plan's roles and those its templates offer."""

    request_name = 'roles'

    def act(self, store, plan, heat, req):
        from tripleoplanclient.mistral import library
        return library.roles(plan, req['name'])


class Parameters(_LibraryAction):
    """Every parameter of the assembled plan, from Heat's validation."""

    request_name = 'parameters'

    def act(self, store, plan, heat, req):
        from tripleoplanclient.mistral import library
        return library.parameters(plan, heat, req)


class SetParameters(_LibraryAction):
    """Give parameters values, checked against Heat's types and
    constraints: a recorded step in the plan's parameters file."""

    request_name = 'parameters_set'

    def act(self, store, plan, heat, req):
        from tripleoplanclient.mistral import settings
        return settings.set_parameters(store, plan, heat, req,
                                       execution=self.execution)


class Validate(_LibraryAction):
    """Every problem the plan has before a deploy."""

    request_name = 'validate'

    def act(self, store, plan, heat, req):
        from tripleoplanclient.mistral import library
        return library.validate(plan, heat, req)


class _LifecycleAction(_PlanAction):
    """One of the plan's life-cycle operations (``mistral.lifecycle``),
    as the caller."""

    def do(self, context, req):
        from tripleoplanclient.mistral import lifecycle
        from tripleoplanclient.mistral import objects
        heat, store = _services(context, req)
        cache = objects.CACHE.scoped(req['swift_url'],
                                     req.get('container') or '')
        self.execution = _workflow_execution(context)
        return self.act(lifecycle, store, heat, req, cache)


class CreatePlan(_LifecycleAction):
    """Record the creation of a plan whose files are in its container."""

    request_name = 'plan_create'

    def act(self, lifecycle, store, heat, req, cache):
        return lifecycle.create(store, req, cache, self.execution)


class AmendPlan(_LifecycleAction):
    """Record a change of the plan (its files written already)."""

    request_name = 'plan_amend'

    def act(self, lifecycle, store, heat, req, cache):
        return lifecycle.amend(store, req, cache, self.execution)


class RestorePlan(_LifecycleAction):
    """Make the plan what it was after a past step (``mistral.restore``)."""

    request_name = 'plan_restore'

    def act(self, lifecycle, store, heat, req, cache):
        from tripleoplanclient.mistral import restore
        return restore.restore(store, heat, req)


class ListPlans(_LifecycleAction):
    """Every plan of the caller's project."""

    request_name = 'plan_list'

    def act(self, lifecycle, store, heat, req, cache):
        return lifecycle.plans(store)


class DeletePlan(_LifecycleAction):
    """Delete plans; refused while a stack of one's name exists."""

    request_name = 'plan_delete'

    def act(self, lifecycle, store, heat, req, cache):
        return lifecycle.delete(store, heat, req)
