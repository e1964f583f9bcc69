"""Both: what the client and our Mistral actions agree on, defined once.

The protocol number, the workbook and its workflows, the request each
workflow hands its action, the requests of the actions the client runs
on their own (``ACTIONS``: ad hoc, no workflow), and the summary a
recorded step is answered with (``result``). The workbook installed in
Mistral is generated from here, the client builds its requests here, and
the actions read them here: a field added or renamed in one place reaches
all three. The workflows are listed by what they work on (``plans``,
``nodes``, ``validations``, ``config``) and put together here.
"""

from tripleoplanclient.common import exceptions
from tripleoplanclient.protocol import config
from tripleoplanclient.protocol.fields import REQUIRED as _REQUIRED
from tripleoplanclient.protocol import nodes
from tripleoplanclient.protocol import plans
from tripleoplanclient.protocol import validations

# the overlay's functions belong to the protocol's surface
from tripleoplanclient.protocol.overlay import decode_overlay  # noqa: F401
from tripleoplanclient.protocol.overlay import encode_overlay  # noqa: F401
from tripleoplanclient.protocol.overlay import MAX_OVERLAY_BYTES  # noqa: F401

# Bumped whenever a request or a result changes incompatibly; the client
# refuses a workbook, and the actions a request, of another protocol.
PROTOCOL = 17
WORKBOOK = 'tripleoplan.v1'
TAG = 'tripleoplan-protocol-%d' % PROTOCOL
VERSION_ACTION = 'tripleoplan.version'

# workflow -> (action, description, {request field: default})
WORKFLOWS = dict(plans.WORKFLOWS, **nodes.WORKFLOWS, **validations.WORKFLOWS,
                 **config.WORKFLOWS)
# a stack step's configuration: the deploy request's fields for it
_DEPLOY = WORKFLOWS['deploy']
WORKFLOWS['deploy'] = _DEPLOY[:2] + (dict(_DEPLOY[2], **config.DEPLOY_FIELDS),)
# action run on its own (no workflow, nothing saved in Mistral)
ACTIONS = dict(plans.ACTIONS, **validations.ACTIONS)
# workflow -> (task, action) of its follow task, and how often it looks
FOLLOW = dict(plans.FOLLOW, **nodes.FOLLOW)
FOLLOW_DELAY = plans.FOLLOW_DELAY
# workflow -> (task, action) run once after its follow task
AFTER_FOLLOW = config.AFTER_FOLLOW
FOLLOW_DELAYS = dict(nodes.FOLLOW_DELAYS)
# workflow -> (task, workflow) run between its task and its follow task
SUBWORKFLOWS = dict(nodes.SUBWORKFLOWS)
FOLLOW_ROUNDS = plans.FOLLOW_ROUNDS
NODE_FOLLOW_DELAY = nodes.NODE_FOLLOW_DELAY
PROVISION_ENVIRONMENT = nodes.PROVISION_ENVIRONMENT
PROVISION_LOGIN = nodes.PROVISION_LOGIN


def workflow(name):
    """The full name of one of our workflows in Mistral."""
    return '%s.%s' % (WORKBOOK, name)


def action(name):
    """The Mistral action that reads request ``name``."""
    return _entry(name)[0]


def _entry(name):
    return WORKFLOWS[name] if name in WORKFLOWS else ACTIONS[name]


def request(name, /, **fields):
    """The request the client sends to workflow (or action) ``name``."""
    _, _, spec = _entry(name)
    unknown = sorted(set(fields) - set(spec))
    if unknown:
        raise TypeError('%s request: unknown field(s) %s'
                        % (name, ', '.join(unknown)))
    out = {k: fields.get(k, None if v is _REQUIRED else v)
           for k, v in spec.items()}
    out['protocol'] = PROTOCOL
    return out


def read(name, req):
    """A request as an action receives it: checked, defaults filled in."""
    req = dict(req or {})
    theirs = req.pop('protocol', None)
    if theirs != PROTOCOL:
        raise exceptions.CommandError(
            'The tripleoplan actions in this Mistral speak protocol %d, the '
            'client protocol %s: install the same tripleoplanclient version '
            'in Mistral\'s environment (pip install -U '
            '"tripleoplanclient[mistral]") and restart Mistral.'
            % (PROTOCOL, theirs))
    _, _, spec = _entry(name)
    unknown = sorted(set(req) - set(spec))
    missing = sorted(k for k, v in spec.items()
                     if v is _REQUIRED and req.get(k) is None)
    if unknown or missing:
        raise exceptions.CommandError(
            'Bad %s request: %s.' % (name, '; '.join(
                filter(None, ['unknown %s' % ', '.join(unknown) if unknown
                              else '', 'missing %s' % ', '.join(missing)
                              if missing else '']))))
    return {k: req.get(k, None if v is _REQUIRED else v)
            for k, v in spec.items()}


