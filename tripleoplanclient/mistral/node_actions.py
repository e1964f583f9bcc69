"""Mistral actions of the node operations (``tripleoplanclient.nodes``).

Each calls Ironic at an endpoint ``endpoints`` allows (the caller's
catalog, or ``[tripleoplan] ironic_urls``), as the caller: its token, or
for a follow task a session the task was given.
"""

from tripleoplanclient.mistral import actions
from tripleoplanclient.mistral import auth
from tripleoplanclient.mistral import endpoints


def ironic(context, req, session=None):
    """Ironic at the request's (allowed) endpoint, as the caller;
    ``req['ironic_url']`` resolved."""
    from tripleoplanclient.nodes import ironic as ironic_mod

    req['ironic_url'] = endpoints.choose(context, req['ironic_url'],
                                         'baremetal')
    if session is None:
        session = auth.token_session(auth.Caller(context))
    return ironic_mod.Ironic(session, req['ironic_url'])


class _NodeAction(actions._PlanAction):
    """Reads its request, calls ``act(ironic, req, context)``; a
    CommandError (IronicError too) becomes the action's failure."""

    def do(self, context, req):
        return self.act(ironic(context, req), req, context)
