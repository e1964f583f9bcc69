"""TripleO's node file (``instackenv.json`` / ``nodes.json``), read and
checked: what Ironic is given for each node.

JSON or YAML, ``{"nodes": [...]}`` or a bare list of nodes::

    {"name": "ctl-0", "pm_type": "ipmi", "pm_addr": "192.0.2.10",
     "pm_user": "admin", "pm_password": "...", "pm_port": 6230,
     "ports": [{"address": "52:54:00:aa:bb:01",
                "physical_network": "ctlplane"}],
     "cpu": 4, "memory": 8192, "disk": 100, "arch": "x86_64",
     "capabilities": "boot_mode:uefi", "profile": "control"}

Every problem of the file is named at once (the node by index and name,
the field, what to do); nothing comes out of a file with one. A node's
BMC password is kept apart from its Ironic body (``Entry.secrets``), so
printing or logging an entry never shows it.
"""

import ipaddress
import re
import uuid as uuid_mod

from tripleoplanclient.common import exceptions
from tripleoplanclient.common import suggestions
from tripleoplanclient.nodes import drivers
from tripleoplanclient.nodes import node_capabilities

# what a missing needed field is
NEEDED = {'pm_addr': 'the BMC address', 'pm_user': 'the BMC user',
          'pm_password': 'the BMC password',
          'pm_system_id': 'the Redfish system, e.g. /redfish/v1/Systems/1',
          'pm_vm_name': 'the VM\'s name in oVirt'}
INTERFACES = tuple('%s_interface' % i for i in (
    'bios', 'boot', 'console', 'deploy', 'firmware', 'inspect',
    'management', 'network', 'power', 'raid', 'rescue', 'storage',
    'vendor'))
# file field -> Ironic properties key, for the whole numbers
NUMBERS = {'cpu': 'cpus', 'memory': 'memory_mb', 'disk': 'local_gb'}
FIELDS = frozenset(('name', 'uuid', 'pm_type', 'ports', 'mac', 'arch',
                    'root_device', 'capabilities', 'profile',
                    'resource_class', 'kernel_id', 'ramdisk_id',
                    '_comment') + drivers.PM_FIELDS + tuple(NUMBERS) +
                   INTERFACES)
PORT_FIELDS = frozenset(('address', 'physical_network',
                         'local_link_connection', 'pxe_enabled'))
ROOT_HINTS = frozenset(('size', 'name', 'model', 'vendor', 'serial', 'wwn',
                        'wwn_with_extension', 'wwn_vendor_extension',
                        'by_path', 'rotational', 'hctl'))
DEFAULT_RESOURCE_CLASS = 'baremetal'
_MAC = re.compile(r'^[0-9a-f]{2}(:[0-9a-f]{2}){5}$')
# Ironic's logical names: RFC 3986 unreserved characters
_NAME = re.compile(r'^[A-Za-z0-9._~-]{1,255}$')


class NodesFileError(exceptions.CommandError):
    """Problems of a node file, every one in ``problems``."""

    def __init__(self, source, problems):
        self.problems = list(problems)
        super().__init__('%s has %d problem%s; nothing was registered:\n%s'
                         % (source, len(self.problems),
                            '' if len(self.problems) == 1 else 's',
                            '\n'.join('  - ' + p for p in self.problems)))


class Entry:
    """One node of the file: ``body`` (Ironic's node, no password),
    ``ports`` ([Ironic port body without node_uuid]), ``bmc`` (its
    ``bmc_key``), ``secrets`` ({driver_info key: password}), kept out of
    ``repr``."""

    def __init__(self, index, body, ports, secrets):
        self.index, self.body, self.ports = index, body, ports
        self.secrets = secrets
        self.bmc = drivers.bmc_key(body['driver'], body['driver_info'])

    @property
    def label(self):
        return label(self.index, self.body.get('name'))

    @property
    def macs(self):
        return [p['address'] for p in self.ports]

    def __repr__(self):
        return '<Entry %s>' % self.label


def label(index, name):
    return 'nodes[%d]%s' % (index, ' (%s)' % name if name else '')


def load(data, source):
    """The node list of a file's text (JSON is YAML), read by
    ``content.PlainLoader``: no YAML anchor or alias, at most
    ``content.MAX_NODE_FILE_BYTES``."""
    import yaml

    from tripleoplanclient.common import content

    try:
        loaded = content.parse(data, content.PlainLoader,
                               content.MAX_NODE_FILE_BYTES)
    except content.StructureError as exc:
        raise NodesFileError(source, [content.problem(exc)])
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        # the problem and where, not YAML's quote of the line: it may
        # hold a password
        mark = getattr(exc, 'problem_mark', None)
        raise NodesFileError(source, ['not JSON or YAML: %s%s' % (
            getattr(exc, 'problem', None) or type(exc).__name__,
            ' at line %d, column %d' % (mark.line + 1, mark.column + 1)
            if mark else '')])
    if isinstance(loaded, dict) and set(loaded) == {'nodes'}:
        loaded = loaded['nodes']
    if not isinstance(loaded, list):
        raise NodesFileError(source, [
            'give a list of nodes, or a mapping with only "nodes" holding '
            'one (TripleO\'s instackenv.json form)'])
    if not loaded:
        raise NodesFileError(source, ['the list of nodes is empty'])
    return loaded


