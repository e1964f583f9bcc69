"""The end of a stack operation, seen from Mistral (the deploy workflow's
follow task).

The workflow runs this again every few seconds while it answers
``{'done': False}``; once Heat has ended the operation it records the
step's final outcome, unless the client already did. So the record tells
the outcome whether the client waited, returned (``--no-wait``), died, or
was never ours (any client of the workflow that names a step). When
configuration follows (``record.configs.configures``), Heat's end is
recorded not final and the configure task records the step's end.
"""

from tripleoplanclient.common import status
from tripleoplanclient.record import configs
from tripleoplanclient.record import log


def recorded_step(req, started):
    """The id of the step the deploy task recorded (``started``: its
    answer, ``stack_step.answer``), or the one the request names."""
    return ((started or {}).get('step') or {}).get('id') or req['step']


def follow(store, heat, req, started):
    """One look at the stack ``started`` (the deploy task's result)."""
    plan, step_id = req['container'], recorded_step(req, started)
    if not started.get('stack_id'):
        # No stack operation began (the step failed before Heat).
        return {'done': True}
    if started.get('configure'):
        # Heat was not asked (nothing changed, or configuration only):
        # the deploy task left the end to the configure task.
        return {'done': True, 'configure': True}
    if ((started.get('step') or {}).get('outcome') or {}).get(
            'status') in log.FINAL:
        # The deploy task knew the end (nothing changed) and wrote it.
        return {'done': True, 'recorded_by': 'mistral'}
    # By the stack's id: one request (by its name, Heat redirects).
    ident = '%s/%s' % (plan, started['stack_id'])
    stack = None
    if started.get('operation') != 'NONE':
        # Heat first: while the stack works, a round costs this one
        # request (the client records no outcome before the end either).
        stack = status.lookup(heat, ident, req['heat_url'])
        if stack is not None and \
                stack.stack_status.endswith(status.BUSY_SUFFIX):
            return {'done': False, 'stack_status': stack.stack_status}
    if store.container.get(plan, log.outcome_path(step_id)) is not None:
        return {'done': True, 'recorded_by': 'client'}
    if started.get('operation') == 'NONE':
        # Nothing ran: usually the deploy task recorded it already.
        stack = status.lookup(heat, ident, req['heat_url'])
        if stack is not None and \
                stack.stack_status.endswith(status.BUSY_SUFFIX):
            return {'done': False, 'stack_status': stack.stack_status}
    found = {k: started.get(k) for k in ('operation', 'fingerprint',
                                         'swift_gets', 'files')}
    if stack is None or stack.id != started.get('stack_id') or \
            stack.stack_status.startswith('DELETE_'):
        # Deleted (perhaps with its plan): nothing more to learn, and no
        # reason to look again.
        outcome = {'status': 'UNKNOWN',
                   'reason': 'stack %s is gone' % started.get('stack_id')}
        if store.container.listing(plan, prefix=log.OUTCOME_PREFIX)[1] \
                is not None:
            store.writer.write_outcome(plan, step_id, outcome, found,
                                       final=False)
        return {'done': True, 'status': outcome['status']}
    outcome = {'status': 'SUCCESS' if stack.stack_status.endswith(
        '_COMPLETE') else 'FAILED', 'stack_status': stack.stack_status,
        'stack_id': stack.id, 'reason': stack.stack_status_reason,
        'recorded_by': 'mistral'}
    found.update(id=stack.id, updated=status.updated(stack))
    if started.get('operation') == 'NONE':
        found['status'] = stack.stack_status
    if configs.configures(req['config'], stack.stack_status,
                          getattr(stack, 'outputs', None)):
        # Heat's end, not the step's: the configure task writes that.
        outcome.update(status='IN_PROGRESS', configuring=True)
        store.writer.write_outcome(plan, step_id, outcome, found,
                                   final=False)
        return {'done': True, 'configure': True,
                'stack_status': stack.stack_status}
    # A client that saw the same end while Heat was asked keeps its own
    # record, untouched: written only if no outcome is stored by then.
    if not store.writer.write_outcome(plan, step_id, outcome, found,
                                      only_if_new=True):
        return {'done': True, 'recorded_by': 'client'}
    return {'done': True, 'status': outcome['status']}
