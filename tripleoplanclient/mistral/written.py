"""What the actions that record a step answer, and the command line they
record: the same for every writer (``settings``, ``lifecycle``)."""

from tripleoplanclient.common import masking
from tripleoplanclient.plan import record as record_mod

UNCHANGED = 'UNCHANGED'


def command(req, action, hidden=()):
    """The command line to record: the client's (its arguments, masked
    by the client) masked again here, the values of NAME=VALUE of a
    hidden or secret-looking parameter too; else the action's name (a
    client that gave none, through Mistral's API)."""
    argv = [str(a) for a in req['command'] or []]
    if not argv:
        return 'mistral action %s' % action
    out = []
    for arg in argv:
        name, sep, _ = arg.partition('=')
        if sep and (name in hidden or masking.secret_key(name)):
            arg = '%s=%s' % (name, masking.MASK)
        out.append(arg)
    return record_mod.sanitize_argv(out, parsers=())


def result(plan, step, state):
    """What the client shows: the step (or UNCHANGED) and the plan's
    environment list after it."""
    if step is None:
        return {'plan': plan, 'id': None, 'action': None,
                'environments': list(state['environments']),
                'added': 0, 'changed': 0, 'removed': 0,
                'status': UNCHANGED}
    return {'plan': plan, 'id': step['id'], 'action': step['action'],
            'environments': list(step['state']['environments']),
            'added': step['objects']['added'],
            'changed': step['objects']['changed'],
            'removed': step['objects']['removed'],
            'status': step['outcome']['status']}
