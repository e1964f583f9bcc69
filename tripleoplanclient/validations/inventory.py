"""The hosts a validation run targets, as an Ansible inventory (JSON).

the undercloud always, run locally (``ansible_connection: local``: the
host ``undercloud`` of the groups ``undercloud`` and ``Undercloud``;
``localhost`` is Ansible's own); with a plan whose stack
exists, one group per role under ``overcloud`` (and ``allovercloud``),
each server at its control plane address, from the stack's outputs
(tripleo-heat-templates' ``RoleNetHostnameMap`` and ``RoleNetIpMap``).
The servers are reached over SSH, as the user and on the port the
operator configured for Mistral (``SSH``; the key is
the run's ssh-agent's), within a short connect timeout: a task on a
server runs on that server, and a server that does not answer is
unreachable, not checked on the undercloud in its name. A check that
looks at the servers from the undercloud says so (``delegate_to:
localhost``).

Any member of the project may write the stack's outputs, so they only
name the servers: which of them a run may reach is the operator's word
(``[tripleoplan] validation_servers`` of Mistral's configuration, per
project and plan: ``networks``, ``split``).
"""

import ipaddress
import re

# the SSH settings when Mistral's configuration gives none
SSH = {'user': 'tripleo-admin', 'key': None, 'timeout': 10, 'port': 22}
NETWORK = 'ctlplane'
# the undercloud's host name, as tripleo-ansible-inventory names it
UNDERCLOUD = 'undercloud'
# a role's group name; never one of the groups every inventory has
ROLE = re.compile(r'[A-Za-z][A-Za-z0-9_]{0,63}\Z')
# service groups at most (THT has ~300 services)
MAX_GROUPS = 2000
RESERVED = ('all', 'ungrouped', 'undercloud', 'Undercloud', 'overcloud',
            'allovercloud', 'localhost')


def servers(outputs):
    """``{role: {hostname: address}}`` from a stack's outputs (Heat's
    list of ``{output_key, output_value}``, or a mapping)."""
    if isinstance(outputs, list):
        outputs = {o.get('output_key'): o.get('output_value')
                   for o in outputs if isinstance(o, dict)}
    names = (outputs or {}).get('RoleNetHostnameMap') or {}
    addresses = (outputs or {}).get('RoleNetIpMap') or {}
    found = {}
    for role in sorted(names):
        hosts = (names.get(role) or {}).get(NETWORK) or []
        ips = (addresses.get(role) or {}).get(NETWORK) or []
        if hosts:
            found[role] = {h: (ips[i] if i < len(ips) else h)
                           for i, h in enumerate(hosts)}
    return found


def services(outputs):
    """``{role: [service name]}`` from a stack's outputs
    (tripleo-heat-templates' ``RoleData``: each role's
    ``service_names``)."""
    if isinstance(outputs, list):
        outputs = {o.get('output_key'): o.get('output_value')
                   for o in outputs if isinstance(o, dict)}
    data = (outputs or {}).get('RoleData')
    found = {}
    for role, value in (data if isinstance(data, dict) else {}).items():
        names = value.get('service_names') if isinstance(value, dict) \
            else None
        if isinstance(names, list):
            found[role] = [n for n in names if isinstance(n, str)]
    return found


