"""Manage and manual cleaning: nodes made manageable, and Ironic's manual
cleaning with the clean steps of an operation (erase the disks' metadata,
apply or reset a BIOS configuration, build a RAID configuration).

``start_*`` asks Ironic for each node's first transition and answers what
``follow`` needs; the follow task then waits for each node (manageable,
available with provide, or its last error). A configuration is checked
whole before Ironic is asked anything.
"""

import time

from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import states

# the states manual cleaning and manage pass through on their own
WORKING = {'clean': states.CLEANING, 'manage': ('verifying',)}
# tripleoclient's ``overcloud node clean``: the disks' partition tables
# and metadata (tripleo-common's clean_nodes)
ERASE = [{'interface': 'deploy', 'step': 'erase_devices_metadata'}]
OPERATIONS = ('erase', 'bios_configure', 'bios_reset', 'raid_create')
# manage takes a node from these (Ironic's "manage" transitions)
MANAGE_FROM = ('enroll', 'available', 'inspect failed', 'clean failed',
               'adopt failed')
ALL_STATES = ('enroll', 'available')
# Bounds of a configuration: far above any real machine's
MAX_SETTINGS = 1000
MAX_DISKS = 64
MAX_TEXT = 1024
RAID_LEVELS = ('0', '1', '2', '5', '6', '1+0', '5+0', '6+0', 'JBOD')


def _bad(what, why):
    return exceptions.CommandError(
        'Bad %s: %s. Nothing was sent to Ironic.' % (what, why))


def _scalar(value):
    return value is None or (isinstance(value, (str, int, float, bool))
                             and len(str(value)) <= MAX_TEXT)


def bios_settings(configuration):
    """The settings list of a BIOS configuration (``{"settings": [{name,
    value}]}``, or the list alone); CommandError naming the first wrong
    item."""
    what = 'BIOS configuration'
    settings = configuration.get('settings') if isinstance(
        configuration, dict) else configuration
    if isinstance(configuration, dict) and set(configuration) - {
            'settings'}:
        raise _bad(what, 'unknown keys %s (only "settings")' % ', '.join(
            sorted(map(str, set(configuration) - {'settings'}))))
    if not isinstance(settings, list) or not settings:
        raise _bad(what, 'give {"settings": [{"name": ..., "value": ...}]}, '
                         'at least one setting')
    if len(settings) > MAX_SETTINGS:
        raise _bad(what, '%d settings, more than %d' % (
            len(settings), MAX_SETTINGS))
    for n, item in enumerate(settings, 1):
        if not isinstance(item, dict) or set(item) != {'name', 'value'}:
            raise _bad(what, 'setting %d is not a mapping of exactly "name" '
                             'and "value"' % n)
        if not isinstance(item['name'], str) or not item['name'] or len(
                item['name']) > 255 or not _scalar(item['value']):
            raise _bad(what, 'setting %d: a name of 1 to 255 characters and '
                             'a plain value of at most %d' % (n, MAX_TEXT))
    return [dict(item) for item in settings]


def raid_config(configuration):
    """A RAID configuration (``{"logical_disks": [...]}``) checked as far
    as every driver agrees (Ironic's schema checks the rest);
    CommandError naming the first wrong disk."""
    what = 'RAID configuration'
    if not isinstance(configuration, dict) or set(configuration) != {
            'logical_disks'}:
        raise _bad(what, 'give a mapping of exactly "logical_disks"')
    disks = configuration['logical_disks']
    if not isinstance(disks, list) or not 0 < len(disks) <= MAX_DISKS:
        raise _bad(what, 'logical_disks must list 1 to %d disks'
                   % MAX_DISKS)
    for n, disk in enumerate(disks, 1):
        if not isinstance(disk, dict) or len(disk) > 32:
            raise _bad(what, 'logical disk %d is not a mapping' % n)
        size = disk.get('size_gb')
        if size != 'MAX' and (isinstance(size, bool) or not isinstance(
                size, int) or size < 1):
            raise _bad(what, 'logical disk %d: size_gb must be a whole '
                             'number of GiB or "MAX"' % n)
        if disk.get('raid_level') not in RAID_LEVELS:
            raise _bad(what, 'logical disk %d: raid_level must be one of %s'
                       % (n, ', '.join(RAID_LEVELS)))
        if not all(isinstance(k, str) and len(k) <= 64 and (
                _scalar(v) or (isinstance(v, list) and len(v) <= 64 and all(
                    _scalar(i) or isinstance(i, dict) and len(str(i)) <=
                    MAX_TEXT for i in v))) for k, v in disk.items()):
            raise _bad(what, 'logical disk %d: keys are names, values plain '
                             'or short lists (physical_disks)' % n)
    return {'logical_disks': [dict(d) for d in disks]}


