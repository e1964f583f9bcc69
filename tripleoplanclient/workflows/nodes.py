"""The node workflows from the client: every node request is built here
(``protocol.request``), its execution run and its rows read back
(``overcloud node import|introspect|provide|configure|tag``, ``overcloud
node provision|unprovision|delete``, ``overcloud profiles list``).

Each function takes an ``executions.Workflows`` and answers
``Outcome(rows, status, execution)``: a row per node (the action's own
rows), and the operation's status: SUCCESS, FAILED (some node failed; the
others went on), IN_PROGRESS (``wait`` False), TIMEOUT (still running in
Mistral after the client's wait). A refusal before anything started (an
unknown node, one in the wrong state, Mistral or Ironic refusing) is a
CommandError.

``register`` runs the ``node_register`` action on its own, synchronously
and unsaved (``executions.Workflows.run_action``), the nodes inline with
their BMC passwords: Mistral keeps nothing of that run (no execution,
nothing in Swift), so no member of the project can read them.

``provision`` and ``unprovision`` answer ``ProvisionOutcome(rows, status,
step, execution)``: a row per instance (``role, hostname, node,
ctlplane_ip, state``), the operation's status (SUCCESS, UNCHANGED, FAILED,
IN_PROGRESS with ``wait`` False, TIMEOUT), the recorded step's summary
(None before the end); the first task's refusal allocates nothing.

``delete`` (``overcloud node delete``) answers ``DeleteOutcome(rows,
status, step, execution, reason)``: a row per server removed, the status
the update step's record and the release say, the step the deploy
workflow recorded, why it did not succeed when the workflow or the
release says (the update step's reason is in its record); the start
task's refusal changes nothing.
"""

import collections

from tripleoplanclient.common import exceptions
from tripleoplanclient import protocol
from tripleoplanclient.workflows import executions

Outcome = collections.namedtuple('Outcome', 'rows status execution')
ProvisionOutcome = collections.namedtuple(
    'ProvisionOutcome', 'rows status step execution')
# Seconds the client waits past an operation's own timeout: the follow
# task notices the end within a round or two, Mistral within its polling.
MARGIN = 60
_RUNNING = ('IDLE', 'RUNNING', 'PAUSED')
# Seconds node_register may take before it answers (nodes still verifying
# their BMC then say so): below Mistral's rpc_response_timeout (60 s by
# default), past which its API drops the answer.
REGISTER_WAIT = 45


def introspect(workflows, nodes, all_manageable=False, provide=False,
               ironic_url=None, timeout=3600, wait=True, started=None,
               **per_node):
    """Inspect ``nodes`` (names or uuids) or every manageable node, then
    with ``provide`` make those that passed available. ``timeout``:
    seconds, for the whole operation; ``per_node``: node_timeout,
    max_retries, retry_timeout, concurrency (the request's defaults when
    not given); ``started``: called with the execution id once the nodes
    started."""
    return run_followed(workflows, 'node_introspect', protocol.request(
        'node_introspect', nodes=list(nodes or []) or None,
        all_manageable=all_manageable, provide=provide,
        ironic_url=ironic_url, timeout=timeout, **per_node), timeout, wait,
        started)


def provide(workflows, nodes, all_manageable=False, ironic_url=None,
            timeout=3600, wait=True, started=None):
    """Power ``nodes`` (or every manageable node) off and make them
    available."""
    return run_followed(workflows, 'node_provide', protocol.request(
        'node_provide', nodes=list(nodes or []) or None,
        all_manageable=all_manageable, ironic_url=ironic_url,
        timeout=timeout), timeout, wait, started)


def configure(workflows, nodes, timeout, **fields):
    """Set deploy kernel/ramdisk and root device hints (``fields``:
    node_configure's request fields)."""
    return run_rows(workflows, 'node_configure', protocol.request(
        'node_configure', nodes=list(nodes or []) or None, **fields),
        timeout)


def tag(workflows, nodes, profile, ironic_url=None, timeout=600):
    """Give ``nodes`` the profile ``profile``; None takes it away."""
    return run_rows(workflows, 'node_tag', protocol.request(
        'node_tag', nodes=list(nodes), profile=profile,
        ironic_url=ironic_url), timeout)


def profiles(workflows, every=False, ironic_url=None, timeout=600):
    """Every node with its current and possible profiles."""
    return run_rows(workflows, 'profiles_list', protocol.request(
        'profiles_list', all=every, ironic_url=ironic_url), timeout)


def register(workflows, nodes, ironic_url=None, validate_only=False,
             timeout=600):
    """``(rows, requests to Ironic)`` of registering ``nodes`` (the node
    file's list, checked): the action answers within ``timeout`` seconds
    (at most ``REGISTER_WAIT``), this client waits 15 s more for Mistral.
    StillRunning when no answer came: the action may have registered
    nodes, or still be at it."""
    request = protocol.request(
        'node_register', nodes=nodes, ironic_url=ironic_url,
        validate_only=validate_only, timeout=min(REGISTER_WAIT, timeout))
    try:
        result = workflows.run_action('node_register', request,
                                      timeout + 15)
    except executions.NoAnswer as exc:
        raise executions.StillRunning(
            'No answer from the node registration in Mistral (%s): it may '
            'have registered nodes, or still be at it. Run the same import '
            'again to see each node (what Ironic has is not written twice); '
            'if this repeats, raise Mistral\'s rpc_response_timeout '
            '([DEFAULT], 60 s by default) above %d s.'
            % (exc.why, REGISTER_WAIT + 15))
    result = result or {}
    return result.get('nodes') or [], result.get('requests')


