"""The deployed-server environment of a plan's provisioned nodes: what
our deploy takes for deployed servers on tripleo-heat-templates 18.

- ``<Role>Count`` and ``<Role>HostnameFormat`` per role (0 for a role
  whose nodes were all released, so THT's default count does not apply);
- ``HostnameMap``: the name Heat gives each index of a role (its
  hostname format) -> the instance's hostname;
- ``NodePortMap``: each host's ctlplane address (THT 18's way, with
  ``environments/deployed-ports.yaml``), and ``DeployedServerPortMap``
  (``<hostname>-ctlplane``) for the deprecated
  ``deployed-server-deployed-neutron-ports.yaml``.

The nodes of a role are numbered in their hostnames' natural order.
"""

import ipaddress

from tripleoplanclient.nodes import baremetal_file
from tripleoplanclient.nodes import provision

HEADER = (b'# Written by "openstack overcloud node provision" '
          b'(tripleoplanclient):\n# the deployed servers of plan %s.\n')


def environment(plan, roles, hosts, cidr=provision.CTLPLANE_CIDR):
    """The environment mapping. ``roles``: ``{role: hostname format}``;
    ``hosts``: ``[{role, hostname, ctlplane_ip, ctlplane_cidr}]`` (the
    network each address was given from; else ``cidr``)."""
    values = {'HostnameMap': {}, 'NodePortMap': {},
              'DeployedServerPortMap': {}}
    for role, fmt in sorted(roles.items()):
        mine = sorted((h for h in hosts if h['role'] == role),
                      key=lambda h: provision.natural(h['hostname']))
        values['%sCount' % role] = len(mine)
        values['%sHostnameFormat' % role] = fmt
        for index, host in enumerate(mine):
            values['HostnameMap'][baremetal_file.hostname(
                fmt, plan, index)] = host['hostname']
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


def dump(plan, env):
    import yaml

    return (HEADER % plan.encode('utf-8')) + yaml.safe_dump(
        env, default_flow_style=False, sort_keys=True).encode('utf-8')
