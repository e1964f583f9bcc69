"""Mistral actions of the plans (``protocol.plans``): render, deploy and
its follow task, preview, the deployment library's reads and writes, and
the plan's life cycle.

Each reads its request with ``base.PlanAction`` and hands it to the body
module named for what it does (``render``, ``stack_step``, ``follow``,
``preview``, ``library``, ``settings``, ``lifecycle``, ``restore``).
"""

from tripleoplanclient.mistral import base
from tripleoplanclient.mistral import endpoints
from tripleoplanclient.mistral import follow_trust


class RenderPlan(base.PlanAction):
    """Render the plan's jinja2 templates in place in Swift."""

    request_name = 'render'

    def do(self, context, req):
        from tripleoplanclient.mistral import objects
        from tripleoplanclient.mistral import render
        url = endpoints.choose(context, req['swift_url'], 'object-store')
        return render.render_plan(
            base.plan_store(context, url), req['container'],
            {'roles_data': req['roles_data'],
             'network_data': req['network_data']}, tree=req['tree'],
            cache=objects.CACHE.scoped(url, req['container']))


def _services(context, req):
    """``(heat or None, store)`` as the caller: Heat when the request
    names one (both endpoints resolved), the plan store at its Swift."""
    if 'heat_url' in req:
        heat = base.heat_client(context, req)
    else:
        heat, req['swift_url'] = None, endpoints.choose(
            context, req['swift_url'], 'object-store')
    return heat, base.plan_store(context, req['swift_url'])


class DeployPlan(base.PlanAction):
    """Record a deploy, update or upgrade step, then create or update the
    plan's Heat stack from it (``mistral.stack_step``).

    Returns at once when Heat accepted the operation; the follow task
    records its end (unless a client following the events did).
    """

    request_name = 'deploy'

    def do(self, context, req):
        from tripleoplanclient.mistral import objects
        from tripleoplanclient.mistral import stack_step
        heat = base.heat_client(context, req)
        execution = base.workflow_execution(context)
        # the stack may outlast the caller's token: its follow task works
        # on a trust (the deploy request's timeouts are in minutes), and
        # so does the configure task after it
        minutes = int(req['timeout']) + (
            0 if req['config'] == 'none' else int(req['config_timeout']))
        return follow_trust.start(
            context, execution, minutes, lambda: stack_step.run(
                base.plan_store(context, req['swift_url']), heat, req,
                objects.CACHE.scoped(req['swift_url'], req['container']),
                execution))


class PreviewStack(base.PlanAction):
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
        heat = base.heat_client(context, req)
        return preview.preview(
            base.plan_store(context, req['swift_url']), heat, req,
            cache=objects.CACHE.scoped(req['swift_url'], req['container']))


class FollowStack(base.PlanAction):
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
            heat = base.heat_client(context, req, session)
            store = base.plan_store(context, req['swift_url'], session)
            return follow.follow(store, heat, req, self.started)

        return follow_trust.follow(
            context, base.workflow_execution(context), self.started, look)


class _LibraryAction(base.PlanAction):
    """One of the deployment library's operations (``mistral.library``,
    ``mistral.settings``): the plan as its newest step recorded it, read
    (and written) as the caller."""

    def do(self, context, req):
        from tripleoplanclient.mistral import library
        from tripleoplanclient.mistral import objects
        heat, store = _services(context, req)
        plan = library.Plan(store, req, objects.CACHE.scoped(
            req['swift_url'], req['container']))
        self.execution = base.workflow_execution(context)
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


class _LifecycleAction(base.PlanAction):
    """One of the plan's life-cycle operations (``mistral.lifecycle``),
    as the caller."""

    def do(self, context, req):
        from tripleoplanclient.mistral import lifecycle
        from tripleoplanclient.mistral import objects
        heat, store = _services(context, req)
        cache = objects.CACHE.scoped(req['swift_url'],
                                     req.get('container') or '')
        self.execution = base.workflow_execution(context)
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
