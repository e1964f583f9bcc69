"""Who may drive nodes through the node actions, and the Ironic they
reach (``node_actions``; no mistral_lib here, so unit tests run it);
which servers Ironic records for a plan, and the networks a plan's
playbooks may reach servers in (the validations' and config-download's).
"""

import logging

from tripleoplanclient.mistral import auth
from tripleoplanclient.mistral import endpoints

LOG = logging.getLogger(__name__)

# the role Ironic's node API asks of whoever drives nodes
ADMIN = 'admin'


def require_admin(context):
    """CommandError unless the caller may drive nodes: with Keystone, its
    token (as Keystone validated it, never a request field) has the admin
    role; without Keystone no role is known and Ironic decides. Checked
    here, not read from Ironic's answer: Ironic lets a member of the
    project owning a node drive it, and shows a member of another
    project no node at all."""
    from tripleoplanclient.common import exceptions
    caller = auth.Caller(context)
    if caller.keystone and ADMIN not in caller.roles:
        raise exceptions.CommandError(
            'User %s has %s in project %s: the node operations need the '
            '%s role there. Ask an administrator for it (openstack role '
            'add --project %s --user %s %s), or run this as an '
            'administrator. Nothing was changed.' % (
                caller.user, ', '.join(caller.roles) or 'no role',
                caller.project, ADMIN, caller.project, caller.user, ADMIN))


def ironic(context, req, session=None):
    """Ironic at the request's (allowed) endpoint, as the caller;
    ``req['ironic_url']`` resolved. Every node action reaches Ironic
    through here: the admin role is checked first (``require_admin``)."""
    from tripleoplanclient.nodes import ironic as ironic_mod

    require_admin(context)
    req['ironic_url'] = endpoints.choose(context, req['ironic_url'],
                                         'baremetal')
    if session is None:
        session = auth.token_session(auth.Caller(context))
    return ironic_mod.Ironic(session, req['ironic_url'])


def recorded_servers(context, plan, session=None):
    """The ctlplane addresses ``overcloud node provision`` recorded in
    Ironic for ``plan`` and the caller's project (``nodes.provision``);
    none when the caller may not read Ironic (no Keystone, not an
    administrator, no Ironic in its catalog) or Ironic fails (logged)."""
    from tripleoplanclient.nodes import provision
    caller = auth.Caller(context)
    if not caller.keystone or ADMIN not in caller.roles or \
            not caller.endpoints('baremetal'):
        return []
    try:
        return provision.recorded_addresses(
            ironic(context, {'ironic_url': None}, session), plan,
            caller.project_id)
    except Exception as exc:    # what the configuration gives still holds
        LOG.warning('Ironic not read for the servers of plan %s: %s',
                    plan, exc)
        return []


def server_networks(context, project, plan, session=None):
    """Where ``plan``'s playbooks (validations, config-download) may reach
    servers: what the operator gives (``[tripleoplan] validation_servers``,
    for ``project``) and the addresses ``overcloud node provision``
    recorded in Ironic for the plan and project (read when the caller may
    read Ironic: only an administrator writes it)."""
    import ipaddress

    from tripleoplanclient.common import exceptions
    from tripleoplanclient.mistral import validation_config
    from tripleoplanclient.validations import inventory
    try:
        found = inventory.networks(validation_config.servers(), project,
                                   plan)
    except ValueError as exc:
        raise exceptions.CommandError(
            '%s in Mistral\'s configuration: ask its operator to fix it'
            % exc)
    for address in recorded_servers(context, plan, session):
        try:
            found.append(ipaddress.ip_network(address))
        except ValueError:
            pass
    return found
