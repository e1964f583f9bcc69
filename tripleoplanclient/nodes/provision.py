"""Provisioning a plan's nodes on Ironic: allocation, deploy, release.

Allocation is our own matching, then one PATCH per node setting its
``instance_uuid`` (with our record in ``extra``), not Ironic's allocation
API: profiles and TripleO capabilities are not traits, so Ironic could
only be handed our candidates anyway, and an allocation costs a POST, a
poll until the conductor answers and a DELETE on release, where the PATCH
is one request that Ironic refuses (409) when another client associated
the node first: the race is lost cleanly, and what this run took is
released again. Everything is checked before the first PATCH: too few
matching nodes is an error per role and nothing is allocated.

Each node provisioned into a plan carries ``extra.tripleoplan``:
``{plan, role, hostname, hostname_format, ctlplane_ip, ctlplane_cidr,
project, index}``: how a new run finds what is there (same file again: nothing
changes; a larger count: only new nodes), what ``unprovision`` releases,
and (only an administrator writes Ironic) which servers a plan's
validations may reach (``recorded_addresses``); ``project`` is the
provisioning caller's, as Keystone validated it; ``index`` the node's in
its role's ResourceGroup, for its life: the lowest the role never used
(``deployed_environment.indexes``).
"""

import ipaddress
import re
import uuid

from tripleoplanclient.common import exceptions
from tripleoplanclient.nodes import baremetal_file
from tripleoplanclient.nodes import deploy as deploy_mod
from tripleoplanclient.nodes import node_capabilities

KEY = 'tripleoplan'
CTLPLANE_CIDR = '192.168.24.0/24'
CTLPLANE_FIRST = 10
# Ironic's states a node rests in (anything else: Ironic is working).
RESTING = frozenset(('active', 'available', 'manageable', 'enroll',
                     'deploy failed', 'error', 'clean failed',
                     'inspect failed'))
FAILED = frozenset(('deploy failed', 'error', 'clean failed'))
FIELDS = ('uuid', 'name', 'provision_state', 'power_state', 'last_error',
          'maintenance', 'properties', 'instance_uuid', 'resource_class',
          'extra')


def record(node):
    """Our record on ``node`` (``extra.tripleoplan``), or {}."""
    found = (node.get('extra') or {}).get(KEY)
    return found if isinstance(found, dict) else {}


def recorded_addresses(ironic, plan, project):
    """The ctlplane addresses of the nodes provisioned into ``plan`` by a
    caller of ``project`` (a record without a project is nobody's)."""
    return sorted({record(n)['ctlplane_ip']
                   for n in plan_nodes(ironic, plan).values()
                   if project and record(n).get('project') == project and
                   record(n).get('ctlplane_ip')})


def plan_nodes(ironic, plan):
    """``{hostname: node}`` of the nodes provisioned into ``plan``."""
    return {record(n)['hostname']: n
            for n in ironic.nodes(FIELDS, associated='True')
            if record(n).get('plan') == plan and record(n).get('hostname')}


def matches(node, resource_class, profile, caps):
    """Whether an available node fits a role's or instance's needs."""
    have = node_capabilities.of_node(node)
    return (node.get('resource_class') or baremetal_file.RESOURCE_CLASS) \
        == resource_class and (profile is None or
                               have.get('profile') == profile) and \
        all(have.get(k) == v for k, v in caps.items())


def usable(node):
    """Available, powered off, not in maintenance, not associated."""
    return node.get('provision_state') == 'available' and \
        not node.get('maintenance') and not node.get('instance_uuid') and \
        node.get('power_state') == 'power off'


def wanted(roles, plan):
    """``(instances, released)``: every instance the roles want, in order
    (``{role, hostname, node, profile, capabilities, resource_class,
    ctlplane_ip, hostname_format}``), and the hostnames marked
    ``provisioned: false``."""
    out, released = [], []
    for role in roles:
        fmt, explicit = role['hostname_format'], role['instances']
        taken = {i['hostname'] for i in explicit if i['hostname']}
        index = 0

        def generated():
            nonlocal index
            while baremetal_file.hostname(fmt, plan, index) in taken:
                index += 1
            name = baremetal_file.hostname(fmt, plan, index)
            taken.add(name)
            return name

        chosen = []
        for inst in explicit:
            if not inst['provisioned']:
                released.append(inst['hostname'])
                continue
            chosen.append(dict(inst, hostname=inst['hostname'] or
                               generated()))
        while len(chosen) < role['count']:
            chosen.append({'hostname': generated(), 'node': None,
                           'capabilities': {}, 'profile': None,
                           'ctlplane_ip': None})
        for inst in chosen:
            out.append({
                'role': role['name'], 'hostname': inst['hostname'],
                'node': inst['node'], 'hostname_format': fmt,
                'profile': inst['profile'] or role['profile'],
                'capabilities': dict(role['capabilities'],
                                     **inst['capabilities']),
                'resource_class': role['resource_class'],
                'ctlplane_ip': inst['ctlplane_ip']})
    return out, [h for h in released if h]


