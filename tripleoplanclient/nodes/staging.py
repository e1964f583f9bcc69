"""A node file staged in Swift for the register action: how BMC
passwords reach Ironic without being in a workflow's input (Mistral
keeps it, readable by the project).

The client writes the file to a private container of the caller's
project (``CONTAINER``, no plan marker: "overcloud plan list" does not
show it) with ``X-Delete-After``; the action reads it, then deletes it,
whatever happens. Both sides use a python-swiftclient Connection.
"""

import re
import uuid

from tripleoplanclient.common import exceptions

CONTAINER = 'tripleoplan-staging'
# Swift removes a staged file no action took (its expirer permitting)
EXPIRES = 3600
_NAME = re.compile(r'^%s/nodes-[0-9a-f]{32}\.json$' % CONTAINER)


def _status(exc):
    return getattr(exc, 'http_status', None)


def put(conn, data):
    """Stage ``data`` (bytes): the name to give as ``staged``."""
    from swiftclient import exceptions as swift_exc

    name = 'nodes-%s.json' % uuid.uuid4().hex
    try:
        conn.put_container(CONTAINER)
        conn.put_object(CONTAINER, name, contents=data,
                        content_type='application/json',
                        headers={'X-Delete-After': str(EXPIRES)})
    except swift_exc.ClientException as exc:
        raise exceptions.CommandError(
            'Cannot stage the node file in Swift container %s: %s. Nothing '
            'was registered.' % (CONTAINER, exc))
    return '%s/%s' % (CONTAINER, name)


def take(conn, staged):
    """The bytes staged as ``staged``, deleted once read (or not found)."""
    from swiftclient import exceptions as swift_exc

    if not isinstance(staged, str) or not _NAME.match(staged):
        raise exceptions.CommandError(
            'Bad node_register request: staged %r is not a staged node file '
            '(%s/nodes-<32 hex digits>.json). Nothing was registered.'
            % (staged, CONTAINER))
    container, name = staged.split('/', 1)
    try:
        try:
            return conn.get_object(container, name)[1]
        finally:
            discard(conn, staged)
    except swift_exc.ClientException as exc:
        if _status(exc) == 404:
            raise exceptions.CommandError(
                'The staged node file %s is not in Swift (taken by an '
                'earlier run, or expired): stage it again. Nothing was '
                'registered.' % staged)
        raise exceptions.CommandError('Cannot read the staged node file %s: '
                                      '%s' % (staged, exc))


def discard(conn, staged):
    """Delete a staged file; gone already is fine."""
    from swiftclient import exceptions as swift_exc

    try:
        conn.delete_object(*staged.split('/', 1))
    except swift_exc.ClientException as exc:
        if _status(exc) != 404:
            raise


def entries(req, connect):
    """The ``nodes_json`` entries of a node_register request: a staged
    file (``connect()``: a swiftclient Connection as the caller; the
    file read, then deleted), or inline nodes, which may not carry a
    password (Mistral keeps a workflow's input)."""
    from tripleoplanclient.nodes import nodes_json

    if (req['nodes'] is None) == (req['staged'] is None):
        raise exceptions.CommandError(
            'Bad node_register request: give the nodes inline ("nodes", '
            'no pm_password) or a staged node file ("staged"), one of the '
            'two. Nothing was registered.')
    if req['staged'] is not None:
        data = take(connect(), req['staged'])
        return nodes_json.read(nodes_json.load(data, 'The node file'),
                               'The node file')
    if not isinstance(req['nodes'], list):
        raise exceptions.CommandError(
            'Bad node_register request: nodes must be a list of node '
            'mappings. Nothing was registered.')
    return nodes_json.read(req['nodes'], 'The request\'s nodes',
                           passwords=False)
