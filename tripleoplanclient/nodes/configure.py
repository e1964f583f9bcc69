"""Configure nodes for deployment: the deploy kernel and ramdisk in their
``driver_info``, and root device hints in their properties.

Root device: hints given as a mapping (Ironic's hint names: serial, wwn,
name, size...) are set as they are; ``smallest`` or ``largest`` picks
that disk of at least the minimum size from the node's inspection
inventory (``GET /v1/nodes/{id}/inventory``), as do device names
(``sda,vda``: the first of them the node has), hinting it by its WWN,
else its serial, else its name; ``local_gb`` then becomes its size less
one GiB (room for the partition table, as TripleO did).
"""

from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import states

GIB = 1024 ** 3
STRATEGIES = ('smallest', 'largest')


def root_device_spec(value):
    """The request's ``root_device`` checked: None, a strategy, a hints
    mapping, or a list of device names; CommandError otherwise."""
    if value is None or value in STRATEGIES:
        return value
    if isinstance(value, dict) and value and all(
            isinstance(k, str) for k in value):
        return dict(value)
    if isinstance(value, str):
        value = [v for v in value.split(',') if v.strip()]
    if isinstance(value, list) and value and all(
            isinstance(v, str) and v.strip() for v in value):
        return [v.strip().rsplit('/', 1)[-1] for v in value]
    raise exceptions.CommandError(
        'Bad root device %r: give smallest, largest, device names '
        '(sda,vda) or a JSON mapping of hints (e.g. {"serial": "S1"}).'
        % (value,))


def _pick(disks, spec, minimum_gib):
    """The disk ``spec`` (a strategy or names) chooses among ``disks`` of
    at least ``minimum_gib``; None when none fits."""
    big = [d for d in disks if (d.get('size') or 0) >= minimum_gib * GIB]
    if isinstance(spec, list):
        for name in spec:
            for disk in big:
                if (disk.get('name') or '').rsplit('/', 1)[-1] == name:
                    return disk
        return None
    if not big:
        return None
    return (min if spec == 'smallest' else max)(
        big, key=lambda d: d.get('size') or 0)


def _hints(disk):
    for key in ('wwn', 'serial'):
        if disk.get(key):
            return {key: disk[key]}
    return {'name': disk['name']}


def configure(ironic, nodes, req):
    """Configure ``nodes`` (``states.FIELDS``) as ``req`` (node_configure's
    request) says; a row per node, the others going on when one fails."""
    spec = root_device_spec(req['root_device'])
    driver = [{'op': 'add', 'path': '/driver_info/%s' % key,
               'value': req[key]}
              for key in ('deploy_kernel', 'deploy_ramdisk') if req[key]]

    def one(node):
        ops, hints = list(driver), None
        props = node.get('properties') or {}
        kept = bool(props.get('root_device')) and \
            not req['overwrite_root_device_hints']
        if isinstance(spec, dict):
            hints = spec
        elif spec is not None:
            disks = (_inventory(ironic, node).get('inventory') or {}).get(
                'disks') or []
            disk = _pick(disks, spec, req['root_device_minimum_size'])
            if disk is None:
                raise exceptions.CommandError(
                    'no disk of %s GiB or more%s among its %d disks' % (
                        req['root_device_minimum_size'],
                        ' named %s' % ','.join(spec)
                        if isinstance(spec, list) else '', len(disks)))
            hints = _hints(disk)
            if not kept:
                ops.append({'op': 'add', 'path': '/properties/local_gb',
                            'value': max(1, disk['size'] // GIB - 1)})
        if hints is not None and not kept:
            ops.append({'op': 'add', 'path': '/properties/root_device',
                        'value': hints})
        if ops:
            ironic.patch_node(node['uuid'], ops)
        return (props.get('root_device') if kept or hints is None
                else hints), ('SUCCESS' if ops else 'UNCHANGED')

    rows = []
    for node, done, err in ironic.each(one, nodes):
        root, status = done or (None, states.FAILED)
        rows.append({'name': node.get('name'), 'uuid': node['uuid'],
                     'root_device': root, 'status': status,
                     'error': _why(err)})
    return rows


def _inventory(ironic, node):
    from tripleoplanclient.nodes import ironic as ironic_mod
    try:
        return ironic.call('GET', '/nodes/%s/inventory' % node['uuid'])
    except ironic_mod.IronicError as exc:
        if exc.status != 404:
            raise
        raise exceptions.CommandError(
            'no inspection inventory in Ironic: introspect the node first, '
            'or give the hints as a mapping')


def _why(err):
    return None if err is None else str(err)