def _need(inst):
    parts = ['resource_class %s' % inst['resource_class']]
    if inst['profile']:
        parts.append('profile %s' % inst['profile'])
    parts.extend('%s:%s' % kv for kv in sorted(inst['capabilities'].items()))
    return ', '.join(parts)


def pick_nodes(instances, current, free, problems):
    """``{hostname: node}`` for the instances no node holds yet: named
    nodes first, then the roles' matching, each node once."""
    picks, used = {}, set()
    by_name = {}
    for node in free:
        by_name[node['uuid']] = by_name[node.get('name') or ''] = node
    for inst in instances:
        if inst['hostname'] in current or not inst['node']:
            continue
        node = by_name.get(inst['node'])
        if node is None:
            problems.append('%s (role %s): node %s is not available (it '
                            'must exist, be available, powered off, out of '
                            'maintenance and unused)' % (
                                inst['hostname'], inst['role'],
                                inst['node']))
        elif node['uuid'] in used:
            problems.append('%s: node %s is named twice' % (
                inst['hostname'], inst['node']))
        else:
            picks[inst['hostname']] = node
            used.add(node['uuid'])
    short = {}
    for inst in instances:
        if inst['hostname'] in current or inst['node']:
            continue
        node = next((n for n in free if n['uuid'] not in used and matches(
            n, inst['resource_class'], inst['profile'],
            inst['capabilities'])), None)
        if node is None:
            key = (inst['role'], _need(inst))
            short[key] = short.get(key, 0) + 1
            continue
        picks[inst['hostname']] = node
        used.add(node['uuid'])
    for (role, need), count in sorted(short.items()):
        problems.append('role %s: %d more available node(s) needed with %s '
                        '(available, powered off, out of maintenance; see '
                        '"openstack overcloud profiles list")'
                        % (role, count, need))
    return picks


def ctlplane_addresses(instances, current, cidr):
    """``{hostname: ctlplane IP}``: recorded ones kept, fixed ones as
    given, the others the lowest free from ``.CTLPLANE_FIRST``."""
    try:
        net = ipaddress.ip_network(cidr, strict=False)
    except ValueError:
        raise exceptions.CommandError(
            'ctlplane CIDR %r is no network (e.g. %s). Nothing was '
            'provisioned.' % (cidr, CTLPLANE_CIDR))
    out = {h: record(n).get('ctlplane_ip') for h, n in current.items()}
    out.update((i['hostname'], i['ctlplane_ip']) for i in instances
               if i['ctlplane_ip'] and i['hostname'] not in current)
    taken = set(out.values())
    hosts = (str(a) for i, a in enumerate(net) if i >= CTLPLANE_FIRST and
             a != net.broadcast_address)
    for inst in instances:
        if not out.get(inst['hostname']):
            address = next((a for a in hosts if a not in taken), None)
            if address is None:
                raise exceptions.CommandError(
                    'ctlplane %s has no free address left for %s. Nothing '
                    'was provisioned.' % (cidr, inst['hostname']))
            out[inst['hostname']] = address
            taken.add(address)
    return out


def release(ironic, nodes):
    """Undeploy ``nodes`` (active ones; a node never deployed only loses
    its association): ``[(node, error)]`` of those Ironic refused."""
    def one(node):
        if node.get('provision_state') in ('available', 'manageable'):
            ironic.patch_node(node['uuid'], [
                {'op': 'remove', 'path': '/instance_uuid'},
                {'op': 'remove', 'path': '/extra/%s' % KEY}])
        else:
            ironic.provision(node['uuid'], 'deleted')
    return [(n, e) for n, _, e in ironic.each(one, nodes) if e]


