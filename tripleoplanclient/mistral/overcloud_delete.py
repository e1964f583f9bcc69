"""Deleting an overcloud in Mistral: the bodies of the overcloud_delete
workflow's start and follow tasks.

The start task refuses, with nothing changed, a plan that is not there
or a stack at work; then asks Heat to delete the stack (none: nothing
to ask). The follow task looks every few seconds, each look from what
the services say (a round run twice does no harm): while Heat deletes,
nothing more; when Heat fails, the plan stays untouched and Heat's
reason is the answer; once the stack is gone, the plan is deleted (or,
kept, gets a ``delete`` step saying so), then with ``unprovision`` the
nodes provisioned into it are undeployed and their record taken off
once available.
"""

import time

from tripleoplanclient.common import exceptions
from tripleoplanclient.common import status
from tripleoplanclient.mistral import builder
from tripleoplanclient.mistral import command_line
from tripleoplanclient.mistral import lifecycle
from tripleoplanclient.nodes import provision as provision_mod
from tripleoplanclient.plan import layout

ACTION = 'delete'


def start(store, heat, ironic, req):
    """The stack's delete asked: ``{stack_id, since, nodes}`` (stack_id
    None: the plan had no stack; nodes: the uuids of those provisioned
    into the plan, to release)."""
    plan = layout.check_name(req['container'])
    if req['unprovision'] and ironic is None:
        raise exceptions.CommandError(
            'Releasing the nodes of plan %s needs Ironic, and the caller\'s '
            'catalog has none: give its endpoint, or delete without '
            'unprovision. Nothing was changed.' % plan)
    head = store.reader.head(plan)      # a plan that exists
    stack = status.recorded(heat, plan, head.rows, req['heat_url'])
    status.check_idle(stack, plan)
    nodes = sorted(n['uuid'] for n in provision_mod.plan_nodes(
        ironic, plan).values()) if req['unprovision'] and ironic else []
    if stack is not None:
        try:
            heat.stacks.delete(stack.id)
        except Exception as exc:
            raise exceptions.CommandError(
                'Heat refused to delete stack %s (%s). Nothing was '
                'changed.' % (plan, getattr(exc, 'message', None) or exc))
    return {'stack_id': stack.id if stack is not None else None,
            'since': time.time(), 'nodes': nodes}


def _stack_end(heat, req, started):
    """None while Heat deletes; else ``(status, reason)`` of the delete."""
    plan, stack_id = req['container'], started.get('stack_id')
    if not stack_id:
        return 'DELETE_COMPLETE', 'no stack'
    from heatclient import exc as heat_exc
    try:
        stack = heat.stacks.get('%s/%s' % (plan, stack_id))
    except heat_exc.HTTPNotFound:
        return 'DELETE_COMPLETE', None
    if stack.stack_status.endswith(status.BUSY_SUFFIX):
        return None
    return stack.stack_status, stack.stack_status_reason


def _plan_done(store, heat, plan, req, started):
    """The plan deleted, or kept with the delete on record (once)."""
    headers, listing = store.container.listing(plan)
    if listing is None or not layout.is_plan(headers):
        return 'deleted'
    if not req['keep_plan']:
        # plan delete's own rules, Heat asked again: a stack made again
        # under this name since keeps its plan
        lifecycle.delete(store, heat, {
            'containers': [plan], 'heat_url': req['heat_url'],
            'check_only': False})
        return 'deleted'
    head = store.reader.head(plan)
    stack_id = started.get('stack_id')
    last = (head.rows or [{}])[-1]
    if stack_id and last.get('action') == ACTION and \
            (last.get('outcome') or {}).get('stack_id') == stack_id:
        return 'kept'
    step = builder.build(
        ACTION, {'environments': {'add': [], 'remove': []}, 'files': {},
                 'inputs': {}, 'tree': {}},
        command_line.command(req, 'tripleoplan.overcloud_delete'))
    step['outcome'].update(stack_id=stack_id, stack_status='DELETE_COMPLETE')
    builder.write_step(store, plan, step, head)
    return 'kept'


def follow(store, heat, ironic, req, started):
    """One look: Heat, then the plan, then the nodes."""
    plan = req['container']
    end = _stack_end(heat, req, started)
    late = time.time() - started.get('since', time.time()) > \
        req['timeout'] * 60
    if end is None:
        if late:
            return {'done': True, 'status': 'TIMEOUT', 'plan': 'untouched',
                    'reason': 'Timed out after %d s (--timeout of %s '
                              'minutes): the stack is still being deleted'
                              % (req['timeout'] * 60, req['timeout'])}
        return {'done': False, 'stack_status': 'DELETE_IN_PROGRESS'}
    state, reason = end
    if state != 'DELETE_COMPLETE':
        return {'done': True, 'status': 'FAILED', 'stack_status': state,
                'reason': reason, 'plan': 'untouched'}
    out = {'stack_status': state,
           'plan': _plan_done(store, heat, plan, req, started)}
    if not started.get('nodes') or ironic is None:
        out.update(done=True, status='SUCCESS', nodes={})
        return out
    _, nodes = provision_mod.look(ironic, started['nodes'])
    for uuid_, node in nodes.items():
        ours = provision_mod.record(node).get('plan') == plan
        if ours and node['provision_state'] == 'active':
            ironic.provision(uuid_, 'deleted')
        elif ours and node['provision_state'] in ('available',
                                                  'manageable'):
            ironic.patch_node(uuid_, [
                {'op': 'remove', 'path': '/instance_uuid'},
                {'op': 'remove', 'path': '/extra/%s' % provision_mod.KEY}])
    failed = {u: n for u, n in nodes.items()
              if n['provision_state'] not in ('available', 'manageable')}
    out['nodes'] = {u: n['provision_state'] for u, n in nodes.items()}
    if failed and not late and not any(
            n['provision_state'] in provision_mod.FAILED
            for n in failed.values()):
        out['done'] = False
        return out
    out['done'] = True
    out['status'] = 'FAILED' if failed else 'SUCCESS'
    if failed:
        out['reason'] = 'node(s) not released: %s' % ', '.join(
            '%s (%s: %s)' % (n.get('name') or u, n['provision_state'],
                             n.get('last_error'))
            for u, n in sorted(failed.items()))
    return out
