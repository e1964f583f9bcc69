"""The hosts a validation run targets, as an Ansible inventory (JSON).

localhost always, run locally (``ansible_connection: local``); with a
plan whose stack exists, the group ``overcloud`` with one child group
per role, each server at its control plane address, from the stack's
outputs (tripleo-heat-templates' ``RoleNetHostnameMap`` and
``RoleNetIpMap``). The servers are reached over SSH, as the user, with
the key and on the port the operator configured for Mistral (``SSH``),
within a short connect timeout: a task on a server runs on that server,
and a server that does not answer is unreachable, not checked on the
undercloud in its name. A check that looks at the servers from the
undercloud says so (``delegate_to: localhost``).
"""

# the SSH settings when Mistral's configuration gives none
SSH = {'user': 'tripleo-admin', 'key': None, 'timeout': 10, 'port': 22}
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


def build(python, roles=None, ssh=None):
    """The inventory: localhost (modules run by ``python``), and
    ``roles`` (``servers``) under ``overcloud``, reached over SSH with
    ``ssh`` (``SSH``'s keys; the key a path inside the sandbox)."""
    ssh = dict(SSH, **(ssh or {}))
    local = {'ansible_connection': 'local',
             'ansible_python_interpreter': python}
    remote = {'ansible_connection': 'ssh', 'ansible_user': ssh['user'],
              'ansible_port': int(ssh['port']),
              'ansible_ssh_timeout': int(ssh['timeout']),
              'ansible_python_interpreter': 'auto_silent',
              # on a server, the login user's own (the run's scratch
              # directory, ANSIBLE_REMOTE_TEMP, is the undercloud's)
              'ansible_remote_tmp': '~/.ansible/tmp'}
    if ssh['key']:
        remote['ansible_ssh_private_key_file'] = ssh['key']
    children = {role: {'hosts': {name: {'ansible_host': address}
                                 for name, address in hosts.items()}}
                for role, hosts in (roles or {}).items()}
    return {'all': {'hosts': {'localhost': local},
                    'children': {'overcloud': {'vars': remote,
                                               'children': children}}}}


def addresses(built):
    """``{hostname: (address, port)}`` of the servers of inventory
    ``built`` (``build``'s): where a run's SSH connections go."""
    found = {}
    for group in (built.get('all', {}).get('children') or {}).values():
        port = (group.get('vars') or {}).get('ansible_port')
        for role in (group.get('children') or {}).values():
            for name, host in (role.get('hosts') or {}).items():
                found[name] = (host.get('ansible_host') or name,
                               int(host.get('ansible_port') or port or 22))
    return found
