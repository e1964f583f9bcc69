"""The deployed-server environment of a plan's provisioned nodes: what
our deploy takes for deployed servers on tripleo-heat-templates 18.

- ``<Role>Count`` and ``<Role>HostnameFormat`` per role (0 for a role
  whose nodes were all released, so THT's default count does not apply);
- ``HostnameMap``: the name Heat gives each index of a role (its
  hostname format) -> the instance's hostname;
- ``<Role>RemovalPolicies``: the indexes of the role's ResourceGroup
  taken away (``overcloud node delete``, or a node released from the
  middle), kept for the plan's life so no later update brings one back;
- ``NodePortMap``: each host's ctlplane address (THT 18's way, with
  ``environments/deployed-ports.yaml``), and ``DeployedServerPortMap``
  (``<hostname>-ctlplane``) for the deprecated
  ``deployed-server-deployed-neutron-ports.yaml``.

One rule for which index a host has (``indexes``): the index recorded on
its node when it was claimed (``extra.tripleoplan.index``: the lowest one
the role never used), so every other server keeps its name, index and
address whatever is released. Nodes claimed before indexes were recorded
keep the one the plan's HostnameMap gave them (then hostname order).
"""

import ipaddress
import re

from tripleoplanclient.nodes import baremetal_file
from tripleoplanclient.nodes import provision

HEADER = (b'# Written by "openstack overcloud node provision" '
          b'(tripleoplanclient):\n# the deployed servers of plan %s.\n')
_INDEX = re.compile(r'^[0-9]{1,6}$')


def removed(values):
    """``{role: {index}}``: the indexes an environment's
    ``<Role>RemovalPolicies`` take away (``values``: its
    parameter_defaults; what is not ours to read is skipped)."""
    out = {}
    for key, policies in (values or {}).items():
        if not key.endswith('RemovalPolicies') or not isinstance(
                policies, list):
            continue
        role = key[:-len('RemovalPolicies')]
        for policy in policies:
            for item in (policy or {}).get('resource_list') or () \
                    if isinstance(policy, dict) else ():
                if _INDEX.match(str(item)):
                    out.setdefault(role, set()).add(int(item))
    return out


def _mapped(plan, fmt, hostname_map, hostname):
    """The index the plan's HostnameMap gave ``hostname``, or None."""
    name = re.compile('^%s$' % re.escape(baremetal_file.hostname(
        fmt, plan, '%index%')).replace(re.escape('%index%'), '([0-9]{1,6})'))
    for key, host in (hostname_map or {}).items():
        found = name.match(key) if host == hostname else None
        if found:
            return int(found.group(1))
    return None


def indexes(plan, fmt, hosts, gone=(), hostname_map=None):
    """``{hostname: index}`` of one role's ``hosts`` (``[{hostname,
    index}]``): a recorded index kept; a host without one takes the one
    ``hostname_map`` gave it, else the lowest free, in hostname order.
    ``gone``: indexes never given again."""
    out = {h['hostname']: h['index'] for h in hosts
           if isinstance(h.get('index'), int)}
    taken = set(out.values()) | set(gone)
    rest = sorted((h['hostname'] for h in hosts
                   if h['hostname'] not in out), key=provision.natural)
    for hostname in list(rest):
        index = _mapped(plan, fmt, hostname_map, hostname)
        if index is not None and index not in taken:
            out[hostname] = index
            taken.add(index)
            rest.remove(hostname)
    index = 0
    for hostname in rest:
        while index in taken:
            index += 1
        out[hostname] = index
        taken.add(index)
    return out


def released(plan, roles, hostname_map, hostnames):
    """``{role: {index}}`` of ``hostnames`` (released now) as the plan's
    HostnameMap numbered them; ``roles``: ``{role: hostname format}``."""
    out = {}
    for hostname in hostnames:
        for role, fmt in roles.items():
            index = _mapped(plan, fmt, hostname_map, hostname)
            if index is not None:
                out.setdefault(role, set()).add(index)
                break
    return out


