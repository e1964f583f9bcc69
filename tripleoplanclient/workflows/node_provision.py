"""Provisioning into a plan from the client (``overcloud node provision
| unprovision``): the request built, the workflow started, its first
task's answer (a refusal: nothing allocated) and, waiting, its follow
task's end (the nodes' states and the step recorded).

``Outcome(rows, status, step, execution)``: a row per instance
(``role, hostname, node, ctlplane_ip, state``), the operation's status
(SUCCESS, UNCHANGED, FAILED, IN_PROGRESS with ``wait`` False, TIMEOUT),
the recorded step's summary (None before the end).
"""

import collections

from tripleoplanclient import protocol

# the client waits ``workflows.nodes.MARGIN`` seconds past the timeout
Outcome = collections.namedtuple('Outcome', 'rows status step execution')


def provision(workflows, plan, roles, timeout, wait=True, started=None,
              **fields):
    """Provision ``roles`` (the baremetal deployment's list) into
    ``plan``; ``fields``: node_provision's other request fields."""
    return _run(workflows, 'node_provision', protocol.request(
        'node_provision', container=plan, roles=roles, timeout=timeout,
        **fields), timeout, wait, started)


def unprovision(workflows, plan, instances, timeout, wait=True,
                started=None, **fields):
    """Release ``instances`` (hostnames; None: all) of ``plan``."""
    return _run(workflows, 'node_unprovision', protocol.request(
        'node_unprovision', container=plan, instances=instances,
        timeout=timeout, **fields), timeout, wait, started)


def _rows(started, states=None):
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


def _run(workflows, name, request, timeout, wait, asked=None):
    """``asked()`` is called once the first task ended well (Ironic was
    asked): before, a failure changed nothing."""
    from tripleoplanclient.workflows import nodes

    execution, started = nodes.start_task(workflows, name, request,
                                          timeout)
    if started is None:
        return Outcome([], 'TIMEOUT', None, execution.id)
    if asked is not None:
        asked()
    for refused in started.get('refused') or ():
        workflows.progress('Ironic refused node %s: %s' % (
            refused['node'], refused['error']))
    if not wait:
        workflows.progress('%s goes on in Mistral: "openstack workflow '
                           'execution show %s"' % (name, execution.id))
        return Outcome(_rows(started), 'IN_PROGRESS', None, execution.id)
    followed = nodes.follow_task(workflows, name, execution, timeout,
                                 'Ironic was asked')
    if followed is None:
        return Outcome(_rows(started), 'TIMEOUT', None, execution.id)
    for failed in followed.get('failed') or ():
        workflows.progress('Node %s (%s): %s' % (
            failed['node'], failed['state'], failed['error']))
    step = followed.get('step')
    return Outcome(_rows(started, followed.get('nodes')),
                   followed.get('status') or 'SUCCESS', step, execution.id)
