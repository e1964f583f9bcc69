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

# mistral.conf options: service type -> option (a list of URLs)
_OPTIONS = {'object-store': 'swift_urls', 'orchestration': 'heat_urls',
            'baremetal': 'ironic_urls'}


def configured_endpoints(service_type):
    """The endpoints of ``service_type`` mistral.conf names (none for a
    service type without an option)."""
    from oslo_config import cfg

    if service_type not in _OPTIONS:
        return []

    # Registered on first use: Mistral parsed its files already, and
    # oslo.config finds options registered later in them.
    cfg.CONF.register_opts(
        [cfg.ListOpt(option, default=[], help='%s endpoints the tripleoplan '
                     'actions may call when the catalog has none' % kind)
         for kind, option in _OPTIONS.items()], group='tripleoplan')
    return list(getattr(cfg.CONF.tripleoplan, _OPTIONS[service_type]))


def _catalog(context, service_type):
    from tripleoplanclient.mistral import auth
    return auth.Caller(context).endpoints(service_type)


def choose(context, requested, service_type, configured=None):
    """The URL to call: ``requested`` when it is one of the allowed
    endpoints, the first allowed one when nothing is requested."""
    allowed = _catalog(context, service_type) + (
        configured_endpoints(service_type) if configured is None
        else configured)
    if not allowed:
        raise exceptions.CommandError(
            'The tripleoplan actions know no %s endpoint: run Mistral with '
            'Keystone, or set [tripleoplan] %s in its configuration.'
            % (service_type, _OPTIONS[service_type]))
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
        % (service_type, requested, _OPTIONS[service_type], service_type))