def workbook():
    """The workbook's definition (YAML text), as installed in Mistral.

    Each workflow passes its one ``request`` input to its action and
    publishes the action's result under the workflow's name.
    """
    import yaml

    workflows = {}
    for name, (action, description, _) in WORKFLOWS.items():
        tasks = {name: {
            'action': action,
            'input': {'request': '<% $.request %>'},
            'publish': {name: '<% task().result %>'}}}
        if name in FOLLOW:
            task, follower = FOLLOW[name]
            tasks[name]['on-success'] = [task]
            inputs = {'request': '<% $.request %>',
                      'started': '<%% $.%s %%>' % name}
        if name in SUBWORKFLOWS:
            # our workflow on the request the task answered; the follow
            # task runs whatever its end (it reads what the record says)
            sub, inner = SUBWORKFLOWS[name]
            tasks[name]['on-success'] = [sub]
            tasks[sub] = {
                'workflow': workflow(inner),
                'input': {'request': '<%% $.%s.%s %%>' % (name, inner)},
                'publish': {sub: '<% task().result %>'},
                'on-complete': [task]}
            inputs[sub] = "<%% $.get('%s') %%>" % sub
        if name in FOLLOW:
            tasks[task] = {
                'action': follower,
                'input': inputs,
                'publish': {'followed': '<% task().result %>'},
                'retry': {'count': FOLLOW_ROUNDS,
                          'delay': FOLLOW_DELAYS.get(name, FOLLOW_DELAY),
                          'continue-on': '<% not $.followed.done %>'}}
        if name in AFTER_FOLLOW:
            after, runner = AFTER_FOLLOW[name]
            tasks[task]['on-success'] = [after]
            tasks[after] = {
                'action': runner,
                'input': {'request': '<% $.request %>',
                          'started': '<%% $.%s %%>' % name,
                          'followed': '<% $.followed %>'},
                'publish': {after: '<% task().result %>'}}
        output = {name: '<%% $.%s %%>' % name}
        if name in FOLLOW:
            # the end its follow task saw
            output['followed'] = '<% $.followed %>'
        if name in SUBWORKFLOWS:
            output[SUBWORKFLOWS[name][0]] = "<%% $.get('%s') %%>" % (
                SUBWORKFLOWS[name][0])
        if name in AFTER_FOLLOW:
            output[AFTER_FOLLOW[name][0]] = '<%% $.%s %%>' % (
                AFTER_FOLLOW[name][0])
        workflows[name] = {
            'description': description,
            'tags': [TAG],
            'input': ['request'],
            'output': output,
            'tasks': tasks,
        }
    book = {'version': '2.0', 'name': WORKBOOK,
            'description': 'tripleoplanclient plan workflows (generated '
                           'from tripleoplanclient.protocol)',
            'tags': [TAG], 'workflows': workflows}
    return yaml.safe_dump(book, default_flow_style=False, sort_keys=False)


# What an action that records a step answers (``result``) when the plan
# was already as asked: no step.
UNCHANGED = 'UNCHANGED'


def result(plan, step, state):
    """What the client shows of a step: its id, action, counts and
    outcome (or UNCHANGED: ``step`` None) and the plan's environment list
    after it (``state``: the record's state when nothing was written),
    plan paths, then as their users named them (``name`` of a recorded
    user file; a plan path when it has none)."""
    state = state if step is None else step['state']
    names = [(state['files'].get(p) or {}).get('name') or p
             for p in state['environments']]
    if step is None:
        return {'plan': plan, 'id': None, 'action': None,
                'environments': list(state['environments']),
                'added': 0, 'changed': 0, 'removed': 0,
                'status': UNCHANGED, 'environment_names': names}
    return {'plan': plan, 'id': step['id'], 'action': step['action'],
            'environments': list(state['environments']),
            'added': step['objects']['added'],
            'changed': step['objects']['changed'],
            'removed': step['objects']['removed'],
            'status': step['outcome']['status'],
            'environment_names': names}


def render_entry(summary):
    """A step's render entry from the render action's summary
    (``hashes`` and ``removed_paths`` go into the step's tree, not into
    the entry)."""
    out = {'state': 'SUCCESS', 'outputs': summary.get('outputs', 0),
           'written': len(summary.get('written', [])),
           'removed': len(summary.get('removed', [])),
           'hashes': summary.get('hashes') or {},
           'removed_paths': summary.get('removed', [])}
    if summary.get('ignored'):
        out['info'] = '; '.join(summary['ignored'])
    return out
