"""A deploy, update or upgrade step, recorded in Mistral (the deploy
action's body), the same for every client of the deploy workflow.

The request says what its client wrote (as plan_amend's: environments
added and removed, user files, the tree's changes, inputs, a new
templates release) and which step it is (``action``, ``stage``). Here the
step is built against the plan's newest record (``builder``), rendered
when a rendering input changed, committed IN_PROGRESS before Heat is
asked for anything, and then the stack is created or updated
(``deploy.deploy``). A step that changes nothing since a stack step
that succeeded, on a stack untouched since, is told from the index alone
and recorded done in one write (``_untouched``). An outcome known here
(Heat refused, nothing to do) is written here; a stack operation's end
is written by whoever sees it: the client following the events, else the
workflow's follow task. So a
client killed at any point after asking leaves a complete record. When
configuration follows (``record.configs``) Heat's end is recorded not
final, and the deploy workflow's configure task records the step's end.
"""

import hashlib
import json

from tripleoplanclient.common import exceptions
from tripleoplanclient.common import status
from tripleoplanclient.mistral import assembly
from tripleoplanclient.mistral import builder
from tripleoplanclient.mistral import command_line
from tripleoplanclient.mistral import deploy as deploy_mod
from tripleoplanclient.mistral import lifecycle
from tripleoplanclient.plan import layout
from tripleoplanclient.record import configs
from tripleoplanclient.record import log
from tripleoplanclient.stack import preconditions

ACTIONS = ('deploy', 'update', 'upgrade')
STAGES = ('prepare', 'converge')
# Worked out here from the step; a request that sets them is refused.
_DERIVED = ('environments', 'plan_environment', 'unchanged', 'step')
# The validation runs a request may have the step record (pre hooks).
_MAX_HOOKS = 4
_MAX_TEXT = 128


def _check(plan, req):
    if req['action'] not in ACTIONS:
        raise exceptions.CommandError(
            'Bad deploy request for plan %s: action must be one of %s. '
            'Nothing was recorded.' % (plan, ', '.join(ACTIONS)))
    if req['stage'] is not None and (req['action'] == 'deploy' or
                                     req['stage'] not in STAGES):
        raise exceptions.CommandError(
            'Bad deploy request for plan %s: stage must be one of %s, and '
            'only for update and upgrade. Nothing was recorded.'
            % (plan, ', '.join(STAGES)))
    given = [f for f in _DERIVED if req[f] is not None]
    if given:
        raise exceptions.CommandError(
            'Bad deploy request for plan %s: %s %s worked out by the action '
            'from the step it records; name the change instead (add, '
            'remove, files, tree, inputs). Nothing was recorded.'
            % (plan, ', '.join(given), 'is' if len(given) == 1 else 'are'))
    if req['config'] not in configs.MODES:
        raise exceptions.CommandError(
            'Bad deploy request for plan %s: config must be one of %s. '
            'Nothing was recorded.' % (plan, ', '.join(configs.MODES)))
    created = req['plan_created']
    if created is not None and not (
            isinstance(created, dict) and isinstance(created.get('step'), str)
            and isinstance(created.get('rendered'), bool)):
        raise exceptions.CommandError(
            'Bad deploy request for plan %s: plan_created must be {step, '
            'rendered}. Nothing was recorded.' % plan)
    if req['validations'] is not None and not _hooks(req['validations']):
        raise exceptions.CommandError(
            'Bad deploy request for plan %s: validations must be at most %d '
            '{hook: pre, group, run, status} (texts of at most %d '
            'characters). Nothing was recorded.' % (plan, _MAX_HOOKS,
                                                    _MAX_TEXT))


def _hooks(found):
    """Whether ``found`` is what the step may record of the validations
    its client ran first (``workflows.validations.recorded``)."""
    return isinstance(found, list) and len(found) <= _MAX_HOOKS and all(
        isinstance(v, dict) and set(v) == {'hook', 'group', 'run', 'status'}
        and v['hook'] == 'pre' and all(
            isinstance(t, str) and 0 < len(t) <= _MAX_TEXT
            for t in v.values()) for v in found)


def _held(store, plan, change, path):
    """Whether the templates the step leaves the plan with hold ``path``."""
    if path in change.md5s:
        return True
    if path in change.deleted:
        return False
    return bool(change.view.md5(path) if change.view.known else (
        store.container.listing(plan)[1] or {}).get(path))


def last_stack(store, plan, state):
    """``{'fingerprint', 'updated'}`` of the plan's newest stack step when
    it succeeded (its final outcome object), else None: what an
    unchanged, untouched stack is recognised by."""
    step_id = state.get('stack')
    if not step_id:
        return None
    name = log.outcome_path(step_id)
    data = store.container.get(plan, name)
    if data is None:
        return None
    found = log.load_outcome(data, name, plan)
    if (found.get('outcome') or {}).get('status') != 'SUCCESS':
        return None
    stack = found.get('stack') or {}
    return {'fingerprint': stack.get('fingerprint'),
            'updated': stack.get('updated')}