def read(nodes, source, passwords=True):
    """``[Entry]`` of a list of node mappings, or NodesFileError naming
    every problem. ``passwords``: False refuses any pm_password (nodes
    given in a request Mistral keeps:
    ``mistral.node_registration.input_saved``)."""
    problems, entries = [], []
    for index, node in enumerate(nodes):
        found = []
        entry = _node(index, node, found, passwords)
        problems.extend(found)
        if entry is not None:
            entries.append(entry)
    problems.extend(_duplicates(entries))
    if problems:
        raise NodesFileError(source, problems)
    return entries


def _node(index, node, problems, passwords):
    if not isinstance(node, dict):
        problems.append('%s: a node is a mapping of fields, not %s'
                        % (label(index, None), type(node).__name__))
        return None
    name = node.get('name')
    where = label(index, name if isinstance(name, str) else None)

    def bad(text):
        problems.append('%s: %s' % (where, text))

    for field in sorted(set(node) - FIELDS, key=str):
        near = suggestions.close_matches(str(field), FIELDS, n=1)
        bad('unknown field %r: remove it%s' % (
            field, ' (did you mean %s?)' % ' or '.join(near) if near else ''))
    body = {'driver_info': {}, 'properties': {}}
    driver = _driver(node, body, bad, passwords)
    secrets = {}
    if driver:
        spec = drivers.DRIVERS[driver]
        for field in drivers.PM_FIELDS:
            value = node.get(field)
            if value is None or value == '':
                if field in spec.needed:
                    bad('%s is missing: the %s driver needs it (%s)' % (
                        field, driver, NEEDED[field]))
                continue
            if field not in spec.fields:
                bad('%s means nothing to the %s driver: remove it'
                    % (field, driver))
                continue
            _driver_field(field, value, spec.fields[field], body,
                          secrets, bad)
    if name is not None:
        if not isinstance(name, str) or not _NAME.match(name):
            bad('name %r is not a valid Ironic name: use letters, digits, '
                '".", "_", "-" or "~"' % (name,))
        else:
            body['name'] = name
    if node.get('uuid') is not None:
        try:
            body['uuid'] = str(uuid_mod.UUID(str(node['uuid'])))
        except ValueError:
            bad('uuid %r is not a UUID: remove it to let Ironic choose one'
                % (node['uuid'],))
    _properties(node, body, bad)
    for field in INTERFACES + ('resource_class',):
        value = node.get(field)
        if value is not None:
            if not isinstance(value, str) or not value.strip() or \
                    len(value) > 80:
                bad('%s must be a name (text of 1 to 80 characters)'
                    % field)
            else:
                body[field] = value
    body.setdefault('resource_class', DEFAULT_RESOURCE_CLASS)
    for field, key in (('kernel_id', 'deploy_kernel'),
                       ('ramdisk_id', 'deploy_ramdisk')):
        if node.get(field) is not None:
            if not isinstance(node[field], str) or not node[field]:
                bad('%s must be an image id or URL' % field)
            else:
                body['driver_info'][key] = node[field]
    ports = _ports(node, bad)
    if driver is None:
        return None
    body['driver'] = driver
    return Entry(index, body, ports, secrets)


def _driver(node, body, bad, passwords):
    if not passwords and node.get('pm_password') is not None:
        bad('pm_password given in a request Mistral keeps (a workflow\'s '
            'input, or a saved action execution, which the project can '
            'read): give the file to "openstack overcloud node import", or '
            'run the tripleoplan.node_register action on its own, unsaved '
            '(POST /v2/action_executions with params {"run_sync": true, '
            '"save_result": false})')
        node = dict(node, pm_password=None)
    pm_type = node.get('pm_type')
    if pm_type is None:
        bad('pm_type is missing: give the driver, one of %s'
            % ', '.join(sorted(drivers.DRIVERS)))
        return None
    driver = drivers.hardware_type(pm_type)
    if driver is None:
        bad('pm_type %r is not supported: use one of %s (old names such as '
            'pxe_ipmitool are read as their hardware type)'
            % (pm_type, ', '.join(sorted(drivers.DRIVERS))))
    return driver


