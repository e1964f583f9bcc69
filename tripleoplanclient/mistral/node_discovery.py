"""The ``tripleoplan.node_discover`` action (``nodes.discovery``): probe
addresses for Redfish BMCs and register what answered, in the
executor (the BMC network is the undercloud's).

The credentials come inline, passwords included, so only in a run
Mistral keeps nothing of (``node_registration.input_saved``): the client
runs the action on its own, synchronously and unsaved, as node_register.
"""

import time

from tripleoplanclient.mistral import base
from tripleoplanclient.mistral import node_access


class DiscoverNodes(base.PlanAction):
    """Probe, then register (``nodes.register``) the systems found."""

    request_name = 'node_discover'

    def do(self, context, req):
        from tripleoplanclient.common import exceptions
        from tripleoplanclient.mistral import node_registration
        from tripleoplanclient.nodes import discovery
        from tripleoplanclient.nodes import nodes_json
        from tripleoplanclient.nodes import register

        if node_registration.input_saved(context):
            raise exceptions.CommandError(
                'node_discover takes BMC passwords: run it on its own, '
                'unsaved (POST /v2/action_executions, params run_sync true, '
                'save_result false), as "openstack overcloud node discover" '
                'does. Nothing was probed.')
        discovery.check(req['addresses'], req['ports'], req['credentials'])
        ironic_ = node_access.ironic(context, req)
        # the probes and the registration share the request's timeout
        deadline = time.monotonic() + (register.MANAGE_TIMEOUT if req[
            'timeout'] is None else req['timeout'])

        def enroll(entries):
            return register.register(ironic_, nodes_json.read(
                entries, 'The discovered BMCs'), timeout=max(
                    1, deadline - time.monotonic()))

        found = discovery.discover(req['addresses'], req['ports'],
                                   req['credentials'], enroll)
        found['requests'] = ironic_.requests
        return found