def basis(req, state, environments):
    """A digest of what Heat's fields are made of: the tree (its MD5s),
    the environment list, the plan environment, the container's URL.
    A stack step records it: the same basis, the same fields."""
    text = json.dumps({'tree': state.get('tree'), 'release': state.get(
        'release'), 'environments': environments, 'plan_environment': state[
        'inputs'].get('plan_environment'), 'url': assembly.container_url(
        req)}, sort_keys=True)
    return hashlib.sha256(text.encode('utf-8')).hexdigest()


def _untouched(req, head, change, stack, environments):
    """The index's row of the plan's newest step when the step of ``req``
    changes nothing and leaves the stack as that step did: a stack step
    that succeeded on the same basis, the stack COMPLETE and not updated
    since. None otherwise (Heat's fields are then assembled and
    compared by their fingerprint, ``deploy.current_stack``)."""
    rows = head.rows or ()
    if not rows or req['force'] or req['plan_created'] or stack is None \
            or not change.empty or change.renders or change.templates \
            or change.release:
        return None
    row = rows[-1]
    found = row.get('stack') or {}
    if row['id'] != head.last_id or row['id'] != head.state.get('stack') \
            or row['outcome']['status'] != 'SUCCESS':
        return None
    if found.get('basis') != basis(req, head.state, environments) or \
            stack.stack_status not in status.DONE or \
            found.get('updated') != status.updated(stack):
        return None
    return row


def _unchanged(store, plan, req, step, head, stack, row, execution):
    """Record the step as done without Heat: the step, its final outcome
    and the index in one write (``writer.HistoryWriter.write_step``)."""
    found = dict(step['stack'], operation='NONE', id=stack.id,
                 status=stack.stack_status, updated=status.updated(stack),
                 fingerprint=row['stack'].get('fingerprint'))
    if execution:
        found['execution'] = execution
    step['stack'] = found
    step['outcome'].update(status='SUCCESS', stack_id=stack.id,
                           stack_status=stack.stack_status)
    summary = {'operation': 'NONE', 'stack_id': stack.id,
               'status': stack.stack_status, 'updated': found['updated'],
               'fingerprint': found['fingerprint']}
    if _configures(req, stack):
        # Heat has nothing to do; the servers are configured again.
        return _to_configure(store, plan, step, head, summary)
    outcome = log.dump({'outcome': dict(step['outcome']),
                        'stack': dict(found)})
    builder.write_step(store, plan, step, head, {
        log.outcome_path(step['id']): outcome})
    return answer(plan, step, summary)


def _configures(req, stack):
    return configs.configures(req['config'], stack.stack_status,
                              getattr(stack, 'outputs', None))


def _to_configure(store, plan, step, head, summary, written=False):
    """Record the step with Heat's part done (not final): the configure
    task after the follow task records its end."""
    step['outcome'].update(status='IN_PROGRESS', configuring=True)
    if not written:
        builder.write_step(store, plan, step, head)
    store.writer.write_outcome(plan, step['id'], dict(step['outcome']),
                               dict(step['stack']), final=False)
    return answer(plan, step, dict(summary, configure=True))


def _config_only(store, plan, req, step, head, stack, execution):
    """--config-download-only: the step records that Heat was not asked
    (its stack part: operation NONE, ``config_only``), then configures
    the stack as it is."""
    if stack is None or stack.stack_status not in status.DONE:
        raise exceptions.CommandError(
            'Stack %s is %s: --config-download-only configures the servers '
            'of a stack whose last operation completed. Nothing was '
            'recorded.' % (plan, stack.stack_status if stack else
                           'not there'))
    found = dict(step['stack'], operation='NONE', config_only=True,
                 id=stack.id, status=stack.stack_status,
                 updated=status.updated(stack))
    if execution:
        found['execution'] = execution
    step['stack'] = found
    step['outcome'].update(stack_id=stack.id,
                           stack_status=stack.stack_status)
    return _to_configure(store, plan, step, head, {
        'operation': 'NONE', 'stack_id': stack.id,
        'status': stack.stack_status, 'updated': found['updated']})


def _config_request(req):
    """What the step records of its configuration: only what differs
    from the default (a step of before config-download records none)."""
    fields = {k: req[k] for k in ('config', 'tags', 'skip_tags', 'limit',
                                  'forks', 'config_timeout', 'playbooks')}
    fields['mode'] = fields.pop('config')
    if fields['mode'] == 'auto' and not any(
            fields[k] for k in ('tags', 'skip_tags', 'limit', 'forks',
                                'playbooks')):
        return None
    return {k: v for k, v in fields.items() if v is not None}


def answer(plan, step, summary=None):
    """What the client (and a GUI) gets: the deploy task's summary of the
    stack operation, and the step as recorded."""
    out = dict(summary or {})
    out['step'] = {
        'id': step['id'], 'action': step['action'], 'time': step['time'],
        'outcome': dict(step['outcome']),
        'stack': dict(step.get('stack') or {}),
        'environments': list(step['state']['environments']),
        # {plan path: name as given} of its environments (Heat's list)
        'names': log.given_names(step['state'], log.heat_environments(
            dict(step, environments=step['state']['environments']))),
        'render': {k: v for k, v in (step.get('render') or {}).items()
                   if k in ('state', 'outputs', 'written', 'removed',
                            'info', 'execution')}}
    for key in ('lifecycle', 'plan_created', 'config', 'validations'):
        if step.get(key):
            out['step'][key] = step[key]
    out['plan'] = plan
    return out


