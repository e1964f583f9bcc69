"""A stack step run: what ``operations.prepare`` worked out, written,
handed to the deploy workflow in Mistral (which records the step before
Heat is asked, ``mistral.stack_step``), followed to its end, and the
outcome the command saw recorded (whoever sees the end writes it). When
the servers are configured after Heat (``record.configs``), Heat's end is
recorded not final and the command follows the configuration
(``configuration``) to the end the workflow records.
"""

from tripleoplanclient.common import exceptions
from tripleoplanclient.common import status
from tripleoplanclient.record import configs
from tripleoplanclient.record import log
from tripleoplanclient.record import steps
from tripleoplanclient.stack import configuration
from tripleoplanclient.stack import preconditions
from tripleoplanclient.workflows import config

# Seconds to keep following after --timeout: Heat's own stack timeout ends
# the stack at the same moment, and its FAILED event is worth waiting for.
_GRACE = 10
# Seconds to wait at least for the deploy action to record the step (a
# render included) and have Heat accept the operation.
_ACCEPT = 600


def execute(services, options, prepared, recorded=None):
    """Write what the step changes, have the deploy workflow record the
    step and start the stack operation, follow it, record the outcome
    seen. Returns the step (as the deploy action answered it).
    ``recorded``: told when this run put something on record, before it
    goes on: None for the plan create step it began with, then the stack
    step.

    The deploy action records the step (IN_PROGRESS) before Heat is asked
    for anything; however the command ends, its outcome says what is
    known, and the workflow writes the end when nobody else saw it.
    """
    from tripleoplanclient.workflows import executions
    from tripleoplanclient.workflows import plans

    recorded = recorded or (lambda step: None)
    store, plan = services.store, prepared.plan
    change, details = prepared.change, {}
    if prepared.creates_plan:
        created = steps.create(store, plan, prepared.files, services.recorder,
                               render=services.renderer is not None)
        recorded(None)
        error = steps.failed(plan, created)
        if error is not None:
            raise error
        # All of it is stored now: the deploy step itself changes nothing.
        change = steps.Change(steps.head_after(created).state,
                              prepared.files.__class__(
                                  prepared.files.templates), prepared.remove)
        # This command began by creating the plan (and rendering it).
        details['plan_created'] = {
            'step': created['id'],
            'rendered': (created.get('render') or {}).get('state')
            == 'SUCCESS'}
    elif prepared.with_templates:
        details['templates'] = prepared.files.templates
    if options.validations:
        details['validations'] = options.validations
    refused = preconditions.refusal(
        plan, prepared.action, renders=change.renders,
        rendering=services.renderer is not None)
    if refused is not None:
        raise refused
    if options.config == 'only' and not (change.empty and not
                                         change.release):
        raise exceptions.CommandError(
            'Plan %s: --config-download-only configures the stack as it '
            'is, and this command changes the plan. Run it without the '
            'option, or without the changes. Nothing was changed.' % plan)
    services.workflows.check()
    change.write(store, plan)
    request = plans.deploy_request(
        plan, services.swift_url, services.heat_url, change,
        action=prepared.action, stage=prepared.stage,
        render=services.renderer is not None, force=options.force,
        timeout=int(max(1, round(options.timeout))),
        validate=options.validate, command=services.recorder.command,
        **dict(details, **config.deploy_fields(
            options.config, options.tags, options.skip_tags, options.limit,
            options.forks, int(max(1, round(options.config_timeout))))))
    stack = {}
    try:
        result, execution = services.workflows.deploy(
            request, max(options.timeout * 60, _ACCEPT),
            started=lambda e: stack.update(execution=e))
    except executions.Unobserved as exc:
        # Still Unobserved: the step may be on record, the stack started.
        raise executions.Unobserved(
            '%s Its step is recorded by the deploy workflow in Mistral, '
            'with its outcome once the stack ends: see "openstack overcloud '
            'plan show-history %s".' % (exc, plan))
    for warning in result.get('warnings') or ():   # the pre-deploy check's
        services.progress('Warning: %s' % warning)
    answered = result.get('step') or {}
    step = dict(answered, state={'environments': answered.get(
        'environments', [])})
    recorded(step)
    if result.get('configure'):
        # Heat not asked (nothing changed, or --config-download-only):
        # the servers are configured at once.
        services.progress('Stack %s: Heat not asked (%s).' % (
            plan, 'configuration only' if options.config == 'only' else
            'nothing changed since its last stack step'))
        return configuration.follow_step(services, options, plan, step) \
            if options.wait else step
    if step['outcome']['status'] != 'IN_PROGRESS':
        if result.get('operation') == 'NONE':
            services.progress(
                'Stack %s is up to date with the plan (nothing changed '
                'since its last stack step): Heat was not called.' % plan)
        return step
    # What assembling cost: Swift GETs (0 when the action's cache held
    # every object) and the files Heat got.
    stack.update(id=result['stack_id'], operation=result['operation'],
                 fingerprint=result['fingerprint'],
                 swift_gets=result.get('swift_gets'),
                 files=result.get('files'))
    services.progress('Stack %s: %s started (%s).' % (
        plan, result['operation'], result['stack_id']))
    try:
        # An update's events after the newest one before it (the deploy
        # action took it): those of earlier operations are not this one's.
        final = _follow(services, options, plan, step, stack,
                        result.get('marker'))
    except BaseException as exc:
        # Ctrl-C, or anything unforeseen: the record still tells it.
        step['outcome'].update(
            status='UNKNOWN', reason='the command ended early (%s)' % (
                type(exc).__name__ if not str(exc) else str(exc)))
        _record_outcome(services, plan, step, stack, quiet=True)
        raise
    if step['outcome']['status'] == 'SUCCESS' and configs.configures(
            options.config, step['outcome'].get('stack_status'),
            getattr(final, 'outputs', None)):
        # Heat's end, not the step's: the deploy workflow configures the
        # servers and records the end (whether this command waits or not).
        step['outcome'].update(status='IN_PROGRESS', configuring=True)
        _record_outcome(services, plan, step, stack)
        return configuration.follow_step(services, options, plan, step)
    _record_outcome(services, plan, step, stack)
    return step