def provision(workflows, plan, roles, timeout, wait=True, started=None,
              **fields):
    """Provision ``roles`` (the baremetal deployment's list) into
    ``plan``; ``fields``: node_provision's other request fields."""
    return _run_provision(workflows, 'node_provision', protocol.request(
        'node_provision', container=plan, roles=roles, timeout=timeout,
        **fields), timeout, wait, started)


def unprovision(workflows, plan, instances, timeout, wait=True,
                started=None, **fields):
    """Release ``instances`` (hostnames; None: all) of ``plan``."""
    return _run_provision(workflows, 'node_unprovision', protocol.request(
        'node_unprovision', container=plan, instances=instances,
        timeout=timeout, **fields), timeout, wait, started)


def _provision_rows(started, states=None):
    states = states or {}
    rows = [{'role': i['role'], 'hostname': i['hostname'],
             'node': i['node'], 'ctlplane_ip': i['ctlplane_ip'],
             'state': states.get(i['uuid'], 'deploying' if i.get('new')
                                 else 'active')}
            for i in started.get('instances') or []]
    rows += [{'role': None, 'hostname': r['hostname'], 'node': r['uuid'],
              'ctlplane_ip': None,
              'state': states.get(r['uuid'], 'releasing')}
             for r in started.get('released') or []]
    return rows


def _run_provision(workflows, name, request, timeout, wait,
                   asked=None):
    """``asked()`` is called once the first task ended well (Ironic was
    asked): before, a failure changed nothing."""
    execution, started = start_task(workflows, name, request, timeout)
    if started is None:
        return ProvisionOutcome([], 'TIMEOUT', None, execution.id)
    if asked is not None:
        asked()
    for refused in started.get('refused') or ():
        workflows.progress('Ironic refused node %s: %s' % (
            refused['node'], refused['error']))
    if not wait:
        workflows.progress('%s: goes on in Mistral ("openstack workflow '
                           'execution show %s")' % (
                               workflows.doing(execution.id), execution.id))
        return ProvisionOutcome(_provision_rows(started), 'IN_PROGRESS',
                                None, execution.id)
    workflows.progress('%s: Ironic was asked; following the nodes'
                       % workflows.doing(execution.id))
    followed = follow_task(workflows, execution, timeout,
                           'Ironic was asked')
    if followed is None:
        return ProvisionOutcome(_provision_rows(started), 'TIMEOUT', None,
                                execution.id)
    for failed in followed.get('failed') or ():
        workflows.progress('Node %s (%s): %s' % (
            failed['node'], failed['state'], failed['error']))
    step = followed.get('step')
    return ProvisionOutcome(_provision_rows(started, followed.get('nodes')),
                            followed.get('status') or 'SUCCESS', step,
                            execution.id)


def run_rows(workflows, name, request, timeout):
    """A node workflow without a follow task: its rows; FAILED when one
    node failed."""
    rows = (workflows.run_workflow(name, request, timeout) or {}).get(
        'nodes') or []
    return Outcome(rows, _status(rows), None)


def run_followed(workflows, name, request, timeout, wait=True,
                 started=None):
    """A node workflow with a follow task: started (a refusal is a
    CommandError, nothing started; then ``started(execution id)``), then
    followed to its end unless ``wait`` is False."""
    execution, answer = start_task(workflows, name, request, timeout)
    if answer is None:
        return _timed_out(workflows, [], execution.id, timeout)
    if started is not None:
        started(execution.id)
    rows = [{'name': n.get('name'), 'uuid': n['uuid'],
             'provision_state': None,
             'status': 'FAILED' if n.get('error') else 'IN_PROGRESS',
             'error': n.get('error'), 'properties': None, 'attempts': None}
            for n in answer.get('nodes') or []]
    workflows.progress('%s: %d node(s) started%s' % (
        workflows.doing(execution.id), len(rows), '' if wait else
        '; follow with "openstack workflow execution show %s"'
        % execution.id))
    if not wait or not rows:
        return Outcome(rows, 'IN_PROGRESS' if rows else 'SUCCESS',
                       execution.id)
    followed = follow_task(workflows, execution, timeout,
                           'it started the nodes')
    if followed is None:
        return _timed_out(workflows, rows, execution.id, timeout)
    if not followed.get('done'):
        # the follow task ran out of rounds before the nodes ended
        return _timed_out(workflows, followed.get('nodes') or rows,
                          execution.id, timeout)
    rows = followed.get('nodes') or rows
    for row in rows:
        if row['status'] == 'FAILED':
            workflows.progress('%s (%s): %s' % (
                row['name'] or row['uuid'], row['provision_state'],
                row['error']))
    workflows.progress('%s: %d node(s) done, %d failed' % (
        workflows.doing(execution.id),
        sum(r['status'] == 'SUCCESS' for r in rows),
        sum(r['status'] == 'FAILED' for r in rows)))
    return Outcome(rows, _status(rows), execution.id)