def build(python, roles=None, ssh=None, plan=None, role_services=None):
    """The inventory in tripleo-ansible-inventory's groups (what
    tripleo-validations' playbooks target): ``undercloud`` (and
    ``Undercloud``) holds the host ``undercloud``, this machine, run
    locally, modules run by ``python`` (a play on ``localhost`` gets
    Ansible's own, the same); each role
    of ``roles`` (``servers``) is a group of its servers, reached over
    SSH with ``ssh`` (``SSH``'s keys; the key is not the inventory's),
    all of them children of ``overcloud``, itself ``allovercloud``'s.
    ``role_services`` (``services``) adds tripleo-ansible-inventory's
    service groups: one per service (``nova_libvirt``, ``mysql``...),
    whose children are the roles that run it. The variables upstream
    roles read that no credential is: ``plan`` (the stack's name), each
    server's ``tripleo_role_name``, ``ctlplane_ip`` and
    ``ansible_host``."""
    ssh = dict(SSH, **(ssh or {}))
    local = {'ansible_connection': 'local', 'ansible_host': 'localhost',
             'ansible_python_interpreter': python}
    remote = {'ansible_connection': 'ssh', 'ansible_user': ssh['user'],
              'ansible_port': int(ssh['port']),
              'ansible_ssh_timeout': int(ssh['timeout']),
              'ansible_python_interpreter': 'auto_silent',
              # on a server, the login user's own (the run's scratch
              # directory, ANSIBLE_REMOTE_TEMP, is the undercloud's)
              'ansible_remote_tmp': '~/.ansible/tmp'}
    groups = {'undercloud': {'hosts': {UNDERCLOUD: local}},
              'Undercloud': {'hosts': {UNDERCLOUD: {}}}}
    # the outputs are any member's to write: no role may pose as one of
    # these groups, no server as the undercloud
    for role, hosts in sorted((roles or {}).items()):
        if role in groups or role in RESERVED or not ROLE.match(role):
            continue
        groups[role] = {'vars': {'tripleo_role_name': role}, 'hosts': {
            name: {'ansible_host': address, 'ctlplane_ip': address}
            for name, address in hosts.items() if name not in (
                UNDERCLOUD, 'localhost')}}
    roles = [r for r in groups if r not in ('undercloud', 'Undercloud')]
    groups['overcloud'] = {'vars': remote,
                           'children': {role: {} for role in roles}}
    found = {}
    for role in roles:
        for service in (role_services or {}).get(role) or ():
            if ROLE.match(service) and service not in RESERVED and \
                    service not in groups:
                found.setdefault(service, {'children': {}})['children'][
                    role] = {}
    groups.update(sorted(found.items())[:MAX_GROUPS])
    groups['allovercloud'] = {'children': {'overcloud': {}}}
    return {'all': {'vars': {'plan': plan} if plan else {},
                    'children': groups}}


def addresses(built):
    """``{hostname: (address, port)}`` of the servers of inventory
    ``built`` (``build``'s): where a run's SSH connections go."""
    groups = built.get('all', {}).get('children') or {}
    port = ((groups.get('overcloud') or {}).get('vars') or {}).get(
        'ansible_port')
    found = {}
    for group in groups.values():
        for name, host in (group.get('hosts') or {}).items():
            if name != UNDERCLOUD:
                found[name] = (host.get('ansible_host') or name,
                               int(host.get('ansible_port') or port or 22))
    return found


def networks(entries, project, plan):
    """The networks the servers of ``plan`` in ``project`` may be in:
    of each entry ``PROJECT_ID:PLAN=NETWORK[,NETWORK...]`` naming them
    (``*`` for any project or plan; a network is an address or a CIDR).
    ValueError naming an entry that is not of that form."""
    found = []
    for entry in entries or ():
        key, sep, nets = entry.partition('=')
        owner, colon, name = key.strip().partition(':')
        try:
            if not sep or not colon or not owner or not name:
                raise ValueError('not PROJECT_ID:PLAN=NETWORK[,NETWORK]')
            parsed = [ipaddress.ip_network(n.strip(), strict=False)
                      for n in nets.split(',') if n.strip()]
            if not parsed:
                raise ValueError('no network')
        except ValueError as exc:
            raise ValueError('[tripleoplan] validation_servers entry %r: %s'
                             % (entry, exc))
        if owner in ('*', project) and name in ('*', plan):
            found += parsed
    return found


def split(built, allowed, plan):
    """``(targets, refused)`` of inventory ``built``'s servers: the
    (address, port) pairs within the ``allowed`` networks, and ``{(address,
    port): why}`` of the others."""
    targets, refused = set(), {}
    for name, (address, port) in sorted(addresses(built).items()):
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            ip = None
        if ip is not None and any(ip in net for net in allowed):
            targets.add((address, port))
        else:
            refused[(address, port)] = (
                '%s:%d (%s, named by the outputs of stack %s) is not a '
                'server the validations of plan %s may reach: the '
                'operator lets them reach a plan\'s servers in Mistral\'s '
                'configuration ([tripleoplan] validation_servers)'
                % (address, port, name, plan, plan))
    return sorted(targets), refused
