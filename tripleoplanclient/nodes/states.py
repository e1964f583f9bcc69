"""Provide, and what introspection (``inspection``) shares with it:
nodes driven through Ironic's provision states, every node on its own
(one failing never stops the others).

``select`` takes the nodes an operation names; ``start_provide`` asks
Ironic for the first transition of each node and answers what the follow
task needs (``started``); ``follow`` is one look at all of them (one
listing), moving each node on when it is ready (provide after a power
off) and telling whether every node has ended. Nothing is kept between
rounds but ``started`` and Ironic's own state, so a follow task may run
in any executor.
"""

import time

from tripleoplanclient.common import exceptions

MANAGEABLE = 'manageable'
INSPECTING = ('inspecting', 'inspect wait')
# provide goes through automated cleaning when Ironic has it enabled
CLEANING = ('cleaning', 'clean wait')
# what a listing asks of each node
FIELDS = ('uuid', 'name', 'provision_state', 'power_state', 'last_error',
          'properties', 'maintenance')
# the properties inspection fills, shown in a node's row
INSPECTED = ('cpus', 'memory_mb', 'local_gb', 'cpu_arch')
SUCCESS, FAILED, IN_PROGRESS = 'SUCCESS', 'FAILED', 'IN_PROGRESS'


def select(ironic, idents, all_manageable, verb, states=(MANAGEABLE,)):
    """The nodes an operation takes (their ``FIELDS``): those ``idents``
    name (name or uuid), or every manageable node. CommandError naming
    every node that is unknown or not in ``states`` (None: any), before
    anything starts."""
    if all_manageable:
        if idents:
            raise exceptions.CommandError(
                'Name nodes or pass --all-manageable, not both.')
        return ironic.nodes(FIELDS, provision_state=MANAGEABLE)
    if not idents:
        raise exceptions.CommandError(
            'Name the nodes to %s, or pass --all-manageable.' % verb)
    known = {}
    for node in ironic.nodes(FIELDS):
        known[node['uuid']] = node
        if node.get('name'):
            known.setdefault(node['name'], node)
    chosen, problems = {}, []
    for ident in idents:
        node = known.get(ident)
        if node is None:
            problems.append('no node %s in Ironic' % ident)
        elif states and node['provision_state'] not in states:
            problems.append('%s is %s, not %s' % (
                ident, node['provision_state'], ' or '.join(states)))
        else:
            chosen.setdefault(node['uuid'], node)
    if problems:
        hint = ''
        if any(p.endswith(', not manageable') for p in problems):
            hint = (' ("openstack baremetal node manage <node>" makes a '
                    'node manageable)')
        raise exceptions.CommandError(
            'Cannot %s: %s%s. Nothing was started.' % (
                verb, '; '.join(problems), hint))
    return list(chosen.values())


def entry(node, error=None):
    return {'uuid': node['uuid'], 'name': node.get('name'),
            'error': error}


def start_provide(ironic, nodes, timeout, clock=time.time):
    """Power each node off, or provide it when it is off already; what
    ``follow`` needs."""
    done = ironic.each(lambda n: advance(ironic, n), nodes)
    return {'operation': 'provide', 'timeout': timeout,
            'deadline': clock() + timeout,
            'nodes': [entry(n, text(err)) for n, _, err in done]}


def text(error):
    return None if error is None else str(error)


def advance(ironic, node):
    """One step of a manageable node towards available: power off first
    (allocation skips a node whose power state is unknown), then provide.
    A request Ironic refuses while the node is busy (409) is asked again
    next round."""
    from tripleoplanclient.nodes import ironic as ironic_mod
    try:
        if node.get('power_state') != 'power off':
            ironic.power(node['uuid'], 'power off')
        else:
            ironic.provision(node['uuid'], 'provide')
    except ironic_mod.IronicError as exc:
        if exc.status != 409:
            raise


def follow(ironic, started, clock=time.time):
    """One look at the nodes being provided (one listing): moves on those
    ready for their next step; ``{'done', 'nodes': [row], 'failed'}``."""
    found = {n['uuid']: n for n in ironic.nodes(FIELDS)}
    late = clock() > started['deadline']
    rows, moves, bare = [], [], []
    for entry_ in started['nodes']:
        node = found.get(entry_['uuid'])
        row = {'name': entry_.get('name'), 'uuid': entry_['uuid'],
               'provision_state': node and node['provision_state'],
               'status': IN_PROGRESS, 'error': None}
        if entry_.get('error'):
            row.update(status=FAILED, error=entry_['error'])
        elif node is None:
            row.update(status=FAILED, error='deleted from Ironic meanwhile')
        elif _judge(row, node, moves):
            bare.append(row)
        if row['status'] == IN_PROGRESS and late:
            row.update(status=FAILED, error='still %s after %d s%s' % (
                node['provision_state'], started['timeout'],
                ' (last error: %s)' % node['last_error']
                if node.get('last_error') else ''))
        rows.append(row)
    moved = ironic.each(lambda n: advance(ironic, n), moves)
    failed_moves = {n['uuid']: err for n, _, err in moved if err}
    for row in rows:
        if row['uuid'] in failed_moves:
            row.update(status=FAILED, error=str(failed_moves[row['uuid']]))
    # Ironic's power state sync clears a node's last_error once it confirms
    # its power state: the reason is then only in the node's history.
    since = started['deadline'] - started['timeout']
    for row, event, _ in ironic.each(
            lambda r: ironic.error_event(r['uuid'], since), bare):
        if event:
            row['error'] = event
    return {'done': all(r['status'] != IN_PROGRESS for r in rows),
            'nodes': rows,
            'failed': sum(r['status'] == FAILED for r in rows)}


def _judge(row, node, moves):
    """The row's status from the node's state; ``moves`` gets the node
    when it needs its next step towards available. True when the row
    failed and Ironic gave no last_error."""
    state, error = node['provision_state'], node.get('last_error')
    if state == MANAGEABLE:
        moves.append(node)
    elif state in CLEANING:
        return False
    elif state == 'available':
        row['status'] = SUCCESS
    else:
        row.update(status=FAILED, error=error or 'left for %s' % state)
        return not error
    return False
