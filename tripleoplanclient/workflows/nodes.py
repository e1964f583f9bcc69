"""The node workflows from the client: requests built, executions run and
their rows read back (``overcloud node introspect|provide|configure|tag``,
``overcloud profiles list``, and ``node import --introspect --provide``).

Each function takes an ``executions.Workflows`` and answers
``Outcome(rows, status, execution)``: a row per node (the action's own
rows), and the operation's status: SUCCESS, FAILED (some node failed; the
others went on), IN_PROGRESS (``wait`` False), TIMEOUT (still running in
Mistral after the client's wait). A refusal before anything started (an
unknown node, one in the wrong state, Mistral or Ironic refusing) is a
CommandError.
"""

import collections

from tripleoplanclient import protocol
from tripleoplanclient.common import exceptions

Outcome = collections.namedtuple('Outcome', 'rows status execution')
# Seconds the client waits past an operation's own timeout: the follow
# task notices the end within a round or two, Mistral within its polling.
MARGIN = 60
_RUNNING = ('IDLE', 'RUNNING', 'PAUSED')


def introspect(workflows, nodes, all_manageable=False, provide=False,
               ironic_url=None, timeout=3600, wait=True, started=None):
    """Inspect ``nodes`` (names or uuids) or every manageable node, then
    with ``provide`` make those that passed available. ``timeout``:
    seconds, for the whole operation; ``started``: called with the
    execution id once the nodes started."""
    return run_followed(workflows, 'node_introspect', protocol.request(
        'node_introspect', nodes=list(nodes or []) or None,
        all_manageable=all_manageable, provide=provide,
        ironic_url=ironic_url, timeout=timeout), timeout, wait, started)


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
        return _timed_out(workflows, name, [], execution.id, timeout)
    if started is not None:
        started(execution.id)
    rows = [{'name': n.get('name'), 'uuid': n['uuid'],
             'provision_state': None,
             'status': 'FAILED' if n.get('error') else 'IN_PROGRESS',
             'error': n.get('error'), 'properties': None}
            for n in answer.get('nodes') or []]
    workflows.progress('%s: %d node(s) started%s' % (
        name, len(rows), '' if wait else '; follow with "openstack '
        'workflow execution show %s"' % execution.id))
    if not wait or not rows:
        return Outcome(rows, 'IN_PROGRESS' if rows else 'SUCCESS',
                       execution.id)
    followed = follow_task(workflows, name, execution, timeout,
                           'it started the nodes')
    if followed is None:
        return _timed_out(workflows, name, rows, execution.id, timeout)
    if not followed.get('done'):
        # the follow task ran out of rounds before the nodes ended
        return _timed_out(workflows, name, followed.get('nodes') or rows,
                          execution.id, timeout)
    rows = followed.get('nodes') or rows
    for row in rows:
        if row['status'] == 'FAILED':
            workflows.progress('%s (%s): %s' % (
                row['name'] or row['uuid'], row['provision_state'],
                row['error']))
    workflows.progress('%s: %d node(s) done, %d failed' % (
        name, sum(r['status'] == 'SUCCESS' for r in rows),
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


def follow_task(workflows, name, execution, timeout, after):
    """The follow task's last answer once ``execution`` ended; None when
    it still runs past ``timeout`` (and MARGIN). CommandError when the
    workflow failed ``after`` its start (what had been done by then)."""
    from tripleoplanclient.workflows import executions

    execution = workflows.wait(execution, timeout + MARGIN)
    if execution.state in _RUNNING:
        return None
    if execution.state != 'SUCCESS':
        raise exceptions.CommandError(
            'The %s workflow failed after %s: %s; see "openstack workflow '
            'execution show %s".' % (name, after, executions.reason(
                execution.state_info), execution.id))
    return executions.output(execution).get('followed') or {}


def _timed_out(workflows, name, rows, execution_id, timeout):
    workflows.progress(
        '%s: still running after %d s; it goes on in Mistral: see '
        '"openstack workflow execution show %s".' % (
            name, timeout + MARGIN, execution_id))
    return Outcome(rows, 'TIMEOUT', execution_id)


def _status(rows):
    if any(r.get('status') == 'FAILED' for r in rows):
        return 'FAILED'
    if any(r.get('status') == 'IN_PROGRESS' for r in rows):
        return 'IN_PROGRESS'
    return 'SUCCESS'
