"""The hosts a validation run targets, as an Ansible inventory (JSON).

localhost always; with a plan whose stack exists, the group
``overcloud`` with one child group per role, each server at its control
plane address, from the stack's outputs (tripleo-heat-templates'
``RoleNetHostnameMap`` and ``RoleNetIpMap``). Every host is reached
with ``ansible_connection: local``: a validation checks the servers
from the undercloud and is given no credentials to log in to them.
"""

NETWORK = 'ctlplane'


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


def build(python, roles=None):
    """The inventory: localhost, and ``roles`` (``servers``) under
    ``overcloud``; modules run by ``python`` on this host."""
    local = {'ansible_connection': 'local',
             'ansible_python_interpreter': python}
    children = {role: {'hosts': {name: {'ansible_host': address}
                                 for name, address in hosts.items()}}
                for role, hosts in (roles or {}).items()}
    return {'all': {'vars': local,
                    'hosts': {'localhost': {}},
                    'children': {'overcloud': {'children': children}}}}
