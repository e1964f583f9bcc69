"""Provisioning into a plan, in Mistral: the bodies of the node_provision
and node_unprovision actions and of their follow tasks.

The first task checks everything (the file, the plan, enough matching
nodes), allocates and asks Ironic to deploy (or undeploy); the follow
task looks at those nodes every few seconds until each rests, then writes
the deployed-server environment of the plan's nodes into the plan and
records the step (``provision`` / ``unprovision``), the way
``settings.set_parameters`` records its file: the file, its kept copy
and the step in one commit. No step when the environment is already
what the nodes say; a failed deploy records nothing (its error is in the
answer; running the command again deploys that node again).
"""

import logging
import time

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.mistral import builder
from tripleoplanclient.mistral import command_line
from tripleoplanclient.nodes import baremetal_file
from tripleoplanclient.nodes import config_drive
from tripleoplanclient.nodes import deploy
from tripleoplanclient.nodes import deployed_environment
from tripleoplanclient.nodes import login as login_mod
from tripleoplanclient.nodes import provision as provision_mod
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import tree as tree_mod
from tripleoplanclient import protocol

LOG = logging.getLogger(__name__)
# A node of ours still waiting at the end: its deploy was refused in a
# follow round (logged there).
REFUSED = ('not deployed: Ironic refused its deploy (the Mistral '
           'executor\'s log says why)')


def environment_path(req):
    """The plan path of the deployed-server environment, checked."""
    return layout.check_plan_path(req['environment'] or
                                  protocol.PROVISION_ENVIRONMENT,
                                  'node provision environment')


def ssh_login(req):
    """The request's login user and SSH public keys, checked."""
    keys = req['ssh_keys']
    if not isinstance(keys, list) or not all(isinstance(k, str)
                                             for k in keys):
        raise exceptions.CommandError(
            'Bad node_provision request: ssh_keys must list the login '
            'user\'s SSH public keys. Nothing was provisioned.')
    return {'user': config_drive.check_user(req['ssh_user'],
                                            'node_provision ssh_user'),
            'keys': config_drive.public_keys('\n'.join(keys),
                                             'node_provision ssh_keys')}


def values(store, plan, path):
    """The parameter_defaults of the plan's environment at ``path`` ({}
    when there is none); YAML without aliases, bounded."""
    return parameter_defaults(store.container.get(plan, path), plan, path)


def parameter_defaults(data, plan, path):
    """``values`` of the environment's bytes ``data`` (None: {})."""
    if data is None:
        return {}
    found = content.load_yaml(data, '%s of plan %s' % (path, plan),
                              loader=content.PlainLoader,
                              max_bytes=content.MAX_BAREMETAL_FILE_BYTES)
    found = (found or {}).get('parameter_defaults') \
        if isinstance(found, dict) else None
    return found if isinstance(found, dict) else {}


def provision(ironic, store, req, project=None):
    """Check, allocate, deploy: the answer the follow task builds on;
    the nodes recorded as ``project``'s (the caller's, Keystone's)."""
    plan = layout.check_name(req['container'])
    roles = baremetal_file.read(req['roles'])
    path = environment_path(req)
    user = ssh_login(req)
    concurrency = deploy.check_concurrency(req['concurrency'])
    store.reader.head(plan)     # a plan that exists, before any node moves
    used = deployed_environment.used(plan, [
        provision_mod.record(n) for n in
        provision_mod.plan_nodes(ironic, plan).values()],
        values(store, plan, path))
    answer = provision_mod.provision(ironic, plan, roles,
                                     req['ctlplane_cidr'], project, user,
                                     concurrency, used)
    answer['follow'] = sorted(
        {i['uuid'] for i in answer['instances']} |
        {r['uuid'] for r in answer['released']})
    answer['since'] = time.time()
    return answer


def unprovision(ironic, store, req):
    """Undeploy the plan's nodes (all, or ``instances``: hostnames)."""
    plan = layout.check_name(req['container'])
    environment_path(req)
    store.reader.head(plan)
    current = provision_mod.plan_nodes(ironic, plan)
    names = req['instances']
    if names is not None and (not isinstance(names, list) or not all(
            isinstance(n, str) for n in names)):
        raise exceptions.CommandError(
            'Bad node_unprovision request: instances must list hostnames. '
            'Nothing was released.')
    chosen = sorted(current) if names is None else \
        [n for n in names if n in current]
    gone = [current[h] for h in chosen]
    refused = provision_mod.release(ironic, gone)
    return {'released': [{'hostname': h, 'uuid': current[h]['uuid']}
                         for h in chosen],
            'unknown': sorted(set(names or ()) - set(current)),
            'roles': {provision_mod.record(n)['role']:
                      provision_mod.record(n).get('hostname_format')
                      for n in current.values()},
            'refused': [{'node': n['uuid'], 'error': str(e)}
                        for n, e in refused],
            'follow': sorted(n['uuid'] for n in gone),
            'changed': bool(gone), 'since': time.time()}


