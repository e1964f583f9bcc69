"""An overcloud as a whole from the client: ``overcloud delete``'s
workflow (``overcloud_delete``), started and followed.

``delete`` answers ``DeleteOutcome(status, stack_status, plan, nodes,
reason, execution)``: SUCCESS (stack gone, plan deleted or kept, nodes
released), FAILED (Heat's reason; the plan untouched), IN_PROGRESS
(``wait`` False), TIMEOUT (still running after the client's wait: the
reason says how long). The start task's refusal (no plan, stack busy,
Heat refusing) is a CommandError: nothing changed.
"""

import collections

from tripleoplanclient import protocol
from tripleoplanclient.workflows import executions
from tripleoplanclient.workflows import nodes

DeleteOutcome = collections.namedtuple(
    'DeleteOutcome', 'status stack_status plan nodes reason execution')


def delete(workflows, plan, timeout, wait=True, started=None, **fields):
    """Delete ``plan``'s stack, then the plan (``fields``: keep_plan,
    unprovision, endpoints, command); ``timeout`` in minutes;
    ``started()`` once Heat was asked."""
    request = protocol.request('overcloud_delete', container=plan,
                               timeout=timeout, **fields)
    execution, answer = nodes.start_task(workflows, 'overcloud_delete',
                                         request, 600)
    if answer is None:
        return DeleteOutcome('TIMEOUT', None, None, None, _late(
            600, 'the delete did not start', execution), execution.id)
    if started is not None:
        started()
    workflows.progress('Stack %s: %s; the delete goes on in Mistral '
                       '(execution %s).' % (
                           plan, 'delete asked' if answer.get('stack_id')
                           else 'there is none', execution.id))
    if not wait:
        return DeleteOutcome('IN_PROGRESS', 'DELETE_IN_PROGRESS', None, None,
                             None, execution.id)
    execution = workflows.wait(execution, timeout * 60 + nodes.MARGIN)
    if execution.state not in ('SUCCESS', 'ERROR'):
        return DeleteOutcome('TIMEOUT', 'DELETE_IN_PROGRESS', None, None,
                             _late(timeout * 60 + nodes.MARGIN,
                                   '--timeout of %d minutes' % timeout,
                                   execution), execution.id)
    if execution.state != 'SUCCESS':
        return DeleteOutcome('FAILED', None, None, None, executions.reason(
            execution.state_info), execution.id)
    followed = executions.output(execution).get('followed') or {}
    return DeleteOutcome(followed.get('status') or 'FAILED',
                         followed.get('stack_status'), followed.get('plan'),
                         followed.get('nodes'), followed.get('reason'),
                         execution.id)


def _late(seconds, why, execution):
    return ('Timed out after %d s (%s): the delete goes on in Mistral '
            '(execution %s)' % (seconds, why, execution.id))
