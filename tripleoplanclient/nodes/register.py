"""Register the nodes of a node file (``nodes_json``) in Ironic, or
update those already there: TripleO's import, made idempotent.

Each entry is matched against Ironic first (its uuid, its name, any of
its MACs, its BMC): one node found is updated with a JSON patch of only
what differs, none is created, then managed (tripleoclient's import ends
with manageable nodes); two different nodes found is an error naming
both. Everything is matched and checked before the first write: nothing
is registered when any entry is wrong.

What a node already has and the file does not say (inspected properties,
other capabilities, driver_info keys) is kept. A BMC password is compared
through its digest on the node (``bmc_digest``; Ironic shows it masked):
it is written when the node is created, when it has none, when it
differs, when the node has no digest of ours yet, or with a new BMC
address, port or user; a new address, port, user or password gives the
row the note ``BMC credentials changed``.

``register`` answers within its ``timeout`` (plus one Ironic listing): a
node whose BMC is still being verified then keeps its row (provision
state ``verifying``, the error saying so); Ironic goes on with it, and
the same file again shows where it ended.
"""

import time

from tripleoplanclient.common import masking
from tripleoplanclient.nodes import bmc_digest
from tripleoplanclient.nodes import drivers
from tripleoplanclient.nodes import node_capabilities
from tripleoplanclient.nodes import nodes_json

# What the matching reads of every node (one listing)
FIELDS = ('uuid', 'name', 'driver', 'driver_info', 'properties',
          'resource_class', 'provision_state', 'last_error', 'extra') + \
    nodes_json.INTERFACES
# How long a registration may take, at most, before it answers (real BMCs
# verify in seconds)
MANAGE_TIMEOUT = 300
# What the row of a node still verifying its BMC then says
STILL_VERIFYING = ('still verifying its BMC after %g s: Ironic goes on; run '
                   'the import again (nothing is written twice) or see '
                   '"openstack baremetal node show %s"')
CHANGED = 'BMC credentials changed'


class Match:
    """An entry and the Ironic node it is (None: to create); ``patch``:
    the JSON patch that makes the node what the file says; ``ports``: the
    entry's ports Ironic lacks."""

    def __init__(self, entry, node, patch, ports, note=None):
        self.entry, self.node, self.patch, self.ports = (entry, node, patch,
                                                         ports)
        self.note = note

    @property
    def action(self):
        if self.node is None:
            return 'created'
        return 'updated' if self.patch or self.ports else 'unchanged'


def match(ironic, entries):
    """``[Match]`` of every entry, or NodesFileError naming every
    entry that matches two nodes or shares one with another entry."""
    nodes = ironic.nodes(fields=FIELDS)
    ports = ironic.ports()
    by_key = {}
    for node in nodes:
        by_key[('uuid', node['uuid'])] = node
        if node.get('name'):
            by_key[('name', node['name'])] = node
        bmc = drivers.bmc_key(node.get('driver'), node.get('driver_info'))
        if bmc:
            by_key.setdefault(('BMC', bmc), node)
    by_uuid = {n['uuid']: n for n in nodes}
    for port in ports:
        if port.get('node_uuid') in by_uuid:
            by_key[('MAC', port['address'].lower())] = by_uuid[
                port['node_uuid']]
    problems, found, taken = [], [], {}
    for entry in entries:
        keys = [('uuid', entry.body.get('uuid')),
                ('name', entry.body.get('name')), ('BMC', entry.bmc)]
        keys.extend(('MAC', mac) for mac in entry.macs)
        hits = {}
        for key in keys:
            node = by_key.get(key)
            if key[1] is not None and node is not None:
                hits.setdefault(node['uuid'], (node, key))
        if len(hits) > 1:
            problems.append('%s matches %d nodes in Ironic: %s. Make the '
                            'file name one node, or delete the other' % (
                                entry.label, len(hits), '; '.join(
                                    '%s (%s) by %s' % (
                                        n['uuid'], n.get('name') or 'no name',
                                        _key_text(k))
                                    for n, k in hits.values())))
            continue
        node = next(iter(hits.values()))[0] if hits else None
        if node is not None:
            other = taken.setdefault(node['uuid'], entry)
            if other is not entry:
                problems.append('%s and %s are the same Ironic node %s: '
                                'give it once' % (other.label, entry.label,
                                                  node['uuid']))
                continue
        have = {p['address'].lower(): p for p in ports
                if node is not None and p.get('node_uuid') == node['uuid']}
        patch, note = diff(entry, node) if node else ([], None)
        found.append(Match(
            entry, node, patch,
            [p for p in entry.ports if p['address'] not in have], note))
    if problems:
        raise nodes_json.NodesFileError('The node file', problems)
    return found


def _key_text(key):
    what, value = key
    return '%s %s' % (what, drivers.describe_bmc(value)
                      if what == 'BMC' else value)