def _ended(store, plan, step, outcome, found=None):
    """Write the step's outcome known here (final) into the step too."""
    step['outcome'] = dict(step['outcome'], **outcome)
    step['stack'].update(found or {})
    store.writer.write_outcome(plan, step['id'], step['outcome'], found or {})


def run(store, heat, req, cache, execution=None):
    """Record the step of ``req`` (``protocol.WORKFLOWS['deploy']``, both
    endpoints known), then create or update the stack; ``answer``.

    Refused, with nothing recorded, while the stack is busy, when the
    plan was never created, or when the request is bad.
    """
    plan = layout.check_name(req['container'])
    _check(plan, req)
    head = store.reader.head(plan)
    stack = status.recorded(heat, plan, head.rows, req['heat_url'])
    refused = preconditions.refusal(
        plan, req['action'], stack=stack is not None,
        idle=lambda: status.check_idle(stack, plan),
        created=head.state['created'])
    if refused is not None:
        raise refused
    change = builder.change(store, plan, req, head, deletions=True)
    lifecycle_env = preconditions.lifecycle_environment(
        req['action'], req['stage'],
        lambda path: _held(store, plan, change, path))
    refused = preconditions.refusal(
        plan, req['action'], stage=req['stage'],
        held=lifecycle_env is not None, renders=change.renders,
        rendering=req['render'])
    if refused is not None:
        raise refused
    details = {'lifecycle': lifecycle_env} if lifecycle_env else {}
    if req['plan_created']:
        details['plan_created'] = dict(req['plan_created'])
    if req['validations']:
        details['validations'] = [dict(v) for v in req['validations']]
    if req['config'] == 'only' and (not change.empty or change.renders or
                                    change.templates or change.release):
        raise exceptions.CommandError(
            'Plan %s: --config-download-only configures the stack as it '
            'is; this step changes the plan. Run it without the option, or '
            'without the changes. Nothing was recorded.' % plan)
    configured = _config_request(req)
    if configured:
        details['config'] = configured
    step = builder.step(change, req['action'], command=command_line.command(
        req, 'tripleoplan.deploy'), **details)
    builder.adopt(store, plan, step, head.state)
    if change.renders:
        builder.render_step(lifecycle.renderer(store, cache, execution),
                            plan, step, change.render_inputs, change.view)
    if step['outcome']['status'] != 'SUCCESS':
        return answer(plan, builder.write_step(store, plan, step, head))
    environments = layout.stack_environments(change.environments,
                                             lifecycle_env)
    step['stack'] = {'operation': 'UPDATE' if stack is not None
                     else 'CREATE', 'environments': environments,
                     'basis': basis(req, log.apply(head.state, step),
                                    environments)}
    if req['config'] == 'only':
        return _config_only(store, plan, req, step, head, stack, execution)
    row = None if lifecycle_env else _untouched(req, head, change, stack,
                                                environments)
    if row is not None:
        return _unchanged(store, plan, req, step, head, stack, row,
                          execution)
    step['outcome']['status'] = 'IN_PROGRESS'
    builder.write_step(store, plan, step, head)
    inner = {'container': plan, 'swift_url': req['swift_url'],
             'heat_url': req['heat_url'], 'environments': environments,
             'plan_environment': step['state']['inputs'].get(
                 'plan_environment'),
             'timeout': req['timeout'], 'validate': req['validate'],
             'tree': step['state'].get('tree'), 'step': step['id'],
             'unchanged': None if req['force'] or lifecycle_env else
             last_stack(store, plan, head.state)}
    found = {'execution': execution} if execution else {}
    try:
        # The stack found idle above (a moment ago, before the commit):
        # one that got busy since is refused by Heat, and so recorded.
        summary = deploy_mod.deploy(store, heat, inner, cache, stack)
    except exceptions.CommandError as exc:
        # Heat refused, or the plan is not ready: the step is on record,
        # its outcome too.
        _ended(store, plan, step, {'status': 'FAILED', 'reason': str(exc)},
               found)
        return answer(plan, step)
    found.update((k, summary.get(k)) for k in (
        'operation', 'fingerprint', 'swift_gets', 'files'))
    step['outcome']['stack_id'] = summary['stack_id']
    if summary['operation'] == 'NONE':
        found.update(id=summary['stack_id'], status=summary['status'],
                     updated=summary['updated'])
        if stack is not None and _configures(req, stack):
            step['stack'].update(found)
            step['outcome'].update(stack_id=summary['stack_id'],
                                   stack_status=summary['status'])
            return _to_configure(store, plan, step, head, summary,
                                 written=True)
        _ended(store, plan, step, {'status': 'SUCCESS',
                                   'stack_id': summary['stack_id'],
                                   'stack_status': summary['status']}, found)
    else:
        step['stack'].update(found)
    return answer(plan, step, summary)
