"""Mistral actions of an overcloud's life as a whole
(``mistral.overcloud_delete``): Heat, Swift and, when the caller has
it, Ironic, as the caller; the follow task on a trust opened by the
start task (a delete may outlast the caller's token)."""

from tripleoplanclient.mistral import base
from tripleoplanclient.mistral import follow_trust
from tripleoplanclient.mistral import node_actions


class DeleteOvercloud(base.PlanAction):
    """Ask Heat to delete the plan's stack."""

    request_name = 'overcloud_delete'

    def do(self, context, req):
        from tripleoplanclient.mistral import overcloud_delete
        heat = base.heat_client(context, req)
        store = base.plan_store(context, req['swift_url'])
        ironic = node_actions.scale_ironic(context, req) \
            if req['unprovision'] else None
        return follow_trust.start(
            context, base.workflow_execution(context),
            int(req['timeout']) + 30, lambda: overcloud_delete.start(
                store, heat, ironic, req))


class FollowDelete(base.PlanAction):
    """One look at the delete (run again while ``{'done': False}``)."""

    request_name = 'overcloud_delete'

    def __init__(self, request, started=None):
        super().__init__(request)
        self.started = started

    def do(self, context, req):
        from tripleoplanclient.mistral import overcloud_delete
        if not self.started:
            return {'done': True, 'status': 'FAILED'}

        def look(session):
            heat = base.heat_client(context, req, session)
            store = base.plan_store(context, req['swift_url'], session)
            ironic = node_actions.scale_ironic(context, req, session) \
                if self.started.get('nodes') else None
            return overcloud_delete.follow(store, heat, ironic, req,
                                           self.started)

        return follow_trust.follow(
            context, base.workflow_execution(context), self.started, look)