def follow(ironic, store, req, started, action):
    """One look at the nodes ``started`` moved; at the end, the plan's
    environment recorded. ``action``: provision or unprovision."""
    plan = req['container']
    done, nodes = provision_mod.look(ironic, started.get('follow') or [])
    waiting = []
    if started.get('queued'):
        waiting, refused = deploy.next_turn(
            ironic, nodes, started['queued'],
            {u: provision_mod.record(n) for u, n in nodes.items()},
            baremetal_file.read(req['roles']), ssh_login(req),
            started['run'], req['concurrency'])
        done = done and not waiting
        for node, error in refused:
            LOG.warning('Plan %s: Ironic refused the deploy of node %s: %s',
                        plan, node['uuid'], error)
    states = {u: n['provision_state'] for u, n in nodes.items()}
    if not done:
        if time.time() - started.get('since', time.time()) <= \
                req['timeout']:
            return {'done': False, 'states': states}
        # Past the operation's timeout: what still works is a failure,
        # named; nothing is recorded (a new run picks them up again).
        return {'done': True, 'status': 'FAILED', 'nodes': states,
                'failed': [{'node': n.get('name') or u,
                            'state': n['provision_state'],
                            'error': 'still %s after %s s' % (
                                n['provision_state'], req['timeout'])}
                           for u, n in nodes.items()
                           if n['provision_state'] not in
                           provision_mod.RESTING or u in waiting]}
    released = {r['uuid'] for r in started.get('released') or ()}
    for uuid_ in released:
        node = nodes.get(uuid_) or {}
        if node.get('provision_state') == 'available' and \
                provision_mod.record(node).get('plan') == plan:
            ironic.patch_node(uuid_, [{'op': 'remove', 'path': '/extra/%s'
                                       % provision_mod.KEY}])
    failed = [{'node': n.get('name') or u, 'state': n['provision_state'],
               'error': n.get('last_error') or (
                   REFUSED if n['provision_state'] in deploy.WAITING
                   else None)}
              for u, n in nodes.items() if u not in released and
              n['provision_state'] != 'active'] + [
        {'node': r['node'], 'state': None, 'error': r['error']}
        for r in started.get('refused') or ()]
    out = {'done': True, 'nodes': states, 'failed': failed}
    if failed:
        out['status'] = 'FAILED'
        return out
    hosts = [{'role': provision_mod.record(n)['role'], 'hostname': h,
              'ctlplane_ip': provision_mod.record(n).get('ctlplane_ip'),
              'ctlplane_cidr': provision_mod.record(n).get('ctlplane_cidr'),
              'index': provision_mod.record(n).get('index')}
             for h, n in provision_mod.plan_nodes(ironic, plan).items()
             if n['provision_state'] == 'active']
    out['step'] = record_environment(
        store, plan, environment_path(req), started.get('roles') or {},
        hosts,
        req.get('ctlplane_cidr') or provision_mod.CTLPLANE_CIDR,
        command_line.command(req, 'tripleoplan.node_%s' % action), action,
        gone=[r['hostname'] for r in started.get('released') or ()],
        login=req.get('ssh_user'))
    out['status'] = out['step']['status']
    return out


def record_environment(store, plan, path, roles, hosts, cidr, command,
                       action, gone=(), login=None):
    """The deployed-server environment of ``hosts`` written to ``path``
    and put in the environment list (taken out of it when no host is
    left), as a step; the step's summary (UNCHANGED: nothing written).
    The indexes of the hosts ``gone`` (released now) join the removal
    policies the environment had: no other server is renumbered.
    ``login``: the servers' login user, recorded with a changed
    environment (``nodes.login``)."""
    head = store.reader.head(plan)
    environments = head.state['environments']
    roles = dict(roles)
    for host in hosts:
        roles.setdefault(host['role'], baremetal_file.hostname_format(
            host['role']))
    roles = {r: f or baremetal_file.hostname_format(r)
             for r, f in roles.items()}
    if not hosts:
        if path not in environments:
            return protocol.result(plan, None, head.state)
        change = {'environments': {'add': [], 'remove': [path]},
                  'files': {}, 'inputs': {}, 'tree': {}}
        step = builder.write_step(store, plan, builder.build(
            action, change, command), head)
        return protocol.result(plan, step, step['state'])
    old = store.container.get(plan, path)
    before = parameter_defaults(old, plan, path)
    removed = deployed_environment.removed(before)
    for role, found in deployed_environment.released(
            plan, roles, before.get('HostnameMap'), gone).items():
        removed.setdefault(role, set()).update(found)
    data = deployed_environment.dump(plan, deployed_environment.environment(
        plan, roles, hosts, cidr, removed, before.get('HostnameMap')))
    if old == data and path in environments:
        return protocol.result(plan, None, head.state)
    files = {path: (old, data)}     # path -> (stored, new)
    if login:
        stored = store.container.get(plan, login_mod.PATH)
        if stored != login_mod.dump(plan, login):
            files[login_mod.PATH] = (stored, login_mod.dump(plan, login))
    md5s = {p: content.md5(new) for p, (_, new) in files.items()}
    objects = {}
    for name, (_, new) in files.items():
        objects.update({name: new, tree_mod.kept_name(md5s[name]): new})
    change = {'environments': {'add': [] if path in environments
                               else [path], 'remove': []},
              'files': {}, 'inputs': {}, 'tree': md5s}
    step = builder.write_step(store, plan, builder.build(
        action, change, command,
        added=sorted(p for p, (was, _) in files.items() if was is None),
        changed=sorted(p for p, (was, new) in files.items()
                       if was is not None and was != new)), head, objects)
    return protocol.result(plan, step, step['state'])
