"""``tripleo-ansible-inventory.yaml`` of a stack, as tripleo-common 18.0.0's
``generate_tripleo_ansible_inventory`` wrote it for one plan (its static
form, every group of the plan prefixed ``<plan>_`` under an unprefixed
parent).

Groups: ``Undercloud`` (this host, a local connection), one per role with
its servers (``ansible_host`` the ctlplane address, ``deploy_server_id``,
``<network>_ip`` and ``<network>_hostname``), ``<plan>`` with the VIPs and
the container CLI, ``allovercloud``, one per service (and the ceph-ansible
names), ``excluded_overcloud``. The data: the stack's outputs and the two
parameter defaults of its environment that ``stack_data`` keeps.
tripleo-common also read Neutron's port tags and a work directory's
``inventory-network-config.yaml`` when it had them: neither is read here.
"""

import sys

from tripleoplanclient.common import exceptions
from tripleoplanclient.config import stack_data
from tripleoplanclient.config import writing

CEPH_GROUPS = {'ceph_mon': 'mons', 'ceph_osd': 'osds', 'ceph_mgr': 'mgrs',
               'ceph_rgw': 'rgws', 'ceph_mds': 'mdss', 'ceph_nfs': 'nfss',
               'ceph_client': 'clients', 'ceph_rbdmirror': 'rbdmirrors',
               'ceph_grafana': 'grafana-server'}
UNDERCLOUD_SERVICES = ['tripleo_ironic_conductor']


def _hosts(names):
    return {name: {} for name in names}


def _undercloud(data, plan, python):
    outputs = data['outputs']
    defaults = data['environment'].get('parameter_defaults') or {}
    found = {'ansible_host': 'localhost', 'ansible_connection': 'local',
             'ansible_remote_tmp': '/tmp/ansible-${USER}',
             'any_error_fatal': True, 'max_fail_percentage': 0,
             'ansible_python_interpreter': python,
             'undercloud_service_list': list(UNDERCLOUD_SERVICES),
             'plan': plan}
    if defaults.get('AdminPassword'):
        found['overcloud_admin_password'] = defaults['AdminPassword']
    if outputs.get('KeystoneURL'):
        found['overcloud_keystone_url'] = outputs['KeystoneURL']
    horizon = ((outputs.get('EndpointMap') or {}).get('HorizonPublic')
               or {}).get('uri')
    if horizon:
        found['overcloud_horizon_url'] = horizon
    return {'hosts': _hosts(['undercloud']), 'vars': found}


def _roles(groups, outputs, ssh_user, addresses):
    """Add a group per role with servers; their names, and the networks
    they are on."""
    ip_map = outputs.get('RoleNetIpMap') or {}
    ids = outputs.get('ServerIdData') or {}
    server_ids = ids.get('server_ids') or {}
    net = stack_data.HOST_NETWORK
    roles, networks = set(), set()
    for role, hostnames in (outputs.get('RoleNetHostnameMap') or {}).items():
        if not hostnames:
            continue
        role_ips = ip_map.get(role) or {}
        if net not in role_ips:
            continue
        ips = role_ips[net]
        if not ips:
            raise exceptions.CommandError(
                'Role %s has servers but no %s addresses in the stack '
                'output RoleNetIpMap: check the templates.' % (role, net))
        role_networks = sorted(str(n) for n in role_ips)
        networks.update(role_networks)
        if role == 'Undercloud':
            groups[role] = {}
        group = groups.setdefault(role, {})
        hosts = group.setdefault('hosts', {})
        found = group.setdefault('vars', {})
        for key, value in (('ansible_ssh_user', ssh_user),
                           ('bootstrap_server_id',
                            ids.get('bootstrap_server_id')),
                           ('tripleo_role_name', role),
                           ('tripleo_role_networks', role_networks),
                           ('serial', 1)):
            found.setdefault(key, value)
        role_ids = server_ids.get(role) or []
        names = hostnames.get(net) or []
        for index, full in enumerate(names):
            name = str(full).split('.%s.' % net)[0].lower()
            host = hosts.setdefault(name, {})
            host.setdefault('ansible_host', (addresses or {}).get(
                name, _at(ips, index)))
            if role_ids:
                host.setdefault('deploy_server_id', _at(role_ids, index))
            for network, values in role_ips.items():
                host.setdefault('%s_ip' % network, _at(values, index))
            for network, values in hostnames.items():
                host.setdefault('%s_hostname' % network, _at(values, index))
        roles.add(role)
    return roles, networks


