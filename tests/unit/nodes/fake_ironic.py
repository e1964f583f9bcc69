"""A small Ironic with state, on requests-mock, for the node unit tests.

``FakeIronic(mocker)`` answers ``URL/v1/...`` as Ironic 39 does for what
the node operations use: nodes (create, show by uuid or name, listing with
``fields`` and paging, JSON patch, delete), ports, provision and power
states, allocations and a node's inspection inventory. Answers are
Ironic's shapes (passwords in ``driver_info`` masked, errors as
``error_message`` holding a ``faultstring``).

Provision transitions end at once (the fake hardware), unless:

- ``hold(node, reads)``: the node's next transition stays in its
  intermediate state (``inspect wait``, ``cleaning``, ``deploying``...) for
  that many reads of the node (GET of the node or a listing holding it);
- ``hang(node)``: every inspection of the node waits in ``inspect wait``
  (no ramdisk ever answers) until it is aborted;
- ``fail(node, target, last_error)``: the node's next ``target``
  transition ends in the failed state (``inspect failed``, ``clean
  failed``, ``deploy failed``...) with ``last_error`` (after the hold,
  if any);
- ``refuse(method, path, status, message)``: requests whose path starts
  with ``/v1<path>`` are answered ``status`` with ``message`` (until
  ``allow()``).

What was asked is in ``log`` (``Request(method, path, query, body)``);
``count(method, path)`` counts them. ``node(ident)`` is a node's stored
form, password unmasked (for assertions), ``add_node(**fields)`` makes
one without a request.
"""

import collections
import copy
import json
import re
import threading
import unittest
import urllib.parse
import uuid

import requests_mock

from tests.unit.nodes import fake_states

URL = 'http://ironic.test'
MASK = '******'
Failure = fake_states.Failure
Request = collections.namedtuple('Request', 'method path query body')

NODE_FIELDS = ('name', 'driver', 'driver_info', 'properties', 'extra',
               'resource_class', 'instance_info', 'instance_uuid',
               'maintenance', 'owner', 'description', 'conductor_group',
               'network_interface', 'boot_interface', 'deploy_interface',
               'inspect_interface', 'management_interface',
               'power_interface', 'raid_interface', 'rescue_interface',
               'console_interface', 'vendor_interface',
               'bios_interface', 'storage_interface', 'automated_clean')
PORT_FIELDS = ('address', 'node_uuid', 'physical_network',
               'local_link_connection', 'pxe_enabled', 'extra')


def _masked(value):
    if isinstance(value, dict):
        return {k: MASK if 'password' in k and v else _masked(v)
                for k, v in value.items()}
    return value


