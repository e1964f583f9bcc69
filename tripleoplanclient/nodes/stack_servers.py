"""The servers of a plan's stack by role and index, as Heat has them: what
``overcloud node delete`` resolves the names it is given against.

A role is a top-level ``OS::Heat::ResourceGroup`` named after it, whose
stack has ``<Role>Count`` and ``<Role>HostnameFormat`` parameters (THT's
``overcloud.yaml``); its members are the group's nested resources named
by their index. A member's hostname is THT's: the format with
``%stackname%`` and ``%index%`` put in, then the stack's ``HostnameMap``
for that name when it has one. Heat is asked 1 + one listing per role:
the stack's top-level groups, then each group's members.
"""

import json

from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import baremetal_file

MAX_NAMES = 1000
MAX_NAME = 255
# how many known servers an unknown name's error lists
SHOWN = 30


def _json(value):
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def _nested(resource):
    """The ``name/id`` of a group's nested stack (its ``nested`` link),
    else its id (Heat redirects)."""
    for link in getattr(resource, 'links', None) or ():
        if link.get('rel') == 'nested':
            parts = link.get('href', '').rstrip('/').split('/')
            return '%s/%s' % (parts[-2], parts[-1])
    return resource.physical_resource_id


def members(heat, plan, stack):
    """``{role: {index: hostname}}`` of ``stack`` (heatclient's, with its
    parameters) as Heat has it now."""
    params = getattr(stack, 'parameters', None) or {}
    hostname_map = _json(params.get('HostnameMap')) or {}
    if not isinstance(hostname_map, dict):
        hostname_map = {}
    out = {}
    groups = heat.resources.list('%s/%s' % (plan, stack.id), filters={
        'type': 'OS::Heat::ResourceGroup'})
    for group in groups:
        role = group.resource_name
        fmt = params.get('%sHostnameFormat' % role)
        if '%sCount' % role not in params or not fmt or \
                not group.physical_resource_id:
            continue
        found = {}
        for member in heat.resources.list(_nested(group)):
            if member.resource_name.isdigit() and not \
                    member.resource_status.startswith('DELETE'):
                index = int(member.resource_name)
                name = baremetal_file.hostname(
                    fmt, stack.stack_name, index)
                found[index] = hostname_map.get(name, name)
        out[role] = found
    return out


def check_names(names):
    """The names a request gives, checked (text, bounded)."""
    if not isinstance(names, list) or not names or len(names) > MAX_NAMES \
            or not all(isinstance(n, str) and 0 < len(n) <= MAX_NAME
                       for n in names):
        raise exceptions.CommandError(
            'Bad node_delete request: nodes must list 1 to %d names (a '
            'server\'s hostname, a node\'s name or UUID, or Role/index). '
            'Nothing was changed.' % MAX_NAMES)
    return names


def resolve(plan, names, servers, nodes):
    """``[(role, index, hostname)]`` of ``names``, each once, in their
    order: a hostname, ``Role/index``, or the name or UUID of a node
    provisioned into the plan (``nodes``: ``{hostname: node}``). Every
    unknown name refused at once, with the servers there are."""
    by_host = {h: (r, i) for r, found in servers.items()
               for i, h in found.items()}
    by_node = {}
    for hostname, node in nodes.items():
        for key in (node.get('uuid'), node.get('name')):
            if key:
                by_node[key] = hostname
    chosen, unknown = [], []
    for name in names:
        role, _, index = name.partition('/')
        if index.isdigit() and int(index) in servers.get(role, {}):
            found = (role, int(index))
        else:
            found = by_host.get(name) or by_host.get(by_node.get(name))
        if found is None:
            unknown.append(name)
            continue
        entry = (found[0], found[1], servers[found[0]][found[1]])
        if entry not in chosen:
            chosen.append(entry)
    if unknown:
        known = ['%s/%d (%s)' % (r, i, h) for r, found in sorted(
            servers.items()) for i, h in sorted(found.items())]
        raise exceptions.CommandError(
            'Stack %s has no server %s. Its servers: %s%s. Give a hostname, '
            'a node provisioned into the plan or Role/index. Nothing was '
            'changed.' % (plan, ', '.join(unknown), ', '.join(
                known[:SHOWN]) or 'none', ' and %d more' % (
                len(known) - SHOWN) if len(known) > SHOWN else ''))
    return chosen
