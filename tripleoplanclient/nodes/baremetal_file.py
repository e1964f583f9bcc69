"""python-tripleoclient's baremetal deployment file
(``baremetal_deployment.yaml``), read and checked.

A list of roles::

    - name: Controller
      count: 1
      hostname_format: '%stackname%-controller-%index%'
      defaults:
        profile: control
        capabilities: {node: ctl}
        resource_class: baremetal
        networks: [{network: ctlplane, vif: true}]
        image: {href: 'file:///var/lib/ironic/images/overcloud-full.raw'}
        root_size_gb: 50
        config_drive: {cloud_config: {ntp: {enabled: true}}}
      instances:
        - hostname: overcloud-controller-0
          name: node-7          # this node (name or uuid)
          networks: [{network: ctlplane, fixed_ip: 192.168.24.20}]
          image: {href: 'https://images.example/oc.qcow2',
                  checksum: <sha256 hex>}
        - hostname: overcloud-controller-1
          provisioned: false    # to be released

``image``, ``root_size_gb``, ``swap_size_mb`` (``instance_info``) and
``config_drive`` (``config_drive``) as tripleo-ansible takes them: an
instance's own, else its role's defaults.

Every problem is named at once, by role and instance; nothing is done
when one is found. The same check runs in the client (before Mistral is
asked) and in the action (a request is untrusted input).
"""

import ipaddress

from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import config_drive
from tripleoplanclient.nodes import instance_info
from tripleoplanclient.nodes import node_capabilities

ROLE_FIELDS = {'name', 'count', 'hostname_format', 'defaults', 'instances'}
DEFAULT_FIELDS = {'profile', 'capabilities', 'resource_class', 'networks',
                  'image', 'config_drive', 'root_size_gb', 'swap_size_mb'}
INSTANCE_FIELDS = {'hostname', 'name', 'capabilities', 'networks',
                   'provisioned', 'profile', 'resource_class', 'image',
                   'config_drive', 'root_size_gb', 'swap_size_mb'}
RESOURCE_CLASS = 'baremetal'
CTLPLANE = 'ctlplane'
# THT's roles_data names Compute's hosts novacompute (HostnameFormatDefault)
_HOST_WORD = {'Compute': 'novacompute'}


def hostname_format(role):
    """THT's default hostname format of ``role``."""
    return '%%stackname%%-%s-%%index%%' % _HOST_WORD.get(role, role.lower())


def hostname(fmt, plan, index):
    return fmt.replace('%stackname%', plan).replace('%index%', str(index))


def _mapping(value, what, problems):
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
            isinstance(k, str) for k in value):
        problems.append('%s must be a mapping' % what)
        return {}
    return value


def _capabilities(value, what, problems):
    return node_capabilities.parse(value, lambda problem: problems.append(
        '%s: %s' % (what, problem)))


def _ctlplane_ip(networks, what, problems):
    """The fixed ctlplane address of an instance's ``networks``, or None."""
    if networks is None:
        return None
    if not isinstance(networks, list) or not all(
            isinstance(n, dict) and isinstance(n.get('network', ''), str)
            for n in networks):
        problems.append('%s networks must be a list of {network, '
                        'fixed_ip...} mappings' % what)
        return None
    for net in networks:
        if net.get('network') == CTLPLANE and net.get('fixed_ip'):
            try:
                return str(ipaddress.ip_address(str(net['fixed_ip'])))
            except ValueError:
                problems.append('%s: fixed_ip %r is no IP address'
                                % (what, net['fixed_ip']))
    return None


def _disk(item, what, problems):
    """The image, config drive and sizes of an instance or of a role's
    defaults, checked."""
    return {'image': instance_info.image(item.get('image'), what, problems),
            'config_drive': config_drive.check(item.get('config_drive'),
                                               what, problems),
            'root_size_gb': instance_info.size(
                item.get('root_size_gb'), '%s root_size_gb' % what,
                instance_info.ROOT_GB, 'GiB', problems),
            'swap_size_mb': instance_info.size(
                item.get('swap_size_mb'), '%s swap_size_mb' % what,
                instance_info.SWAP_MB, 'MiB', problems)}


def _instance(item, role, where, problems):
    what = '%s role %s instance %s' % (where, role, item.get('hostname')
                                       or item.get('name') or '?') \
        if isinstance(item, dict) else '%s role %s' % (where, role)
    if not isinstance(item, dict):
        problems.append('%s: an instance must be a mapping' % what)
        return None
    unknown = sorted(set(item) - INSTANCE_FIELDS)
    if unknown:
        problems.append('%s: unknown field(s) %s (known: %s)' % (
            what, ', '.join(map(str, unknown)),
            ', '.join(sorted(INSTANCE_FIELDS))))
    for key in ('hostname', 'name', 'profile', 'resource_class'):
        if item.get(key) is not None and (
                not isinstance(item[key], str) or not item[key]):
            problems.append('%s: %s must be text' % (what, key))
    if not item.get('hostname') and not item.get('name'):
        problems.append('%s: give a hostname or a name (a node)' % what)
    provisioned = item.get('provisioned', True)
    if not isinstance(provisioned, bool):
        problems.append('%s: provisioned must be true or false' % what)
    return {'hostname': item.get('hostname'), 'node': item.get('name'),
            'provisioned': provisioned is not False,
            'capabilities': _capabilities(item.get('capabilities'),
                                          what + ' capabilities', problems),
            'profile': item.get('profile'),
            'ctlplane_ip': _ctlplane_ip(item.get('networks'), what,
                                        problems),
            **_disk(item, what, problems)}


