"""Mistral actions of the fleet after the deploy: manage and manual
cleaning (``nodes.cleaning``: the start task checks the nodes and the
configuration, asks Ironic, and opens a trust for its follow task, one
listing a round), and discovery
(``node_discovery``, its body).
"""

from tripleoplanclient.mistral import base
from tripleoplanclient.mistral import follow_trust
from tripleoplanclient.mistral import node_access
from tripleoplanclient.mistral import node_actions


class _Start(base.PlanAction):

    def do(self, context, req):
        ironic_ = node_access.ironic(context, req)
        nodes = self.select(ironic_, req)
        return follow_trust.start(
            context, base.workflow_execution(context), req['timeout'] / 60.0,
            lambda: self.start(ironic_, nodes, req), bool(nodes))


class ManageNodes(_Start):
    """Make nodes manageable."""

    request_name = 'node_manage'

    def select(self, ironic_, req):
        from tripleoplanclient.nodes import cleaning
        return cleaning.select_manage(ironic_, req['nodes'] or [],
                                      req['all_state'])

    def start(self, ironic_, nodes, req):
        from tripleoplanclient.nodes import cleaning
        return cleaning.start_manage(ironic_, nodes, req['timeout'])


class FollowManage(node_actions.NodeFollow):
    request_name = 'node_manage'

    def look(self, ironic_, started):
        from tripleoplanclient.nodes import cleaning
        return cleaning.follow(ironic_, started)


class CleanNodes(_Start):
    """Clean manageable nodes with an operation's clean steps."""

    request_name = 'node_clean'

    def select(self, ironic_, req):
        from tripleoplanclient.nodes import cleaning
        from tripleoplanclient.nodes import states
        # the configuration first: nothing asked of Ironic when it is wrong
        cleaning.clean_steps(req['operation'], req['configuration'])
        return states.select(ironic_, req['nodes'] or [],
                             req['all_manageable'], 'clean')

    def start(self, ironic_, nodes, req):
        from tripleoplanclient.nodes import cleaning
        return cleaning.start_clean(
            ironic_, nodes, req['operation'], req['configuration'],
            req['provide'], req['timeout'])


class FollowClean(node_actions.NodeFollow):
    request_name = 'node_clean'

    def look(self, ironic_, started):
        from tripleoplanclient.nodes import cleaning
        return cleaning.follow(ironic_, started)


class DiscoverNodes(base.PlanAction):
    """Probe for Redfish BMCs, then register the systems found."""

    request_name = 'node_discover'

    def do(self, context, req):
        from tripleoplanclient.mistral import node_discovery
        return node_discovery.discover(
            lambda: node_access.ironic(context, req), req, context)
