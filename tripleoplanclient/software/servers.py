"""A ``--server`` name found in a stack's nested stacks.

THT's nodes are server resources of nested stacks (overcloud ->
Controller group -> member 0 -> server resource ``Controller``), named by
hostname_format (``overcloud-controller-0``). Heat lists every nested
resource in one request; a second one, restricted to server types, gives
their ``name`` attribute (or, for a server in a template such as THT's
deployed-server.yaml, the template's ``name`` output). Accepted forms:

* the server's name (``overcloud-controller-0``);
* the resource path from the top stack, ``/``-separated
  (``Controller/0/Controller``), or a leading part of it that leads to a
  single server (``Controller/0``);
* a nested server resource's own name, when only one server has it.

A server resource is one whose type ends in ``Server`` (THT maps
``OS::TripleO::<Role>Server`` to OS::Nova::Server or a deployed-server
template) and that is not itself a template: within a deployed-server
template the inner server is the one Heat deploys to.
"""

import collections

from tripleoplanclient.common import exceptions
from tripleoplanclient.stack import nested

NESTED_DEPTH = nested.DEPTH
SHOWN = 10

Candidate = collections.namedtuple(
    'Candidate', 'path stack resource server_name server_id')


def candidates(heat, stack):
    """Every server resource of ``stack`` (``name/id``) and its nested
    stacks: two requests whatever the number of nested stacks."""
    tree = nested.listing(heat, stack)
    servers = [r for r in tree.resources
               if r.resource_type.endswith('Server')
               and not nested.link(r, 'nested') and r.physical_resource_id]
    if not servers:
        return []
    detailed = heat.resources.list(stack, nested_depth=NESTED_DEPTH,
                                   with_detail=True,
                                   filters={'type': 'Server'})
    names = {r.physical_resource_id:
             (getattr(r, 'attributes', None) or {}).get('name')
             for r in detailed}
    found = []
    for res in servers:
        stack_name, stack_id = nested.stack_of(nested.link(res, 'stack'))
        # a DeployedServer has no name attribute of its own: THT's
        # deployed-server template, holding it, outputs the name
        name = names.get(res.physical_resource_id) or names.get(stack_id)
        found.append(Candidate(tree.path(res), stack_name, res.resource_name,
                               name if isinstance(name, str) else '',
                               res.physical_resource_id))
    return sorted(found)


def match(found, name):
    """The candidates ``name`` designates (see the module's forms)."""
    if '/' in name:
        path = name.strip('/')
        return [c for c in found
                if c.path == path or c.path.startswith(path + '/')]
    by_name = [c for c in found if c.server_name == name]
    return by_name or [c for c in found if c.resource == name]


def describe(candidate):
    return '%s (stack %s, resource %s, server %s %s)' % (
        candidate.path, candidate.stack, candidate.resource,
        candidate.server_name or '?', candidate.server_id)


def find(heat, stack, name, progress):
    """The server id ``name`` designates in ``stack``'s nested stacks;
    says on stderr which one it chose."""
    found = candidates(heat, stack)
    chosen = match(found, name)
    if len(chosen) == 1:
        progress('--server %s: %s.' % (name, describe(chosen[0])))
        return chosen[0].server_id
    if chosen:
        raise exceptions.CommandError(
            '--server %s: %d servers of stack %s match; give one of them '
            'by its resource path or server id:\n  %s\nNothing was '
            'changed.' % (name, len(chosen), stack.split('/')[0],
                          '\n  '.join(describe(c) for c in chosen)))
    known = ['%s (%s)' % (c.server_name, c.path) if c.server_name
             else c.path for c in found[:SHOWN]]
    if len(found) > SHOWN:
        known.append('... %d more' % (len(found) - SHOWN))
    raise exceptions.CommandError(
        '--server %s: no such server in stack %s or its nested stacks '
        '(its servers: %s). Give a server id Heat deploys to, a server '
        'name, a server resource name of the stack, or a resource path '
        'such as Controller/0. Nothing was changed.' % (
            name, stack.split('/')[0], ', '.join(known) or 'none'))
