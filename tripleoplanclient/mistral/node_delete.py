"""A scale down in Mistral: the bodies of the node_delete workflow's start
and release tasks (the deploy workflow runs between them).

The start task refuses, with nothing changed, a plan or stack that is
not there, a stack at work, a name the stack does not have. Then the
plan's environment (node provision's, ``deployed_environment``) gets the
servers' removal policies and the roles' lower counts, its object and
kept copy are written, and the answer carries the deploy request of the
update that records them as one step, with the command line given: the
deploy workflow records it, asks Heat, follows and configures as any
update. The release task reads that step's outcome from the record: when
it succeeded, the nodes provisioned for those servers are undeployed
(``deleted``), their record taken off once available, and made
manageable when asked; a step that did not succeed releases nothing.
"""

import time

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.common import status
from tripleoplanclient.mistral import node_provision
from tripleoplanclient.nodes import deployed_environment
from tripleoplanclient.nodes import provision as provision_mod
from tripleoplanclient.nodes import stack_servers
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import tree as tree_mod
from tripleoplanclient import protocol
from tripleoplanclient.record import log

# An update step (refused when the stack is gone: never a new stack) that
# configures the servers left as a deploy does: no minor update's steps.
PLAYBOOKS = ['deploy_steps_playbook.yaml']
HEADER = (b'# Written by "openstack overcloud node provision" and "node '
          b'delete" (tripleoplanclient):\n# the deployed servers of plan '
          b'%s.\n')


def start(store, heat, ironic, req):
    """Resolve, write the environment: the start task's answer (rows of
    the servers removed, ``deploy``: the update's request)."""
    plan = layout.check_name(req['container'])
    names = stack_servers.check_names(req['nodes'])
    path = node_provision.environment_path(req)
    head = store.reader.head(plan)
    stack = status.recorded(heat, plan, head.rows, req['heat_url'])
    if stack is None:
        raise exceptions.CommandError(
            'Plan %s has no stack: there is no server to delete. Nothing '
            'was changed.' % plan)
    status.check_idle(stack, plan)
    servers = stack_servers.members(heat, plan, stack)
    nodes = provision_mod.plan_nodes(ironic, plan) if ironic else {}
    chosen = stack_servers.resolve(plan, names, servers, nodes)
    old = store.container.get(plan, path)
    values = deployed_environment.scale_down(
        node_provision.parameter_defaults(old, plan, path), servers, chosen)
    data = deployed_environment.dump(plan, {'parameter_defaults': values},
                                     HEADER)
    md5 = content.md5(data)
    objects = {path: data, tree_mod.kept_name(md5): data}
    if old is not None:
        # what put_back restores if the update is refused before its step
        objects[tree_mod.kept_name(content.md5(old))] = old
    store.container.write(plan, objects)
    environments = head.state['environments']
    deploy = protocol.request(
        'deploy', container=plan, action='update',
        swift_url=req['swift_url'], heat_url=req['heat_url'],
        add=[] if path in environments else [path], tree={path: md5},
        timeout=req['timeout'], config=req['config'],
        config_timeout=req['config_timeout'], playbooks=PLAYBOOKS,
        command=req['command'])
    rows = []
    for role, index, hostname in chosen:
        node = nodes.get(hostname) or {}
        rows.append({'role': role, 'index': index, 'hostname': hostname,
                     'node': node.get('name') or node.get('uuid'),
                     'uuid': node.get('uuid')})
    return {'servers': rows, 'deploy': deploy, 'since': time.time(),
            'stack_id': stack.id,
            'environment': {'path': path, 'md5': md5, 'before': None if
                            old is None else content.md5(old)}}


def put_back(store, plan, written):
    """The environment as it was before ``start`` wrote it (``written``:
    its answer's ``environment``), when the update was refused before it
    recorded a step: the plan left exactly as it was. Content another
    writer put there since is left alone."""
    path = (written or {}).get('path')
    if not path or content.md5(store.container.get(plan, path) or b'') != \
            written.get('md5'):
        return
    if written.get('before') is None:
        store.container.delete_objects(plan, [path])
        return
    kept = store.container.get(plan, tree_mod.kept_name(written['before']))
    if kept is not None and content.md5(kept) == written['before']:
        store.container.write(plan, {path: kept})


def step_status(store, plan, update):
    """``(step id, status)`` of the update step the deploy workflow
    recorded (``update``: its output), as the record says."""
    step_id = (((update or {}).get('deploy') or {}).get('step') or {}).get(
        'id')
    if not step_id:
        return None, 'FAILED'
    name = log.outcome_path(step_id)
    data = store.container.get(plan, name)
    if data is None:
        return step_id, 'UNKNOWN'
    found = log.load_outcome(data, name, plan)
    return step_id, (found.get('outcome') or {}).get('status') or 'UNKNOWN'


def release(store, ironic, req, started, update):
    """One round of the release: each node of the removed servers one
    move further (undeploy, record off, manage); done when all rest."""
    plan = req['container']
    step_id, outcome = step_status(store, plan, update)
    out = {'step': step_id, 'status': outcome,
           'servers': started.get('servers') or []}
    if outcome != 'SUCCESS':
        if step_id is None:
            put_back(store, plan, started.get('environment'))
        out.update(done=True, released=[])
        return out
    uuids = [s['uuid'] for s in out['servers'] if s.get('uuid')]
    if not uuids or ironic is None:
        out.update(done=True, released=[])
        return out
    done, nodes = provision_mod.look(ironic, uuids)
    moving = False
    for uuid_, node in nodes.items():
        ours = provision_mod.record(node).get('plan') == plan
        state = node['provision_state']
        if ours and state == 'active':
            ironic.provision(uuid_, 'deleted')
        elif ours and state == 'available':
            ironic.patch_node(uuid_, [{'op': 'remove', 'path': '/extra/%s'
                                       % provision_mod.KEY}])
            if not req['provide']:
                ironic.provision(uuid_, 'manage')
        else:
            moving = moving or state not in provision_mod.RESTING
            continue
        moving = True
    out['nodes'] = {u: n['provision_state'] for u, n in nodes.items()}
    failed = [u for u, n in nodes.items()
              if n['provision_state'] in provision_mod.FAILED]
    late = time.time() - started.get('since', time.time()) > \
        (req['timeout'] + req['config_timeout']) * 60
    if (moving or not done) and not late:
        out['done'] = False
        return out
    out['done'] = True
    out['released'] = [u for u in uuids if u not in failed]
    if failed or moving:
        out['status'] = 'FAILED'
        out['failed'] = [{'node': u, 'state': nodes[u]['provision_state'],
                          'error': nodes[u].get('last_error')}
                         for u in failed or uuids]
    return out