def _record_outcome(services, plan, step, stack, quiet=False):
    step['stack'].update(stack)
    try:
        services.store.writer.write_outcome(
            plan, step['id'], step['outcome'], stack,
            final=step['outcome']['status'] in log.FINAL)
    except Exception as exc:
        if not quiet:
            raise
        services.progress('Warning: the outcome of step %s was not '
                          'recorded (%s).' % (step['id'], exc))


def _follow(services, options, plan, step, stack, marker):
    """Follow the stack the deploy action started to its end (unless
    --no-wait); fills the outcome and ``stack`` (what the outcome object
    keeps about it). The stack as it ended (None: not seen)."""
    operation, stack_id = stack['operation'], stack['id']
    if not options.wait:
        step['outcome'].update(stack_status='%s_IN_PROGRESS' % operation)
        return None
    try:
        state, reason = services.follower.follow(
            plan, stack_id, operation, options.timeout * 60 + _GRACE, marker)
        final = services.follower.stack(plan, stack_id)
    except exceptions.CommandError as exc:
        # The operation goes on in Heat: the record must still say so.
        step['outcome'].update(status='UNKNOWN', reason=str(exc))
        return None
    stack['updated'] = status.updated(final)
    if state == 'TIMEOUT':
        step['outcome'].update(
            status='TIMEOUT', stack_status=final.stack_status,
            reason='Timed out after %d s (--timeout of %g minutes): %s goes '
                   'on in Heat' % (round(options.timeout * 60 + _GRACE),
                                   options.timeout, operation))
        return final
    state, reason = final.stack_status, final.stack_status_reason or reason
    step['outcome'].update(stack_status=state, reason=reason)
    if state.endswith('_COMPLETE'):
        step['outcome']['status'] = 'SUCCESS'
    else:
        failed = services.follower.failures(plan, stack_id)
        step['outcome'].update(status='FAILED', failed_resources=[
            '%s: %s' % f for f in failed])
    return final


def problem(plan, step):
    """What went wrong, for stderr: None when the step succeeded or goes
    on as asked (--no-wait)."""
    outcome = step['outcome']
    if outcome['status'] in ('SUCCESS', 'IN_PROGRESS'):
        return None
    lines = ['Stack %s: step %s recorded as %s. %s' % (
        plan, step['id'], outcome['status'], outcome.get('reason') or '')]
    for failure in outcome.get('failed_resources', []):
        lines.append('  failed: %s' % failure)
    lines += configuration.problem_lines(step)
    if outcome['status'] == 'FAILED':
        lines.append('Fix the cause and run the command again.')
    return '\n'.join(lines)
