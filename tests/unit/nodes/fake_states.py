"""Provision states and allocations of ``fake_ironic.FakeIronic`` (a
mixin: the node store, ``_find``, ``_touch`` and ``Failure`` are there).
"""

import copy
import datetime
import uuid


class Failure(Exception):
    """Answered as ``status`` with Ironic's ``error_message``."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


# target -> {from state: (intermediate, success, failure)}
TRANSITIONS = {
    'manage': {'enroll': ('verifying', 'manageable', 'enroll'),
               'available': (None, 'manageable', None),
               'inspect failed': (None, 'manageable', None),
               'clean failed': (None, 'manageable', None),
               'manageable': (None, 'manageable', None)},
    # the agent's inspection: waits for its ramdisk in 'inspect wait'
    'inspect': {'manageable': ('inspect wait', 'manageable',
                               'inspect failed'),
                'inspect failed': ('inspect wait', 'manageable',
                                   'inspect failed')},
    'provide': {'manageable': ('cleaning', 'available', 'clean failed')},
    'clean': {'manageable': ('cleaning', 'manageable', 'clean failed')},
    'active': {'available': ('deploying', 'active', 'deploy failed')},
    'deleted': {'active': ('deleting', 'available', 'error'),
                'deploy failed': ('deleting', 'available', 'error'),
                'error': ('deleting', 'available', 'error')},
    'abort': {'inspect wait': (None, 'inspect failed', None),
              'cleaning': (None, 'clean failed', None),
              'clean wait': (None, 'clean failed', None)},
}
# What an inspection sets when the test gave no properties
INSPECTED = {'cpus': 4, 'memory_mb': 8192, 'local_gb': 99,
             'cpu_arch': 'x86_64'}


class States:
    """Provision transitions (``hold``/``fail`` honoured) and Ironic's
    allocation API."""

    def _provision(self, node, body):
        target = body['target']
        state = node['provision_state']
        moves = TRANSITIONS.get(target)
        if target == 'abort' and state == 'inspect wait':
            # as Ironic: the wait ends, the node stays powered on
            self._holds.pop(node['uuid'], None)
            node.update(provision_state='inspect failed',
                        target_provision_state=None,
                        last_error='Inspection was aborted by request.')
            self._touch(node)
            return
        if moves is None or state not in moves or node.get(
                'target_provision_state'):
            raise Failure(400, 'The requested action "%s" can not be '
                          'performed on node "%s" while it is in state '
                          '"%s".' % (target, node['uuid'], state))
        middle, success, failure = moves[state]
        if target == 'active' and node['power_state'] is None:
            raise Failure(400, 'Node %s power state is unknown'
                          % node['uuid'])
        error = self._fails.pop((node['uuid'], target), None)
        end = failure if error is not None else success
        node['last_error'] = None
        if target == 'inspect':
            node['power_state'] = 'power on'
        reads = self._next_hold.pop(node['uuid'], 0)
        if target == 'inspect' and node['uuid'] in self._hangs:
            reads = float('inf')
        if middle and reads:
            node.update(provision_state=middle,
                        target_provision_state=success)
            self._holds[node['uuid']] = (reads, target, end, error)
        else:
            self._finish(node, target, end, error)
        self._touch(node)

    def sync_power(self, ident):
        """Ironic's power state sync confirming the node's power state: it
        clears last_error (the history keeps it)."""
        self._find(ident)['last_error'] = None

    def _history(self, node, query):
        """GET /nodes/<node>/history (oldest first, as Ironic's default;
        sort_dir=desc and limit honoured)."""
        events = list(self.history.get(node['uuid'], ()))
        if query.get('sort_dir') == 'desc':
            events.reverse()
        if query.get('detail') not in ('True', 'true'):
            # as Ironic: without detail, an event's text is cut at 255
            events = [dict(e, event=e['event'][:251] + '...')
                      if len(e.get('event') or '') > 255 else e
                      for e in events]
        return 200, {'history': events[:int(query.get('limit', 1000))]}

    def _read(self, node):
        """A read of a held node: one step nearer its end."""
        held = self._holds.get(node['uuid'])
        if held is None:
            return
        reads, target, end, error = held
        if reads > 1:
            self._holds[node['uuid']] = (reads - 1, target, end, error)
            return
        del self._holds[node['uuid']]
        self._finish(node, target, end, error)

    def _finish(self, node, target, end, error):
        node.update(provision_state=end, target_provision_state=None,
                    last_error=error)
        if error is not None:
            self.history.setdefault(node['uuid'], []).append({
                'uuid': str(uuid.uuid4()), 'severity': 'ERROR',
                'event': error, 'created_at': datetime.datetime.now(
                    datetime.timezone.utc).isoformat()})
            return
        if target == 'manage' and node['power_state'] is None:
            node['power_state'] = 'power off'
        elif target == 'inspect':
            node['power_state'] = 'power off'
            inspected = self.inspected.get(node['uuid'], INSPECTED)
            caps = node['properties'].get('capabilities') or ''
            node['properties'].update(inspected)
            kept = [c for c in caps.split(',') if c.startswith('profile:')]
            new = inspected.get('capabilities') or 'boot_mode:uefi'
            node['properties']['capabilities'] = ','.join(
                [new] + [c for c in kept if c not in new.split(',')])
        elif target == 'deleted':
            node.update(instance_uuid=None, instance_info={},
                        power_state='power off')
            allocation = self.allocations.pop(
                node.get('allocation_uuid') or '', None)
            node['allocation_uuid'] = None
            if allocation:
                node['instance_uuid'] = None
        elif target == 'active':
            node['power_state'] = 'power on'
        self._touch(node)

    # -- allocations ----------------------------------------------------

    def _allocations(self, method, parts, body):
        if not parts and method == 'POST':
            return 201, self._allocate(body)
        if len(parts) == 1 and parts[0] in self.allocations:
            allocation = self.allocations[parts[0]]
            if method == 'GET':
                return 200, copy.deepcopy(allocation)
            if method == 'DELETE':
                node = self.nodes.get(allocation['node_uuid'] or '')
                if node is not None:
                    if node['provision_state'] == 'active':
                        raise Failure(409, 'Cannot remove allocation of '
                                      'an active node')
                    node.update(instance_uuid=None, allocation_uuid=None)
                del self.allocations[parts[0]]
                return 204, None
        raise Failure(404, 'Allocation %s could not be found.'
                      % '/'.join(parts))

    def _allocate(self, body):
        """Ironic's allocation at once: an available, powered, free,
        not-in-maintenance node of the resource class (among the
        candidates, with the traits given in ``properties.traits``)."""
        allocation = {'uuid': body.get('uuid') or str(uuid.uuid4()),
                      'name': body.get('name'),
                      'resource_class': body.get('resource_class'),
                      'candidate_nodes': body.get('candidate_nodes') or [],
                      'traits': body.get('traits') or [],
                      'extra': body.get('extra') or {},
                      'node_uuid': None, 'state': 'error',
                      'last_error': None}
        candidates = [self._find(c)['uuid']
                      for c in allocation['candidate_nodes']]
        for node in self.nodes.values():
            if (node['provision_state'] == 'available' and
                    node['power_state'] is not None and
                    not node['maintenance'] and
                    not node['instance_uuid'] and
                    node['resource_class'] == allocation['resource_class']
                    and (not candidates or node['uuid'] in candidates) and
                    set(allocation['traits']) <= set(
                        node['properties'].get('traits') or [])):
                node.update(instance_uuid=allocation['uuid'],
                            allocation_uuid=allocation['uuid'])
                allocation.update(node_uuid=node['uuid'], state='active')
                break
        else:
            allocation['last_error'] = (
                'Failed to process allocation %s: no available nodes match '
                'the resource class %s.' % (allocation['uuid'],
                                            allocation['resource_class']))
        self.allocations[allocation['uuid']] = allocation
        return copy.deepcopy(allocation)
