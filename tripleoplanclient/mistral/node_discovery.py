"""The body of the ``tripleoplan.node_discover`` action
(``fleet_actions.DiscoverNodes``): probe addresses for Redfish BMCs and
register what answered (``nodes.discovery``), in the executor (the BMC
network is the undercloud's); no mistral_lib here, so unit tests run it
with the context Mistral gives.

The credentials come inline, passwords included, so only in a run
Mistral keeps nothing of (``node_registration.input_saved``): the client
runs the action on its own, synchronously and unsaved, as node_register.
"""

import time

from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import node_registration


def discover(ironic, req, context, clock=time.monotonic):
    """The action's answer (``nodes.discovery.discover``'s, with the
    ``requests`` sent to Ironic); ``ironic()`` makes the Ironic client
    (the caller's admin role checked) once the request is known good.
    CommandError before any probe for a run Mistral keeps, or a bad
    request."""
    from tripleoplanclient.nodes import discovery
    from tripleoplanclient.nodes import nodes_json
    from tripleoplanclient.nodes import register

    if node_registration.input_saved(context):
        raise exceptions.CommandError(
            'node_discover takes BMC passwords: run it on its own, unsaved '
            '(POST /v2/action_executions, params run_sync true, '
            'save_result false), as "openstack overcloud node discover" '
            'does. Nothing was probed.')
    discovery.check(req['addresses'], req['ports'], req['credentials'])
    ironic_ = ironic()
    # the probes and the registration share the request's timeout
    deadline = clock() + (register.MANAGE_TIMEOUT if req['timeout'] is None
                          else req['timeout'])

    def enroll(entries):
        return register.register(ironic_, nodes_json.read(
            entries, 'The discovered BMCs'), timeout=max(
                1, deadline - clock()))

    found = discovery.discover(req['addresses'], req['ports'],
                               req['credentials'], enroll)
    found['requests'] = ironic_.requests
    return found