def _driver_field(field, value, keys, body, secrets, bad):
    """``value`` of pm_ ``field`` written to each of ``keys`` (driver_info
    key, form); a password only to ``secrets``."""
    info = body['driver_info']
    if field == 'pm_port':
        if isinstance(value, bool) or not str(value).isdigit() or \
                not 0 < int(value) < 65536:
            bad('pm_port %r is not a port number (1 to 65535)' % (value,))
            return
        for key, _ in keys:
            info[key] = int(value)
        return
    if not isinstance(value, str) or len(value) > 255:
        bad('%s must be text of at most 255 characters' % field)
        return
    if field == 'pm_password':
        secrets.update((key, value) for key, _ in keys)
        return
    for key, form in keys:
        if form == drivers.URL:
            info[key] = value if '://' in value else 'https://' + value
        elif form == drivers.BARE:
            info[key] = drivers.bare(value)
        elif form == drivers.HOST and not _host(value):
            bad('%s %r is not an IP address or host name' % (field, value))
            return
        else:
            info[key] = value


def _host(value):
    try:
        ipaddress.ip_address(value)
        return True
    except ValueError:
        return bool(re.match(r'^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$',
                             value))


def _properties(node, body, bad):
    props = body['properties']
    for field, key in sorted(NUMBERS.items()):
        value = node.get(field)
        if value is None:
            continue
        if isinstance(value, bool) or not str(value).strip().isdigit() or \
                int(value) <= 0:
            bad('%s %r is not a whole number above 0 (%s)' % (
                field, value, {'cpu': 'CPUs', 'memory': 'MiB',
                               'disk': 'GiB'}[field]))
        else:
            props[key] = int(value)
    if node.get('arch') is not None:
        if not isinstance(node['arch'], str) or not node['arch']:
            bad('arch must be a CPU architecture, e.g. x86_64')
        else:
            props['cpu_arch'] = node['arch']
    hints = node.get('root_device')
    if hints is not None:
        if not isinstance(hints, dict) or not hints:
            bad('root_device must be a mapping of root device hints, e.g. '
                '{"serial": "..."}')
        elif set(hints) - ROOT_HINTS:
            bad('root_device: unknown hint(s) %s: use %s' % (
                ', '.join(sorted(map(str, set(hints) - ROOT_HINTS))),
                ', '.join(sorted(ROOT_HINTS))))
        else:
            props['root_device'] = hints
    caps = node_capabilities.parse(node.get('capabilities'), bad)
    profile = node.get('profile')
    if profile is not None:
        if not isinstance(profile, str) or \
                not node_capabilities.KEY.match(profile):
            bad('profile %r must be a name (letters, digits, "_", "-", '
                '".")' % (profile,))
        elif caps.get('profile', profile) != profile:
            bad('profile %s and capabilities profile:%s differ: give one'
                % (profile, caps['profile']))
        else:
            caps['profile'] = profile
    if caps:
        props['capabilities'] = node_capabilities.text(caps)


def _ports(node, bad):
    given = []
    for item in node.get('ports') or []:
        if not isinstance(item, dict) or 'address' not in item:
            bad('ports: each port is a mapping with an address (its MAC)')
            continue
        unknown = set(item) - PORT_FIELDS
        if unknown:
            bad('ports: unknown field(s) %s: use %s' % (
                ', '.join(sorted(map(str, unknown))),
                ', '.join(sorted(PORT_FIELDS))))
            continue
        given.append(dict(item))
    if node.get('ports') is not None and not isinstance(node['ports'],
                                                        list):
        bad('ports must be a list of mappings')
        given = []
    macs = node.get('mac')
    if macs is not None:
        if not isinstance(macs, list):
            bad('mac must be a list of MAC addresses')
        else:
            given.extend({'address': m} for m in macs)
    ports, seen = [], set()
    for port in given:
        mac = port['address']
        if not isinstance(mac, str) or not _MAC.match(mac.lower()):
            bad('MAC %r is not a MAC address (six hex pairs joined by '
                '":", e.g. 52:54:00:12:34:56)' % (mac,))
            continue
        port['address'] = mac.lower()
        if port['address'] in seen:
            bad('MAC %s is given twice: give it once' % port['address'])
            continue
        seen.add(port['address'])
        ports.append(port)
    return ports


def _duplicates(entries):
    """Names, uuids, MACs and BMCs given to more than one node."""
    problems = []
    first = {}
    for entry in entries:
        keys = [('name', entry.body.get('name')),
                ('uuid', entry.body.get('uuid')),
                ('BMC', entry.bmc and drivers.describe_bmc(entry.bmc))]
        keys.extend(('MAC', mac) for mac in entry.macs)
        for what, value in keys:
            if value is None:
                continue
            other = first.setdefault((what, value), entry)
            if other is not entry:
                problems.append('%s: %s %s is also %s\'s: each node needs '
                                'its own' % (entry.label, what, value,
                                             other.label))
    return problems
