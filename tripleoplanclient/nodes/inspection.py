"""Introspection of a rack: at most ``concurrency`` inspections at once,
each node given ``node_timeout`` seconds (then aborted), retried up to
``max_retries`` times ``retry_timeout`` seconds after it failed, and
finally reported with its reason and powered off; one node failing never
stops the others.

The follow task's input (``started``) never changes from one round to the
next, so what each node went through is written on the node itself, in
its ``extra`` under ``RECORD``: this run's id, the attempt, when the
attempt started, and when and why it failed. A round reads it back from
the one listing; a node without this run's record is still queued.
"""

import time
import uuid

from tripleoplanclient.nodes import states

RECORD = 'tripleoplan_inspection'
FIELDS = states.FIELDS + ('extra',)
ABORTED = 'timed out after %d s'


def settings(req):
    """The request's per-node settings, or CommandError naming the bad
    one."""
    from tripleoplanclient.common import exceptions
    from tripleoplanclient.protocol import nodes
    found = {}
    for key, (least, most) in nodes.INTROSPECT_BOUNDS.items():
        value = req.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or \
                not least <= value <= most:
            raise exceptions.CommandError(
                'Bad node_introspect request: %s %r is not a whole number '
                'from %d to %d. Nothing was started.' % (key, value, least,
                                                         most))
        found[key] = value
    return found


def start(ironic, nodes, provide, timeout, limits, clock=time.time):
    """Inspect the first ``limits['concurrency']`` nodes; what ``follow``
    needs (the others are started by later rounds as slots free up)."""
    started = dict(limits, operation='introspect', provide=bool(provide),
                   timeout=timeout, deadline=clock() + timeout,
                   run=uuid.uuid4().hex,
                   nodes=[states.entry(n) for n in nodes])
    first = nodes[:limits['concurrency']]
    done = ironic.each(lambda n: _begin(ironic, started, n['uuid'], 1,
                                        clock), first)
    errors = {n['uuid']: states.text(err) for n, _, err in done}
    for entry in started['nodes']:
        entry['error'] = errors.get(entry['uuid'])
    return started


def _begin(ironic, started, uuid_, attempt, clock, before=None):
    """One attempt: the record written first (a round then knows the
    node started), then Ironic asked. A refusal is written down too: the
    node failed for good; but a retry Ironic refuses while the node is
    busy (409) gets its record ``before`` back, to be asked again next
    round."""
    record = {'run': started['run'], 'attempt': attempt, 'since': clock()}
    _write(ironic, uuid_, record)
    try:
        ironic.provision(uuid_, 'inspect')
    except Exception as exc:
        if before is not None and getattr(exc, 'status', None) == 409:
            _write(ironic, uuid_, before)
        else:
            _write(ironic, uuid_, dict(record, failed_at=clock(),
                                       final=True, reason=str(exc)))
        raise


def _write(ironic, uuid_, record):
    ironic.patch_node(uuid_, [{'op': 'add', 'path': '/extra/' + RECORD,
                               'value': record}])


def record(node, started):
    """This run's record on ``node``, or None (not started yet)."""
    found = ((node or {}).get('extra') or {}).get(RECORD)
    if isinstance(found, dict) and found.get('run') == started['run']:
        return found
    return None


def follow(ironic, started, clock=time.time):
    """One look (one listing): aborts the nodes past their timeout,
    retries or gives up on those that failed, starts queued nodes into
    free slots, provides those that passed (``provide``);
    ``{'done', 'nodes': [row], 'failed'}``."""
    now = clock()
    found = {n['uuid']: n for n in ironic.nodes(FIELDS)}
    late = now > started['deadline']
    rows, work, queued, busy = [], [], [], 0
    for entry in started['nodes']:
        node = found.get(entry['uuid'])
        mark = record(node, started)
        row = _row(entry, node, mark)
        rows.append(row)
        if entry.get('error') or (mark or {}).get('final'):
            row.update(status=states.FAILED,
                       error=entry.get('error') or mark['reason'])
        elif node is None:
            row.update(status=states.FAILED,
                       error='deleted from Ironic meanwhile')
        elif mark is None:
            queued.append((row, node))
        else:
            busy += _judge(row, node, mark, started, now, work)
    for row, node in queued:
        if late:
            row.update(status=states.FAILED, error=(
                'not started: the operation\'s %d s ran out first'
                % started['timeout']))
        elif busy < started['concurrency']:
            busy += 1
            row['attempts'] = 1
            work.append((row, node, 'begin', None))
    if late:
        _end_late(rows, found, started, work)
    for (row, _, what, _), _, err in ironic.each(
            lambda w: _do(ironic, started, w, clock), work):
        _done(row, what, err)
    return {'done': all(r['status'] != states.IN_PROGRESS for r in rows),
            'nodes': rows,
            'failed': sum(r['status'] == states.FAILED for r in rows)}