def clean_steps(operation, configuration=None):
    """Ironic's manual clean steps of ``operation``, its configuration
    checked."""
    if operation == 'erase':
        return [dict(step) for step in ERASE]
    if operation == 'bios_configure':
        return [{'interface': 'bios', 'step': 'apply_configuration',
                 'args': {'settings': bios_settings(configuration)}}]
    if operation == 'bios_reset':
        return [{'interface': 'bios', 'step': 'factory_reset'}]
    if operation == 'raid_create':
        raid_config(configuration)
        # tripleo-common's order: the old volumes go first
        return [{'interface': 'raid', 'step': 'delete_configuration'},
                {'interface': 'raid', 'step': 'create_configuration'}]
    raise _bad('node_clean request', 'operation %r is not one of %s' % (
        operation, ', '.join(OPERATIONS)))


def follow(ironic, started, clock=time.time):
    """One look (one listing) at the nodes a ``start_*`` began: each ends
    manageable, or failed with Ironic's reason (``still <state>`` past the
    deadline); ``{'done', 'nodes': [row], 'failed'}``. Cleaning with
    provide goes on as ``states.follow``: once cleaned (manageable), a
    node is powered off and provided."""
    if started['provide']:
        return states.follow(ironic, started, clock)
    found = {n['uuid']: n for n in ironic.nodes(states.FIELDS)}
    late = clock() > started['deadline']
    working = WORKING[started['operation']]
    rows, bare = [], []
    for entry in started['nodes']:
        node = found.get(entry['uuid'])
        state = node and node['provision_state']
        row = {'name': entry.get('name'), 'uuid': entry['uuid'],
               'provision_state': state, 'status': states.IN_PROGRESS,
               'error': None}
        if entry.get('error'):
            row.update(status=states.FAILED, error=entry['error'])
        elif node is None:
            row.update(status=states.FAILED,
                       error='deleted from Ironic meanwhile')
        elif state == states.MANAGEABLE:
            row['status'] = states.SUCCESS
        elif state not in working:
            row.update(status=states.FAILED, error=node.get(
                'last_error') or 'left for %s' % state)
            if not node.get('last_error'):
                bare.append(row)
        elif late:
            row.update(status=states.FAILED, error='still %s after %d s' % (
                state, started['timeout']))
        rows.append(row)
    # Ironic's power state sync clears a node's last_error once it confirms
    # its power state (a failed verification): the reason is then in the
    # node's history.
    since = started['deadline'] - started['timeout']
    for row, event, _ in ironic.each(
            lambda r: ironic.error_event(r['uuid'], since), bare):
        if event:
            row['error'] = event
    return {'done': all(r['status'] != states.IN_PROGRESS for r in rows),
            'nodes': rows,
            'failed': sum(r['status'] == states.FAILED for r in rows)}


def _started(operation, nodes, done, provide, timeout, clock):
    return {'operation': operation, 'provide': bool(provide),
            'timeout': timeout, 'deadline': clock() + timeout,
            'nodes': [{'uuid': n['uuid'], 'name': n.get('name'),
                       'error': None if err is None else str(err)}
                      for n, _, err in done]}


def start_clean(ironic, nodes, operation, configuration, provide, timeout,
                clock=time.time):
    """Ask Ironic to clean each node with ``operation``'s steps (a RAID
    build sets the node's target RAID configuration first); what
    ``follow`` needs. A node Ironic refuses is failed, the others go
    on."""
    steps = clean_steps(operation, configuration)
    target = raid_config(configuration) if operation == 'raid_create' \
        else None

    def clean(node):
        if target is not None:
            ironic.call('PUT', '/nodes/%s/states/raid' % node['uuid'],
                        target)
        ironic.provision(node['uuid'], 'clean', clean_steps=steps)

    return _started('clean', nodes, ironic.each(clean, nodes), provide,
                    timeout, clock)


def select_manage(ironic, idents, all_state):
    """The nodes ``manage`` takes: those ``idents`` name (in a state it
    leaves, or manageable already), or every node in ``all_state``
    (enroll or available); CommandError before anything starts."""
    if all_state is not None and all_state not in ALL_STATES:
        raise _bad('node_manage request', 'all_state %r is not one of %s'
                   % (all_state, ', '.join(ALL_STATES)))
    if all_state and idents:
        raise exceptions.CommandError(
            'Name nodes or pass --all-%s, not both.' % all_state)
    if all_state:
        return ironic.nodes(states.FIELDS, provision_state=all_state)
    return states.select(ironic, idents, False, 'manage',
                         states=MANAGE_FROM + (states.MANAGEABLE,))


def start_manage(ironic, nodes, timeout, clock=time.time):
    """Ask Ironic to manage each node not manageable yet (one in enroll
    has its BMC verified first)."""
    done = ironic.each(
        lambda n: n['provision_state'] == states.MANAGEABLE or
        ironic.provision(n['uuid'], 'manage'), nodes)
    return _started('manage', nodes, done, False, timeout, clock)