def used(plan, nodes, values):
    """``{role: {index}}`` a plan's provisioned ``nodes`` (``[record]``)
    hold, with those its environment's ``values`` took away: a new node
    takes none of them."""
    out = removed(values)
    by_role = {}
    for rec in nodes:
        by_role.setdefault(rec['role'], []).append(rec)
    for role, mine in by_role.items():
        fmt = mine[0].get('hostname_format') or \
            baremetal_file.hostname_format(role)
        out.setdefault(role, set()).update(indexes(
            plan, fmt, mine, out.get(role, ()),
            values.get('HostnameMap')).values())
    return out


def environment(plan, roles, hosts, cidr=provision.CTLPLANE_CIDR,
                gone=None, hostname_map=None):
    """The environment mapping. ``roles``: ``{role: hostname format}``;
    ``hosts``: ``[{role, hostname, ctlplane_ip, ctlplane_cidr, index}]``
    (the network each address was given from; else ``cidr``); ``gone``:
    ``{role: {index}}`` taken away before (``removed``), with the indexes
    of the hosts released now; ``hostname_map``: the plan's before (the
    indexes of nodes claimed before they were recorded)."""
    gone = gone or {}
    values = {'HostnameMap': {}, 'NodePortMap': {},
              'DeployedServerPortMap': {}}
    for role, fmt in sorted(roles.items()):
        mine = [h for h in hosts if h['role'] == role]
        values['%sCount' % role] = len(mine)
        values['%sHostnameFormat' % role] = fmt
        if gone.get(role):
            values['%sRemovalPolicies' % role] = [{'resource_list': [
                str(i) for i in sorted(gone[role])]}]
        numbers = indexes(plan, fmt, mine, gone.get(role, ()), hostname_map)
        for host in sorted(mine, key=lambda h: numbers[h['hostname']]):
            values['HostnameMap'][baremetal_file.hostname(
                fmt, plan, numbers[host['hostname']])] = host['hostname']
            address = host['ctlplane_ip']
            net = ipaddress.ip_network(host.get('ctlplane_cidr') or cidr,
                                       strict=False)
            values['NodePortMap'][host['hostname']] = {
                baremetal_file.CTLPLANE: {
                    'ip_address': address, 'ip_address_uri': address,
                    'ip_subnet': '%s/%d' % (address, net.prefixlen)}}
            values['DeployedServerPortMap']['%s-%s' % (
                host['hostname'], baremetal_file.CTLPLANE)] = {
                'fixed_ips': [{'ip_address': address}],
                'subnets': [{'cidr': str(net)}],
                'network': {'tags': [str(net)]}}
    return {'parameter_defaults': values}


def scale_down(values, members, chosen):
    """``values`` (an environment's parameter_defaults, or {}) with the
    servers ``chosen`` (``[(role, index, hostname)]``) taken away:
    ``<Role>Count`` the role's ``members`` (``{role: {index: hostname}}``,
    the stack's) less those, ``<Role>RemovalPolicies`` the earlier
    indexes and these, and their HostnameMap, NodePortMap and
    DeployedServerPortMap entries dropped; a new mapping."""
    out = dict(values or {})
    gone = removed(out)
    for role, index, _ in chosen:
        gone.setdefault(role, set()).add(index)
    for role in sorted({r for r, _, _ in chosen}):
        out['%sCount' % role] = len(set(members[role]) - gone[role])
        out['%sRemovalPolicies' % role] = [{'resource_list': [
            str(i) for i in sorted(gone[role])]}]
    hostnames = {h for _, _, h in chosen}
    suffix = '-' + baremetal_file.CTLPLANE
    kept = {'HostnameMap': lambda k, v: v not in hostnames,
            'NodePortMap': lambda k, v: k not in hostnames,
            'DeployedServerPortMap': lambda k, v: not (
                k.endswith(suffix) and k[:-len(suffix)] in hostnames)}
    for key, keep in kept.items():
        if isinstance(out.get(key), dict):
            out[key] = {k: v for k, v in out[key].items()
                        if not isinstance(k, str) or keep(k, v)}
    return out


def dump(plan, env, header=HEADER):
    import yaml

    return (header % plan.encode('utf-8')) + yaml.safe_dump(
        env, default_flow_style=False, sort_keys=True).encode('utf-8')