def diff(entry, node):
    """``(patch, note)``: the JSON patch making ``node`` what ``entry``
    says, no more; ``CHANGED`` when its BMC credentials change."""
    want, patch = entry.body, []

    def put(path, value):
        patch.append({'op': 'add', 'path': path, 'value': value})

    for field in ('name', 'driver', 'resource_class') + \
            nodes_json.INTERFACES:
        if field in want and want[field] != node.get(field):
            put('/' + field, want[field])
    info = node.get('driver_info') or {}
    for key, value in sorted(want['driver_info'].items()):
        if info.get(key) != value:
            put('/driver_info/' + key, value)
    moved = any(p['path'][len('/driver_info/'):] in drivers.CREDENTIAL_KEYS
                for p in patch) or 'driver' in [p['path'][1:] for p in patch]
    same = bmc_digest.same((node.get('extra') or {}).get(bmc_digest.EXTRA),
                           entry.secrets) if entry.secrets else True
    if moved or not same or any(not info.get(k) for k in entry.secrets):
        for key, value in sorted(entry.secrets.items()):
            put('/driver_info/' + key, value)
        if entry.secrets:
            put('/extra/' + bmc_digest.EXTRA, bmc_digest.digest(
                entry.secrets))
    note = CHANGED if moved and info or same is False else None
    props = node.get('properties') or {}
    for key, value in sorted(want['properties'].items()):
        if key == 'capabilities':
            have = node_capabilities.parse(props.get('capabilities'))
            merged = dict(have, **node_capabilities.parse(value))
            if merged != have:
                put('/properties/capabilities', node_capabilities.text(merged))
        elif props.get(key) != value:
            put('/properties/' + key, value)
    return patch, note


def body(entry):
    """The node to create: the entry's body with its passwords (and their
    digest)."""
    made = dict(entry.body, driver_info=dict(entry.body['driver_info'],
                                             **entry.secrets))
    if entry.secrets:
        made['extra'] = {bmc_digest.EXTRA: bmc_digest.digest(entry.secrets)}
    return made


def register(ironic, entries, validate_only=False, sleep=time.sleep,
             clock=time.monotonic, timeout=MANAGE_TIMEOUT):
    """Match, then create, update and manage: one row per entry
    (``name``, ``uuid``, ``action``, ``provision_state``, ``changes``:
    the fields written, ``error``). ``validate_only``: the rows of what
    would be done (action ``would create``...), nothing written.
    ``timeout``: seconds from now to the answer; nodes still verifying
    then keep their action, with provision_state ``verifying`` and an
    error saying so."""
    deadline = clock() + timeout
    matches = match(ironic, entries)
    secrets = [s for e in entries for s in e.secrets.values()]
    rows = {id(m): _row(m) for m in matches}
    if validate_only:
        for m in matches:
            rows[id(m)]['action'] = 'would %s' % {
                'created': 'create', 'updated': 'update',
                'unchanged': 'stay unchanged'}[m.action]
        return [rows[id(m)] for m in matches]

    def write(m):
        if m.node is None:
            m.node = ironic.create_node(body(m.entry))
        elif m.patch:
            m.node = ironic.patch_node(m.node['uuid'], m.patch)
        for port in m.ports:
            ironic.create_port(dict(port, node_uuid=m.node['uuid']))
        if m.node.get('provision_state') == 'enroll':
            ironic.provision(m.node['uuid'], 'manage')
            return True
        return False

    managing = []
    for m, started, error in ironic.each(write, matches):
        row = rows[id(m)]
        row['uuid'] = m.node and m.node['uuid']
        if error is not None:
            row.update(action='failed', error=_said(error, secrets))
        elif started:
            managing.append(m)
    _wait_managed(ironic, managing, rows, sleep, clock, deadline, timeout)
    return [rows[id(m)] for m in matches]


def _row(m):
    return {'index': m.entry.index, 'name': m.entry.body.get('name'),
            'uuid': m.node['uuid'] if m.node else m.entry.body.get('uuid'),
            'action': m.action,
            'provision_state': m.node.get('provision_state') if m.node
            else None,
            'changes': sorted({p['path'] for p in m.patch} |
                              {'/ports/%s' % p['address']
                               for p in m.ports}),
            'note': m.note, 'error': None}


def _said(error, secrets):
    """An error's text with no password in it."""
    return masking.scrub(str(error), secrets)


def _wait_managed(ironic, managing, rows, sleep, clock, deadline, timeout):
    """Until every node asked to manage left ``verifying``, or
    ``deadline``: one listing a round; a node back in enroll failed
    (Ironic's last error said)."""
    waiting = {m.node['uuid']: m for m in managing}
    delay = 0.2
    while waiting:
        now = {n['uuid']: n for n in ironic.nodes(
            fields=('uuid', 'provision_state', 'target_provision_state',
                    'last_error'))}
        for uuid_, m in list(waiting.items()):
            node = now.get(uuid_) or {}
            state = node.get('provision_state')
            rows[id(m)]['provision_state'] = state
            if state == 'verifying' or node.get('target_provision_state'):
                continue
            del waiting[uuid_]
            if state != 'manageable':
                rows[id(m)].update(action='failed', error=(
                    'not manageable (%s): %s' % (
                        state, node.get('last_error') or 'no error given')))
        if waiting and clock() >= deadline:
            for uuid_, m in waiting.items():
                rows[id(m)]['error'] = STILL_VERIFYING % (timeout, uuid_)
            return
        if waiting:
            sleep(max(0, min(delay, deadline - clock())))
        delay = min(delay * 2, 5)
