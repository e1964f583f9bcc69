"""Mistral actions of the node operations (``tripleoplanclient.nodes``).

Each calls Ironic at an endpoint ``endpoints`` allows (the caller's
catalog, or ``[tripleoplan] ironic_urls``), as the caller: its token, or
for a follow task a session the task was given.
"""

from tripleoplanclient.mistral import auth
from tripleoplanclient.mistral import base
from tripleoplanclient.mistral import endpoints
from tripleoplanclient.mistral import follow_trust
from tripleoplanclient.mistral import node_access


class _NodeAction(base.PlanAction):
    """Reads its request, calls ``act(ironic, req, context)``; a
    CommandError (IronicError, a caller without the admin role:
    ``node_access``) becomes the action's failure."""

    def do(self, context, req):
        return self.act(node_access.ironic(context, req), req, context)


def _on_trust(context, req, start, needed=True):
    """``start()``'s answer, with a trust for the follow task sealed into
    it (``follow_trust``: the caller's token may expire before the nodes
    end), for as long as the request's timeout (seconds)."""
    return follow_trust.start(context, base.workflow_execution(context),
                              req['timeout'] / 60.0, start, needed)


def _followed(context, started, look):
    """``look(session)``'s answer, on the trust sealed into ``started``
    (``follow_trust``)."""
    return follow_trust.follow(
        context, base.workflow_execution(context), started, look)


class _NodeStates(_NodeAction):
    """Starts a long node operation (``nodes.states``,
    ``nodes.inspection``): the nodes checked, then their first
    transition; the follow task sees each one to its end, on a trust
    opened now (the caller's token may expire first)."""

    def do(self, context, req):
        from tripleoplanclient.nodes import states
        ironic_ = node_access.ironic(context, req)
        nodes = states.select(ironic_, req['nodes'] or [],
                              req['all_manageable'], self.verb)
        return _on_trust(context, req, lambda: self.start(
            ironic_, nodes, req), needed=bool(nodes))


class NodeFollow(_NodeAction):
    """One look at the nodes a start task (_NodeStates, or
    ``fleet_actions``') started (``look``; run again by the workflow
    while it answers ``{'done': False}``)."""

    def __init__(self, request, started=None):
        super().__init__(request)
        self.started = started

    def do(self, context, req):
        if not self.started or not self.started.get('nodes'):
            return {'done': True, 'nodes': [], 'failed': 0}
        return _followed(context, self.started, lambda session: self.look(
            node_access.ironic(context, req, session), self.started))

    def look(self, ironic_, started):
        from tripleoplanclient.nodes import states
        return states.follow(ironic_, started)


class IntrospectNodes(_NodeStates):
    """Inspect manageable nodes, a bounded number at once, with a timeout
    and retries per node (then provide those that passed)."""

    request_name = 'node_introspect'
    verb = 'introspect'

    def do(self, context, req):
        from tripleoplanclient.nodes import inspection
        inspection.settings(req)        # refused before Ironic is asked
        return super().do(context, req)

    def start(self, ironic_, nodes, req):
        from tripleoplanclient.nodes import inspection
        return inspection.start(ironic_, nodes, req['provide'],
                                req['timeout'], inspection.settings(req))


class FollowIntrospection(NodeFollow):
    request_name = 'node_introspect'

    def look(self, ironic_, started):
        from tripleoplanclient.nodes import inspection
        return inspection.follow(ironic_, started)


class ProvideNodes(_NodeStates):
    """Power manageable nodes off and make them available."""

    request_name = 'node_provide'
    verb = 'provide'

    def start(self, ironic_, nodes, req):
        from tripleoplanclient.nodes import states
        return states.start_provide(ironic_, nodes, req['timeout'])


class FollowProvide(NodeFollow):
    request_name = 'node_provide'


class ConfigureNodes(_NodeAction):
    """Deploy kernel/ramdisk and root device hints (``nodes.configure``)."""

    request_name = 'node_configure'

    def act(self, ironic_, req, context):
        from tripleoplanclient.nodes import configure
        from tripleoplanclient.nodes import states
        configure.root_device_spec(req['root_device'])
        nodes = states.select(ironic_, req['nodes'] or [],
                              req['all_manageable'], 'configure',
                              states=None)
        return {'nodes': configure.configure(ironic_, nodes, req)}


class TagNodes(_NodeAction):
    """Give nodes a profile, or take it away (``nodes.profiles``)."""

    request_name = 'node_tag'

    def act(self, ironic_, req, context):
        from tripleoplanclient.nodes import profiles
        from tripleoplanclient.nodes import states
        profiles.check_profile(req['profile'])
        nodes = states.select(ironic_, req['nodes'], False, 'tag',
                              states=None)
        return {'nodes': profiles.tag(ironic_, nodes, req['profile'])}