def _row(entry, node, mark):
    props = (node or {}).get('properties') or {}
    return {'name': entry.get('name'), 'uuid': entry['uuid'],
            'provision_state': node and node['provision_state'],
            'status': states.IN_PROGRESS, 'error': None,
            'attempts': (mark or {}).get('attempt', 0),
            'properties': {k: props[k] for k in states.INSPECTED
                           if k in props} if node else None}


def _judge(row, node, mark, started, now, work):
    """The row from the node and its record; the requests it needs go to
    ``work``. 1 when the node holds an inspection slot."""
    state = node['provision_state']
    if state in states.INSPECTING:
        if state == 'inspect wait' and \
                now - mark['since'] > started['node_timeout']:
            work.append((row, node, 'abort', now))
        return 1
    if state == 'inspect failed':
        if mark.get('failed_at') is None:
            work.append((row, node, 'failed', dict(
                mark, failed_at=now, reason=node.get('last_error'))))
            return 1
        if mark['attempt'] > started['max_retries']:
            _give_up(row, node, mark, work)
            return 0
        if now - mark['failed_at'] >= started['retry_timeout']:
            row['attempts'] = mark['attempt'] + 1
            work.append((row, node, 'begin', mark))
        return 1
    if state == states.MANAGEABLE:
        if started['provide']:
            work.append((row, node, 'advance', None))
        else:
            row['status'] = states.SUCCESS
    elif started['provide'] and state in states.CLEANING:
        pass
    elif started['provide'] and state == 'available':
        row['status'] = states.SUCCESS
    else:
        row.update(status=states.FAILED,
                   error=node.get('last_error') or 'left for %s' % state)
    return 0


def _give_up(row, node, mark, work):
    row.update(status=states.FAILED, error='%s (%d attempt%s)' % (
        mark['reason'], mark['attempt'], 's' if mark['attempt'] > 1
        else ''))
    if node.get('power_state') == 'power on':
        work.append((row, node, 'power off', None))
    elif node.get('power_state') == 'power off':
        row['error'] += '; powered off'


def _end_late(rows, found, started, work):
    """Past the operation's timeout: what still runs fails; inspections
    waiting for their ramdisk are aborted and powered off."""
    pending = {id(w[0]) for w in work}
    work[:] = [w for w in work if w[2] == 'power off']
    for row in rows:
        if row['status'] != states.IN_PROGRESS:
            continue
        node = found[row['uuid']]
        row.update(status=states.FAILED, error='still %s after the '
                   'operation\'s %d s' % (node['provision_state'],
                                          started['timeout']))
        if node['provision_state'] == 'inspect wait' or (
                id(row) in pending and
                node['provision_state'] == 'inspect failed'):
            work.append((row, node, 'stop', None))


def _do(ironic, started, item, clock):
    row, node, what, detail = item
    uuid_ = node['uuid']
    if what == 'begin':
        # detail: the record of the attempt before (None: the first)
        _begin(ironic, started, uuid_, detail['attempt'] + 1 if detail
               else 1, clock, detail)
    elif what == 'abort':
        # written first: the node's own failure is then told from ours
        mark = record(node, started)
        _write(ironic, uuid_, dict(mark, failed_at=detail, reason=ABORTED
                                   % started['node_timeout']))
        ironic.provision(uuid_, 'abort')
    elif what == 'failed':
        # Ironic's power state sync clears a node's last_error once it
        # confirms its power state: the reason is then only in its history
        if not detail['reason']:
            detail['reason'] = ironic.error_event(
                uuid_, detail['since']) or 'inspection failed'
        _write(ironic, uuid_, detail)
    elif what == 'advance':
        states.advance(ironic, node)
    elif what == 'stop':
        if node['provision_state'] == 'inspect wait':
            ironic.provision(uuid_, 'abort')
        ironic.power(uuid_, 'power off')
    elif what == 'power off':
        ironic.power(uuid_, 'power off')


def _done(row, what, err):
    """A request's outcome in its node's row. A node Ironic holds busy
    (409) is asked again next round."""
    if what in ('power off', 'stop'):
        row['error'] += ('; powered off' if err is None else
                         '; not powered off: %s' % err)
    elif err is not None and getattr(err, 'status', None) != 409:
        row.update(status=states.FAILED, error=str(err))
