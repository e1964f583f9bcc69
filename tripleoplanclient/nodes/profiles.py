"""Profiles: TripleO's convention on a node's ``properties/capabilities``
(Ironic keeps them as ``key:value,key:value`` text). ``profile:NAME`` is
the profile a node has; ``NAME_profile:true`` a profile it may take.
No Nova: everything comes from Ironic's node listing.
"""

from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import node_capabilities
from tripleoplanclient.nodes import states

# profiles list without --all: the nodes a deployment may use or uses
LISTED_STATES = ('available', 'active')


def current_profile(node):
    return node_capabilities.of_node(node).get('profile') or None


def possible_profiles(node):
    """The profiles the node's capabilities allow (``<p>_profile:true``)."""
    return sorted(key[:-len('_profile')] for key, value in
                  node_capabilities.of_node(node).items()
                  if key.endswith('_profile') and
                  str(value).lower() == 'true')


def check_profile(profile):
    if profile is not None and (not profile or any(
            c in profile for c in ',: ')):
        raise exceptions.CommandError(
            'Bad profile %r: a name without commas, colons or spaces, e.g. '
            'compute.' % profile)


def tag(ironic, nodes, profile):
    """Give ``nodes`` (``states.FIELDS``) the capability profile:PROFILE,
    or take it away (None), their other capabilities kept; a row per
    node, UNCHANGED when it was so already. Nodes are patched at most
    ``ironic.parallel`` at once; one Ironic refuses is FAILED, the others
    go on."""
    check_profile(profile)

    def one(node):
        caps = node_capabilities.of_node(node)
        if caps.get('profile') == profile or (
                profile is None and 'profile' not in caps):
            return 'UNCHANGED'
        if profile is None:
            caps.pop('profile')
        else:
            caps['profile'] = profile
        ironic.patch_node(node['uuid'], [{
            'op': 'add', 'path': '/properties/capabilities',
            'value': node_capabilities.text(caps)}])
        return states.SUCCESS

    return [{'name': node.get('name'), 'uuid': node['uuid'],
             'profile': profile, 'status': states.FAILED if err else status,
             'error': None if err is None else str(err)}
            for node, status, err in ironic.each(one, nodes)]


def listing(ironic, every=False):
    """A row per node: uuid, name, provision state, current profile,
    possible profiles; only available and active nodes unless
    ``every``."""
    rows = []
    for node in ironic.nodes(states.FIELDS):
        if not every and (node['provision_state'] not in LISTED_STATES or
                          node.get('maintenance')):
            continue
        rows.append({'uuid': node['uuid'], 'name': node.get('name'),
                     'provision_state': node['provision_state'],
                     'current_profile': current_profile(node),
                     'possible_profiles': possible_profiles(node)})
    return sorted(rows, key=lambda r: (r['name'] or '', r['uuid']))