class ListProfiles(_NodeAction):
    """Every node with its profiles (``nodes.profiles``)."""

    request_name = 'profiles_list'

    def act(self, ironic_, req, context):
        from tripleoplanclient.nodes import profiles
        return {'nodes': profiles.listing(ironic_, req['all'])}


class _ProvisionStart(_NodeAction):
    """Starts provisioning into a plan or releasing from it
    (``mistral.node_provision``): checked, allocated, Ironic asked; the
    follow task (on a trust opened now) records the plan's environment
    once the nodes rest."""

    def do(self, context, req):
        from tripleoplanclient.mistral import node_provision
        ironic_ = node_access.ironic(context, req)
        req['swift_url'] = endpoints.choose(context, req['swift_url'],
                                            'object-store')
        store = base.plan_store(context, req['swift_url'])
        return _on_trust(context, req, lambda: self.start(
            node_provision, ironic_, store, req, context))

    def start(self, node_provision, ironic_, store, req, context):
        return getattr(node_provision, self.verb)(ironic_, store, req)


class _ProvisionFollow(_NodeAction):
    """One look at the nodes the start task moved; at their end the
    plan's environment recorded (run again while ``{'done': False}``)."""

    def __init__(self, request, started=None):
        super().__init__(request)
        self.started = started

    def do(self, context, req):
        from tripleoplanclient.mistral import node_provision
        if not self.started:
            return {'done': True}
        req['swift_url'] = endpoints.choose(context, req['swift_url'],
                                            'object-store')
        return _followed(context, self.started, lambda session:
                         node_provision.follow(
                             node_access.ironic(context, req, session),
                             base.plan_store(context, req['swift_url'],
                                             session),
                             req, self.started, self.verb))


class ProvisionNodes(_ProvisionStart):
    """Allocate and deploy nodes for the roles of a baremetal deployment,
    recorded as the caller's project's (``nodes.provision``)."""

    request_name, verb = 'node_provision', 'provision'

    def start(self, node_provision, ironic_, store, req, context):
        return node_provision.provision(
            ironic_, store, req, auth.Caller(context).project_id)


class FollowProvision(_ProvisionFollow):
    """Follow the deploy; record the deployed-server environment."""

    request_name, verb = 'node_provision', 'provision'


class UnprovisionNodes(_ProvisionStart):
    """Undeploy nodes provisioned into a plan."""

    request_name, verb = 'node_unprovision', 'unprovision'


class FollowUnprovision(_ProvisionFollow):
    """Follow the undeploy; record the environment without them."""

    request_name, verb = 'node_unprovision', 'unprovision'


def scale_ironic(context, req, session=None):
    """Ironic for a scale down or a delete when the caller has one (or
    names one): the nodes provisioned into the plan; else None."""
    if not req['ironic_url'] and not auth.Caller(context).endpoints(
            'baremetal'):
        return None
    return node_access.ironic(context, req, session)


class DeleteNodes(base.PlanAction):
    """Resolve the servers to remove and write the plan's environment
    (``mistral.node_delete``); the deploy workflow records the update, on
    its own trust; the release task works on the trust opened here (the
    update may outlast the caller's token)."""

    request_name = 'node_delete'

    def do(self, context, req):
        from tripleoplanclient.mistral import node_delete
        req['swift_url'] = endpoints.choose(context, req['swift_url'],
                                            'object-store')
        heat = base.heat_client(context, req)
        store = base.plan_store(context, req['swift_url'])
        ironic_ = scale_ironic(context, req)
        minutes = int(req['timeout']) + int(req['config_timeout']) + 60
        return follow_trust.start(
            context, base.workflow_execution(context), minutes,
            lambda: node_delete.start(store, heat, ironic_, req))


class ReleaseDeleted(base.PlanAction):
    """Once the update ended: the removed servers' nodes released (run
    again while ``{'done': False}``)."""

    request_name = 'node_delete'

    def __init__(self, request, started=None, update=None):
        super().__init__(request)
        self.started = started
        self.update = update

    def do(self, context, req):
        from tripleoplanclient.mistral import node_delete
        if not self.started:
            return {'done': True, 'status': 'FAILED', 'released': []}
        req['swift_url'] = endpoints.choose(context, req['swift_url'],
                                            'object-store')
        return _followed(context, self.started, lambda session:
                         node_delete.release(
                             base.plan_store(context, req['swift_url'],
                                             session),
                             scale_ironic(context, req, session),
                             req, self.started, self.update))


class RegisterNodes(_NodeAction):
    """Register or update the nodes of a node file (``nodes.register``),
    given inline; BMC passwords only in a run Mistral keeps nothing of
    (``node_registration``)."""

    request_name = 'node_register'

    def act(self, ironic, req, context):
        from tripleoplanclient.mistral import node_registration
        return node_registration.register(ironic, req, context)