def provision(ironic, plan, roles, cidr=CTLPLANE_CIDR, project=None,
              login=None, concurrency=deploy_mod.CONCURRENCY, used=None):
    """Allocate and deploy what ``roles`` (``baremetal_file.read``) want
    for ``plan``; the answer lists every instance (``node_rows``) and the
    node uuids to follow (``follow``). Nothing allocated when a check
    fails. ``login``: the config drive's ``{user, keys}``; the first
    ``concurrency`` nodes deploy now, the others wait their turn
    (``queued``, ``run``: ``deploy.next_turn``). ``used``: ``{role:
    {index}}`` the plan's nodes hold or held (a new node takes the lowest
    other)."""
    instances, released = wanted(roles, plan)
    current = plan_nodes(ironic, plan)
    problems = []
    hostnames = {i['hostname'] for i in instances}
    extra = sorted(h for h, n in current.items()
                   if h not in hostnames and h not in released and
                   record(n).get('role') in {r['name'] for r in roles})
    if extra:
        problems.append('%s provisioned in plan %s but no longer wanted: '
                        'mark them provisioned: false (or unprovision '
                        'them) rather than lowering a count' % (
                            ', '.join(extra), plan))
    for inst in instances:
        node = current.get(inst['hostname'])
        if node is not None and record(node).get('role') != inst['role']:
            problems.append('%s is provisioned for role %s, not %s' % (
                inst['hostname'], record(node).get('role'), inst['role']))
    free = [n for n in ironic.nodes(FIELDS, provision_state='available',
                                    associated='False') if usable(n)]
    picks = pick_nodes(instances, current, free, problems)
    problems.extend(deploy_mod.problems(roles, instances, picks))
    if problems:
        raise exceptions.CommandError(
            'Plan %s: cannot provision (%d problem(s)); nothing was '
            'allocated:\n  %s' % (plan, len(problems), '\n  '.join(problems)))
    addresses = ctlplane_addresses(instances, current, cidr)
    claimed = claim_nodes(ironic, plan, instances, picks, addresses, cidr,
                          project, used or {})
    # New ones, and ours a failed deploy left: deployed (again).
    again = [n for n in current.values()
             if n['provision_state'] in ('deploy failed', 'available')]
    deploy = [claimed[h] for h in sorted(claimed)] + again
    run = deploy_mod.new_run()
    refused = deploy_mod.start(
        ironic, [(n, record(n)) for n in deploy[:concurrency]], roles,
        login, run)
    gone = [current[h] for h in released if h in current]
    refused += release(ironic, gone)
    nodes = dict(current, **claimed)
    return {'instances': [dict(
        role=i['role'], hostname=i['hostname'],
        node=nodes[i['hostname']].get('name') or
        nodes[i['hostname']]['uuid'], uuid=nodes[i['hostname']]['uuid'],
        ctlplane_ip=addresses[i['hostname']],
        hostname_format=i['hostname_format'],
        new=i['hostname'] in claimed) for i in instances],
        'released': [{'hostname': record(n)['hostname'], 'uuid': n['uuid']}
                     for n in gone],
        'roles': {r['name']: r['hostname_format'] for r in roles},
        'refused': [{'node': n['uuid'], 'error': str(e)}
                    for n, e in refused],
        'queued': [n['uuid'] for n in deploy[concurrency:]], 'run': run,
        'changed': bool(claimed or again or gone),
        'requests': ironic.requests}


def claim_nodes(ironic, plan, instances, picks, addresses, cidr, project,
                used):
    """PATCH each picked node ours, with its index (the lowest its role
    has not in ``used``); a node another client took first (409) or any
    refusal: what this run took is released, and the error says
    which."""
    by_host = {i['hostname']: i for i in instances}
    numbers, taken = {}, {r: set(i) for r, i in used.items()}
    for hostname in sorted(picks, key=natural):
        role = taken.setdefault(by_host[hostname]['role'], set())
        numbers[hostname] = min(set(range(len(role) + 1)) - role)
        role.add(numbers[hostname])

    def claim(hostname):
        inst, node = by_host[hostname], picks[hostname]
        ours = {'plan': plan, 'role': inst['role'], 'hostname': hostname,
                'hostname_format': inst['hostname_format'],
                'ctlplane_ip': addresses[hostname], 'ctlplane_cidr': cidr,
                'index': numbers[hostname]}
        if project:
            ours['project'] = project
        ironic.patch_node(node['uuid'], [
            {'op': 'add', 'path': '/instance_uuid',
             'value': str(uuid.uuid4())},
            {'op': 'add', 'path': '/extra/%s' % KEY, 'value': ours},
            {'op': 'add', 'path': '/instance_info/display_name',
             'value': hostname}])
        return dict(node, extra=dict(node.get('extra') or {}, **{KEY: ours}))

    done = ironic.each(claim, sorted(picks))
    lost = [(h, e) for h, _, e in done if e]
    if lost:
        taken = [n for _, n, e in done if not e]
        release(ironic, [dict(n, provision_state='available')
                         for n in taken])
        raise exceptions.CommandError(
            'Plan %s: allocation lost to another client or refused (%s); '
            'the %d node(s) this run took are released again. Run the '
            'command again.' % (plan, '; '.join(
                '%s: %s' % (h, e) for h, e in lost[:5]), len(taken)))
    return {h: n for h, n, _ in done}


def look(ironic, uuids):
    """``(done, {uuid: node})``: done when every node rests."""
    nodes = {}
    for uuid_, node, error in ironic.each(ironic.node, uuids):
        if error is not None:
            raise error
        nodes[uuid_] = node
    return all(n['provision_state'] in RESTING for n in nodes.values()), \
        nodes


def natural(hostname):
    """Sort key: overcloud-compute-2 before overcloud-compute-10."""
    return [int(p) if p.isdigit() else p
            for p in re.split(r'(\d+)', hostname)]