class FakeIronic(fake_states.States):
    """Ironic at ``url`` on requests-mock ``mocker``.

    ``nodes``/``ports``/``allocations``: uuid -> stored form;
    ``page_size``: the most items a listing answers before a ``next``
    link (Ironic's ``max_limit``); ``drivers``: the enabled ones.
    """

    def __init__(self, mocker, url=URL, page_size=1000,
                 drivers=('fake-hardware', 'ipmi', 'redfish')):
        self.url = url
        self.nodes = collections.OrderedDict()
        self.ports = collections.OrderedDict()
        self.allocations = collections.OrderedDict()
        self.page_size = page_size
        self.drivers = set(drivers)
        self.log = []
        self.inspected = {}     # uuid -> properties an inspection sets
        self.inventories = {}   # uuid -> inventory (GET .../inventory)
        self.history = {}       # uuid -> [event] (GET .../history)
        self._holds = {}        # uuid -> reads left in a hold
        self._next_hold = {}    # uuid -> reads for the next transition
        self._hangs = set()     # uuids whose inspections never end
        self._fails = {}        # (uuid, target) -> last_error
        self._refusals = []
        self._clock = 0
        self._lock = threading.RLock()
        mocker.register_uri(requests_mock.ANY,
                            re.compile(re.escape(url) + '/v1(/|\\?|$)'),
                            text=self._answer)

    # -- for the tests --------------------------------------------------

    def add_node(self, **fields):
        """A node stored as if created and moved to ``provision_state``
        (default manageable) without a request; its stored form."""
        with self._lock:
            state = fields.pop('provision_state', 'manageable')
            power = fields.pop('power_state', 'power off')
            ports = fields.pop('ports', ())
            node = self._new_node(dict({'driver': 'fake-hardware'},
                                       **fields))
            node.update(provision_state=state, power_state=power)
            for mac in ports:
                self._new_port({'address': mac, 'node_uuid': node['uuid']})
            return node

    def node(self, ident):
        """The stored node (uuid or name), passwords unmasked."""
        return self._find(ident)

    def hold(self, ident, reads):
        self._next_hold[self._find(ident)['uuid']] = reads

    def hang(self, ident):
        self._hangs.add(self._find(ident)['uuid'])

    def fail(self, ident, target, last_error):
        self._fails[(self._find(ident)['uuid'], target)] = last_error

    def refuse(self, method, path, status, message):
        self._refusals.append((method.upper(), '/v1' + path, status,
                               message))

    def allow(self):
        """Refuse nothing any more."""
        del self._refusals[:]

    def count(self, method=None, path=None):
        """Requests made, of ``method`` and starting with ``/v1<path>``."""
        return sum(1 for r in self.log
                   if (method is None or r.method == method.upper()) and
                   (path is None or r.path.startswith('/v1' + path)))

    def writes(self):
        """The requests that could change something (not GET)."""
        return [r for r in self.log if r.method != 'GET']

    # -- the HTTP side --------------------------------------------------

    def _answer(self, request, context):
        parsed = urllib.parse.urlsplit(request.url)
        path = parsed.path[len(urllib.parse.urlsplit(self.url).path):]
        query = dict(urllib.parse.parse_qsl(parsed.query))
        body = request.json() if request.body else None
        with self._lock:
            self.log.append(Request(request.method, path, query, body))
            context.headers['Content-Type'] = 'application/json'
            try:
                status, answer = self._route(request.method, path, query,
                                             body)
            except Failure as exc:
                status, answer = exc.status, {'error_message': json.dumps(
                    {'faultstring': str(exc), 'faultcode': 'Client'})}
            context.status_code = status
            return '' if answer is None else json.dumps(answer)

    def _route(self, method, path, query, body):
        for m, prefix, status, message in self._refusals:
            if m == method and path.startswith(prefix):
                raise Failure(status, message)
        parts = path.strip('/').split('/')[1:]   # after v1
        if parts[:1] == ['nodes']:
            return self._nodes(method, parts[1:], query, body)
        if parts[:1] == ['ports']:
            return self._ports(method, parts[1:], query, body)
        if parts[:1] == ['allocations']:
            return self._allocations(method, parts[1:], body)
        raise Failure(404, 'Not found: %s' % path)

    def _nodes(self, method, parts, query, body):
        if not parts or parts == ['detail']:
            if method == 'POST' and not parts:
                return 201, self._show(self._create(body))
            if method == 'GET':
                return self._listing(query, self.nodes, 'nodes',
                                     self._node_matches)
        elif len(parts) == 1:
            node = self._find(parts[0])
            if method == 'GET':
                self._read(node)
                return 200, self._show(node)
            if method == 'PATCH':
                self._patch(node, body)
                return 200, self._show(node)
            if method == 'DELETE':
                self._delete(node)
                return 204, None
        elif parts[1:] == ['states', 'provision'] and method == 'PUT':
            self._provision(self._find(parts[0]), body)
            return 202, None
        elif parts[1:] == ['states', 'power'] and method == 'PUT':
            node = self._find(parts[0])
            target = body['target']
            if target not in ('power on', 'power off', 'rebooting'):
                raise Failure(400, 'Invalid power target %s' % target)
            node['power_state'] = ('power on' if target == 'rebooting'
                                   else target)
            self._touch(node)
            return 202, None
        elif parts[1:] == ['states', 'raid'] and method == 'PUT':
            self._find(parts[0])['target_raid_config'] = body
            return 204, None
        elif parts[1:] == ['history'] and method == 'GET':
            return self._history(self._find(parts[0]), query)
        elif parts[1:] == ['inventory'] and method == 'GET':
            node = self._find(parts[0])
            if node['uuid'] not in self.inventories:
                raise Failure(404, 'Node %s has no inventory' % parts[0])
            return 200, {'inventory': self.inventories[node['uuid']],
                         'plugin_data': {}}
        raise Failure(405, '%s not allowed on /v1/nodes/%s'
                      % (method, '/'.join(parts)))

    def _listing(self, query, items, key, matches, show=None):
        show = show or self._show
        found = [i for i in items.values() if matches(i, query)]
        if 'marker' in query:
            uuids = [i['uuid'] for i in found]
            found = found[uuids.index(query['marker']) + 1:]
        limit = min(int(query.get('limit') or self.page_size),
                    self.page_size)
        page = found[:limit]
        fields = query.get('fields')
        shown = []
        for item in page:
            if key == 'nodes':
                self._read(item)
            one = show(item)
            if fields:
                one = {f: one.get(f) for f in fields.split(',')}
            shown.append(one)
        answer = {key: shown}
        if len(found) > limit:
            following = dict(query, marker=page[-1]['uuid'], limit=limit)
            answer['next'] = '%s/v1/%s?%s' % (
                self.url, key, urllib.parse.urlencode(sorted(
                    following.items())))
        return 200, answer

    @staticmethod
    def _node_matches(node, query):
        for field in ('provision_state', 'resource_class', 'driver',
                      'instance_uuid'):
            if field in query and node.get(field) != query[field]:
                return False
        if 'associated' in query:
            wanted = query['associated'].lower() == 'true'
            if bool(node.get('instance_uuid')) != wanted:
                return False
        if 'maintenance' in query:
            wanted = query['maintenance'].lower() == 'true'
            if bool(node.get('maintenance')) != wanted:
                return False
        return True

    def _find(self, ident):
        with self._lock:
            if ident in self.nodes:
                return self.nodes[ident]
            for node in self.nodes.values():
                if node.get('name') == ident:
                    return node
        raise Failure(404, 'Node %s could not be found.' % ident)

    def _show(self, node):
        shown = copy.deepcopy(node)
        shown['driver_info'] = _masked(shown.get('driver_info') or {})
        shown['links'] = [{'href': '%s/v1/nodes/%s' % (self.url,
                                                       node['uuid']),
                           'rel': 'self'}]
        return shown

    def _touch(self, item):
        self._clock += 1
        item['updated_at'] = '2026-01-01T00:00:%02d+00:00' % (
            self._clock % 60)

    def _new_node(self, body):
        ident = body.get('uuid') or str(uuid.uuid4())
        if ident in self.nodes:
            raise Failure(409, 'A node with UUID %s already exists.' % ident)
        if body.get('name') and any(n.get('name') == body['name']
                                    for n in self.nodes.values()):
            raise Failure(409, 'A node with name %s already exists.'
                          % body['name'])
        unknown = set(body) - set(NODE_FIELDS) - {'uuid'}
        if unknown:
            raise Failure(400, 'Unknown attribute for argument node: %s'
                          % ', '.join(sorted(unknown)))
        node = {'uuid': ident, 'name': None, 'driver_info': {},
                'properties': {}, 'extra': {}, 'instance_info': {},
                'instance_uuid': None, 'resource_class': None,
                'maintenance': False, 'last_error': None,
                'allocation_uuid': None, 'provision_state': 'enroll',
                'power_state': None, 'target_provision_state': None,
                'created_at': '2026-01-01T00:00:00+00:00',
                'updated_at': None}
        node.update(copy.deepcopy(body))
        self.nodes[ident] = node
        return node

    def _create(self, body):
        if body.get('driver') not in self.drivers:
            raise Failure(400, 'Could not find the following driver(s) or '
                          'hardware type(s): %s.' % body.get('driver'))
        return self._new_node(body)

    def _patch(self, node, operations):
        changed = copy.deepcopy(node)
        for op in operations:
            keys = [k for k in op['path'].split('/') if k]
            if not keys or keys[0] not in NODE_FIELDS:
                raise Failure(400, "Cannot patch %s" % op['path'])
            parent = changed
            for key in keys[:-1]:
                if not isinstance(parent.get(key), dict):
                    if op['op'] == 'remove':
                        raise Failure(400, "Can't remove non-existent "
                                      "object '%s'" % key)
                    parent[key] = {}
                parent = parent[key]
            if op['op'] in ('add', 'replace'):
                if op['op'] == 'replace' and keys[-1] not in parent:
                    raise Failure(400, "Can't replace non-existent object "
                                  "'%s'" % keys[-1])
                parent[keys[-1]] = copy.deepcopy(op['value'])
            elif op['op'] == 'remove':
                if keys[-1] not in parent:
                    raise Failure(400, "Can't remove non-existent object "
                                  "'%s'" % keys[-1])
                del parent[keys[-1]]
            else:
                raise Failure(400, 'Unknown patch op %s' % op['op'])
        if changed.get('name') != node.get('name') and changed.get('name') \
                and any(n.get('name') == changed['name']
                        for n in self.nodes.values()):
            raise Failure(409, 'A node with name %s already exists.'
                          % changed['name'])
        node.clear()
        node.update(changed)
        self._touch(node)

    def _delete(self, node):
        if node['provision_state'] not in ('enroll', 'manageable',
                                           'available', 'inspect failed',
                                           'clean failed'):
            raise Failure(409, 'Node %s can not be deleted in state %s'
                          % (node['uuid'], node['provision_state']))
        del self.nodes[node['uuid']]
        for port in list(self.ports.values()):
            if port['node_uuid'] == node['uuid']:
                del self.ports[port['uuid']]

    # -- ports ----------------------------------------------------------

    def _new_port(self, body):
        unknown = set(body) - set(PORT_FIELDS)
        if unknown:
            raise Failure(400, 'Unknown attribute for argument port: %s'
                          % ', '.join(sorted(unknown)))
        if body.get('node_uuid') not in self.nodes:
            raise Failure(400, 'Node %s could not be found.'
                          % body.get('node_uuid'))
        address = (body.get('address') or '').lower()
        if any(p['address'] == address for p in self.ports.values()):
            raise Failure(409, 'A port with MAC address %s already exists.'
                          % address)
        port = {'uuid': str(uuid.uuid4()), 'physical_network': None,
                'local_link_connection': {}, 'pxe_enabled': True,
                'extra': {}}
        port.update(copy.deepcopy(body), address=address)
        self.ports[port['uuid']] = port
        return port

    def _ports(self, method, parts, query, body):
        if not parts and method == 'POST':
            return 201, self._new_port(body)
        if not parts or parts == ['detail']:
            if method == 'GET':
                def matches(port, q):
                    return all(port.get(f) == q[f] for f in
                               ('address', 'node_uuid') if f in q)
                if 'node' in query:
                    query = dict(query,
                                 node_uuid=self._find(query['node'])['uuid'])
                return self._listing(query, self.ports, 'ports', matches,
                                     copy.deepcopy)
        elif len(parts) == 1 and parts[0] in self.ports:
            if method == 'GET':
                return 200, copy.deepcopy(self.ports[parts[0]])
            if method == 'DELETE':
                del self.ports[parts[0]]
                return 204, None
        raise Failure(404, 'Port %s could not be found.' % '/'.join(parts))


class TestCase(unittest.TestCase):
    """A test on a FakeIronic of its own: ``self.m`` (the requests-mock
    Mocker, started) and ``self.fake``."""

    def setUp(self):
        super().setUp()
        self.m = requests_mock.Mocker()
        self.m.start()
        self.addCleanup(self.m.stop)
        self.fake = FakeIronic(self.m)
