"""The endpoints our actions may call, and which one a request gets.

Only those of the service catalog in the execution's context (Keystone's,
from the caller's token) or those Mistral's own configuration names
(``[tripleoplan] swift_urls`` / ``heat_urls`` / ``ironic_urls`` in
mistral.conf, for a Mistral without Keystone). A request's ``swift_url``
/ ``heat_url`` / ``ironic_url`` only
chooses among them, and tells the client it works on another Swift than
the actions; any other URL is refused, so no execution input can send
the caller's token to a host of its choice.
"""

from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import config


def configured_urls(service_type):
    """The endpoints of ``service_type`` Mistral's configuration names
    (``config.ENDPOINT_OPTIONS``); none for a type no option lists."""
    option = config.ENDPOINT_OPTIONS.get(service_type)
    return list(getattr(config.options(), option)) if option else []


def _catalog(context, service_type):
    from tripleoplanclient.mistral import auth
    return auth.Caller(context).endpoints(service_type)


def choose(context, requested, service_type, configured=None):
    """The URL to call: ``requested`` when it is one of the allowed
    endpoints, the first allowed one when nothing is requested."""
    allowed = _catalog(context, service_type) + (
        configured_urls(service_type) if configured is None else configured)
    if not allowed:
        raise exceptions.CommandError(
            'The tripleoplan actions know no %s endpoint: run Mistral with '
            'Keystone, or set [tripleoplan] %s in its configuration.'
            % (service_type, config.ENDPOINT_OPTIONS[service_type]))
    if not requested:
        return allowed[0]
    for url in allowed:
        if url.rstrip('/') == requested.rstrip('/'):
            return url
    raise exceptions.CommandError(
        'The request names the %s endpoint %s, which is not one the '
        'tripleoplan actions in this Mistral may call (its catalog, or '
        '[tripleoplan] %s in its configuration): point the client at the '
        'same %s as Mistral, or add the endpoint to that option.'
        % (service_type, requested, config.ENDPOINT_OPTIONS[service_type],
           service_type))
