"""The open stack step: who is still running, and mending what nobody saw.

A stack step is recorded IN_PROGRESS before Heat is asked for anything;
its final outcome is written by whoever sees the end. When nobody did (the
client was killed, and the Mistral side that follows the stack too), the
next command finds the step still open and asks Heat: a stack that changed
since the step began and is no longer busy tells the outcome. A step that
Heat never heard of is INTERRUPTED once its command has had time enough to
call Heat.
"""

import time

from tripleoplanclient.common import exceptions
from tripleoplanclient.common import status
from tripleoplanclient.record import log

# Seconds a command may take between recording its step and Heat taking
# the operation (writes, a render, Mistral starting the workflow).
GRACE = 600
# Minutes a step that configures may take at most, by default (Heat's
# timeout, then the configuration's): the deploy request's defaults.
HEAT_MINUTES = 240
CONFIG_MINUTES = 240


def find(rows):
    """The newest stack step, when its outcome is not final yet."""
    for row in reversed(rows):
        if row.get('stack'):
            if row['outcome']['status'] in log.FINAL:
                return None
            return row
    return None


def running(row):
    return exceptions.CommandError(
        'Stack operation in progress (step %d, %s, started by %s at %s: %s). '
        'Wait until it ends ("openstack overcloud plan show-history"), then '
        'run the command again. Nothing was changed.' % (
            row['step'], row['action'], row['user'], row['time'],
            row.get('command', '')))


def mend(store, plan, rows, stack, now=None):
    """Settle the open stack step from Heat's ``stack`` if it has ended.

    Returns the row still running (None when no step is open any more).
    """
    row = find(rows)
    if row is None:
        return None
    began = log.seconds(row['time'])
    now = time.time() if now is None else now
    if row['outcome'].get('configuring'):
        # Heat's part ended; the deploy workflow configures the servers
        # and records the end: only a workflow gone long since leaves it.
        budget = 60 * (int((row.get('config') or {}).get(
            'config_timeout') or CONFIG_MINUTES) + HEAT_MINUTES) + GRACE
        if began is None or now - began <= budget:
            return row
        outcome = {'status': 'INTERRUPTED', 'mended': 'from the record',
                   'reason': 'the configuration of the servers never '
                             'recorded its end (Mistral stopped?)'}
        return _settle(store, plan, row, outcome, {})
    changed = log.seconds(status.updated(stack)) \
        if stack is not None else None
    if stack is not None and stack.stack_status.endswith(
            status.BUSY_SUFFIX):
        return row
    if changed is not None and began is not None and changed >= began:
        outcome = {
            'status': 'SUCCESS' if stack.stack_status.endswith('_COMPLETE')
            else 'FAILED',
            'stack_status': stack.stack_status,
            'stack_id': stack.id,
            'reason': stack.stack_status_reason,
            'mended': 'from Heat: nobody followed the operation to its end'}
        found = {'updated': status.updated(stack), 'id': stack.id}
    elif began is not None and now - began > GRACE:
        outcome = {'status': 'INTERRUPTED',
                   'reason': 'Heat never started the operation (the command '
                             'ended before it asked)',
                   'mended': 'from Heat'}
        found = {}
    else:
        return row
    return _settle(store, plan, row, outcome, found)


def _settle(store, plan, row, outcome, found):
    if store.reader.read_only or store.writer.write_outcome(
            plan, row['id'], outcome, found, only_if_new=True):
        log.merge_outcome(row, {'outcome': outcome, 'stack': found})
        return None
    # The client or Mistral recorded the end meanwhile: theirs stands.
    name = log.outcome_path(row['id'])
    data = store.container.get(plan, name)
    if data is not None:
        log.merge_outcome(row, log.load_outcome(data, name,
                                                plan))
    return None


def check_idle(store, plan, rows, stack):
    """Refuse while a stack operation runs: one of the plan's own (its step
    is named), or one started some other way. A step nobody saw end is
    mended from Heat first."""
    if rows:
        still = mend(store, plan, rows, stack)
        if still is not None:
            raise running(still)
    return status.check_idle(stack, plan)
