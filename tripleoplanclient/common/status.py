"""A stack's status: looking it up, and whether an operation may start.

Used by the client before it writes anything, and by the deploy action
again right before it calls Heat (the stack may have changed in between).
"""

from tripleoplanclient.common import exceptions

BUSY_SUFFIX = '_IN_PROGRESS'
# The states a finished create or update leaves behind when all went well.
DONE = ('CREATE_COMPLETE', 'UPDATE_COMPLETE')


def lookup(heat, name, heat_url):
    """The stack named ``name``, or None (none, or deleted); CommandError
    when Heat fails."""
    from heatclient import exc as heat_exc
    try:
        stack = heat.stacks.get(name)
    except heat_exc.HTTPNotFound:
        return None
    except Exception as exc:
        raise exceptions.CommandError(
            'Cannot reach Heat at %s to look up stack %s (%s). Nothing was '
            'changed.' % (heat_url, name,
                          getattr(exc, 'message', None) or
                          type(exc).__name__))
    # Heat answers a deleted stack's id, and for a moment after the delete
    # its name too (`stack delete --wait` returns on that event).
    return None if stack.stack_status == 'DELETE_COMPLETE' else stack


def recorded(heat, name, rows, heat_url):
    """The stack ``name``, looked up by the id the newest stack step of
    ``rows`` (history rows) recorded: one request, where the name costs a
    redirect too. By name when none is recorded or that stack is gone
    (deleted)."""
    for row in reversed(rows or ()):
        if row.get('stack'):
            stack_id = row['stack'].get('id') or \
                row['outcome'].get('stack_id')
            found = lookup(heat, '%s/%s' % (name, stack_id), heat_url) \
                if stack_id else None
            if found is not None:
                return found
            break
    return lookup(heat, name, heat_url)


def check_idle(stack, name):
    """Refuse to start an operation on a stack that is in the middle of one.

    ``stack`` may be None (no stack yet: nothing is running).
    """
    if stack is not None and stack.stack_status.endswith(BUSY_SUFFIX):
        raise exceptions.CommandError(
            'Stack %s is %s: wait until it ends (openstack stack show %s), '
            'then run the command again. Nothing was changed.'
            % (name, stack.stack_status, name))
    return stack


def updated(stack):
    """When the stack last changed (its creation, if never updated)."""
    return getattr(stack, 'updated_time', None) or stack.creation_time