def _role(item, where, problems):
    if not isinstance(item, dict) or not isinstance(item.get('name'), str) \
            or not item.get('name'):
        problems.append('%s: each role must be a mapping with a name' % where)
        return None
    name = item['name']
    what = '%s role %s' % (where, name)
    unknown = sorted(set(item) - ROLE_FIELDS)
    if unknown:
        problems.append('%s: unknown field(s) %s (known: %s)' % (
            what, ', '.join(map(str, unknown)),
            ', '.join(sorted(ROLE_FIELDS))))
    defaults = _mapping(item.get('defaults'), what + ' defaults', problems)
    unknown = sorted(set(defaults) - DEFAULT_FIELDS)
    if unknown:
        problems.append('%s defaults: unknown field(s) %s (known: %s)' % (
            what, ', '.join(unknown), ', '.join(sorted(DEFAULT_FIELDS))))
    listed = item.get('instances') or []
    if not isinstance(listed, list):
        problems.append('%s: instances must be a list' % what)
        listed = []
    instances = [i for i in (_instance(i, name, where, problems)
                             for i in listed) if i is not None]
    wanted = sum(1 for i in instances if i['provisioned'])
    count = item.get('count', max(wanted, 1) if 'instances' not in item
                     else wanted)
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        problems.append('%s: count must be a whole number of at least 0'
                        % what)
        count = wanted
    elif count < wanted:
        problems.append('%s: count %d is less than its %d provisioned '
                        'instances' % (what, count, wanted))
    fmt = item.get('hostname_format') or hostname_format(name)
    if not isinstance(fmt, str) or '%index%' not in fmt:
        problems.append('%s: hostname_format must be text with %%index%%'
                        % what)
        fmt = hostname_format(name)
    for key in ('profile', 'resource_class'):
        if defaults.get(key) is not None and (
                not isinstance(defaults[key], str) or not defaults[key]):
            problems.append('%s defaults: %s must be text' % (what, key))
    disk = _disk(defaults, what + ' defaults', problems)
    checked = [(instance_info.merged(disk, i), '%s instance %s' % (
        what, i['hostname'] or i['node'])) for i in instances
        if i['provisioned']]
    if count > wanted:      # instances of the defaults alone
        checked.append((disk, what + ' defaults'))
    for settings, whose in checked:
        instance_info.check(settings, whose, problems)
    return {'name': name, 'count': count, 'hostname_format': fmt, **disk,
            'profile': defaults.get('profile'),
            'capabilities': _capabilities(defaults.get('capabilities'),
                                          what + ' defaults capabilities',
                                          problems),
            'resource_class': defaults.get('resource_class') or
            RESOURCE_CLASS,
            'instances': instances}


def read(data, where='the baremetal deployment'):
    """The roles of a baremetal deployment (the parsed YAML list), each
    ``{name, count, hostname_format, profile, capabilities,
    resource_class, instances: [{hostname, node, provisioned,
    capabilities, profile, ctlplane_ip, ...}], ...}``, where ``...`` is
    the role's defaults or the instance's own ``image``,
    ``config_drive``, ``root_size_gb`` and ``swap_size_mb`` (None when
    not given); CommandError naming every problem."""
    problems = []
    if not isinstance(data, list) or not data:
        raise exceptions.CommandError(
            '%s must be a list of roles (name, count, defaults, '
            'instances...). Nothing was provisioned.' % where)
    roles = [r for r in (_role(i, where, problems) for i in data)
             if r is not None]
    seen, hosts = set(), {}
    for role in roles:
        if role['name'] in seen:
            problems.append('%s: role %s is listed twice'
                            % (where, role['name']))
        seen.add(role['name'])
        for inst in role['instances']:
            for key in ('hostname', 'node'):
                if inst[key] and (key, inst[key]) in hosts:
                    problems.append('%s: %s %s is in roles %s and %s' % (
                        where, key, inst[key], hosts[(key, inst[key])],
                        role['name']))
                hosts.setdefault((key, inst[key]), role['name'])
    if problems:
        raise exceptions.CommandError(
            '%s has %d problem(s); nothing was provisioned:\n  %s' % (
                where, len(problems), '\n  '.join(problems)))
    return roles