def start_task(workflows, name, request, timeout):
    """``(execution, its start task's answer)`` of workflow ``name``
    started; the answer None when the task still runs past ``timeout``
    (and MARGIN). CommandError with the action's own message when it
    failed: nothing started."""
    from tripleoplanclient.workflows import executions

    execution = workflows.start(protocol.workflow(name), request)
    task = workflows.wait_task(execution, name, timeout + MARGIN)
    if task is None:
        return execution, None
    if task.state != 'SUCCESS':
        raise exceptions.CommandError(executions.reason(task.state_info))
    return execution, executions.published(task).get(name) or {}


def follow_task(workflows, execution, timeout, after):
    """The follow task's last answer once ``execution`` ended; None when
    it still runs past ``timeout`` (and MARGIN). CommandError when the
    workflow failed ``after`` its start (what had been done by then)."""
    from tripleoplanclient.workflows import executions

    execution = workflows.wait(execution, timeout + MARGIN)
    if execution.state in _RUNNING:
        return None
    if execution.state != 'SUCCESS':
        raise exceptions.CommandError(
            '%s: failed after %s: %s; see "openstack workflow execution '
            'show %s".' % (workflows.doing(execution.id), after,
                           executions.reason(execution.state_info),
                           execution.id))
    return executions.output(execution).get('followed') or {}


def _timed_out(workflows, rows, execution_id, timeout):
    workflows.progress(
        '%s: still running after %d s; it goes on in Mistral: see '
        '"openstack workflow execution show %s".' % (
            workflows.doing(execution_id), timeout + MARGIN, execution_id))
    return Outcome(rows, 'TIMEOUT', execution_id)


def _status(rows):
    if any(r.get('status') == 'FAILED' for r in rows):
        return 'FAILED'
    if any(r.get('status') == 'IN_PROGRESS' for r in rows):
        return 'IN_PROGRESS'
    return 'SUCCESS'


DeleteOutcome = collections.namedtuple(
    'DeleteOutcome', 'rows status step execution reason')


def delete(workflows, plan, names, timeout, config_timeout, wait=True,
           started=None, **fields):
    """Remove the servers ``names`` (hostnames, nodes, Role/index) from
    ``plan``'s stack (``node_delete``): a refusal before anything changed
    is a CommandError; ``started()`` is called once the environment is
    written. ``timeout``, ``config_timeout``: minutes. Rows: a server
    each (``role, index, hostname, node, state``); status as the update
    step's record says, FAILED when a node was not released."""
    request = protocol.request(
        'node_delete', container=plan, nodes=list(names), timeout=timeout,
        config_timeout=config_timeout, **fields)
    execution, answer = start_task(workflows, 'node_delete', request, 600)
    if answer is None:
        return DeleteOutcome([], 'TIMEOUT', None, execution.id,
                             'Timed out after 600 s: the delete did not '
                             'start (execution %s)' % execution.id)
    if started is not None:
        started()
    servers = answer.get('servers') or []
    workflows.progress('Plan %s: removing %s; the stack update goes on in '
                       'Mistral (execution %s).' % (plan, ', '.join(
                           s['hostname'] for s in servers), execution.id))
    if not wait:
        return DeleteOutcome(_delete_rows(servers, 'deleting'),
                             'IN_PROGRESS', None, execution.id, None)
    waited = (timeout + config_timeout) * 60 + MARGIN
    execution = workflows.wait(execution, waited)
    if execution.state in _RUNNING:
        return DeleteOutcome(
            _delete_rows(servers, 'deleting'), 'TIMEOUT', None,
            execution.id, 'Timed out after %d s (--timeout and '
            '--config-download-timeout): the delete goes on in Mistral '
            '(execution %s)' % (waited, execution.id))
    out = executions.output(execution)
    released = out.get('followed') or {}
    reasons = []
    for failed in released.get('failed') or ():
        reasons.append('Node %s (%s): %s' % (
            failed['node'], failed['state'], failed['error']))
        workflows.progress(reasons[-1])
    step = ((out.get('update') or {}).get('deploy') or {}).get('step')
    status = released.get('status') or 'FAILED'
    if execution.state != 'SUCCESS':
        reasons.append('%s: ended %s: %s' % (
            workflows.doing(execution.id), execution.state,
            executions.reason(execution.state_info)))
        workflows.progress(reasons[-1])
        status = 'FAILED'
    return DeleteOutcome(
        _delete_rows(servers, 'deleted' if status == 'SUCCESS' else None,
                     released.get('nodes')), status, step, execution.id,
        '; '.join(reasons) or None)


def _delete_rows(servers, state, nodes=None):
    nodes = nodes or {}
    return [{'role': s['role'], 'index': s['index'],
             'hostname': s['hostname'], 'node': s.get('node'),
             'state': nodes.get(s.get('uuid')) or state}
            for s in servers]