def _at(values, index):
    return values[index] if isinstance(values, list) and \
        index < len(values) else None


def _services(groups, outputs, ssh_user):
    by_service = {}
    for role, services in (outputs.get('EnabledServices') or {}).items():
        for service in services or []:
            by_service.setdefault(service, set()).add(role)
    for service, alias in CEPH_GROUPS.items():
        if service in by_service:
            by_service[alias] = by_service[service]
    for service in sorted(by_service):
        children = [r for r in sorted(by_service[service])
                    if groups.get(r) is not None]
        if children:
            group = groups.setdefault(service.lower(), {})
            group.setdefault('vars', {}).setdefault('ansible_ssh_user',
                                                    ssh_user)
            group.setdefault('children', _hosts(children))


def _plan_groups(data, plan, ssh_user, addresses, python):
    """The groups of one plan before they are prefixed."""
    outputs = data['outputs']
    groups = {'Undercloud': _undercloud(data, plan, python)}
    roles, networks = _roles(groups, outputs, ssh_user, addresses)
    if roles:
        group = groups.setdefault(plan, {})
        found = group.setdefault('vars', {})
        for name, vip in (outputs.get('VipMap') or {}).items():
            if vip and (name in networks or name == 'redis'):
                found.setdefault('%s_vip' % name, vip)
        found.setdefault('container_cli', (data['environment'].get(
            'parameter_defaults') or {}).get('ContainerCli'))
        group.setdefault('children', _hosts(sorted(roles)))
        groups.setdefault('allovercloud', {'children': _hosts([plan])})
    _services(groups, outputs, ssh_user)
    excluded = groups.setdefault('excluded_overcloud', {})
    hosts = excluded.setdefault('hosts', {})
    for name in outputs.get('BlacklistedHostnames') or []:
        if name:
            hosts[name] = {}
    return groups


def groups(data, plan, ssh_user='tripleo-admin', addresses=None,
           python=None):
    """The inventory as data (``inventory`` dumps it)."""
    own = _plan_groups(data, plan, ssh_user, addresses,
                       python or sys.executable)
    top = {'Undercloud': own['Undercloud']}
    top['Undercloud']['vars']['plans'] = [plan]
    for key, group in own.items():
        if key == 'Undercloud':
            continue
        prefixed = '%s_%s' % (plan, key)
        if key != plan:
            top.setdefault(key, {'children': {}})['children'][prefixed] = {}
        if 'children' in group:
            top[prefixed] = {'children': _hosts(sorted(
                '%s_%s' % (plan, c) for c in group['children']))}
            if 'vars' in group:
                top[prefixed]['vars'] = group['vars']
            if key == 'allovercloud':
                top[plan] = {'children': _hosts([prefixed])}
        else:
            top[prefixed] = group
    return top


def inventory(data, plan, ssh_user='tripleo-admin', addresses=None,
              python=None):
    """The text of ``tripleo-ansible-inventory.yaml`` for stack ``data``
    (``stack_data.read``) of plan ``plan``.

    :param ssh_user: the login of every server (a group variable)
    :param addresses: ``{server name: address}`` the plan recorded, in
        place of the ctlplane addresses (``ansible_host``)
    :param python: the undercloud's Python for Ansible (default: this
        process's, as tripleo-common)
    """
    return writing.dump(groups(data, plan, ssh_user, addresses,
                               python)).decode('utf-8')
