"""deploy, update, upgrade: plan, at most one render, stack, record.

Each command is one recorded step. Its order:

1. refuse early, before anything is written: no Heat, stack busy, unknown
   stack (update/upgrade), nothing to do;
2. write only the plan objects that changed (one pass), render only when a
   rendering input changed;
3. the deploy workflow in Mistral assembles the stack from the plan and
   asks Heat to create or update it;
4. follow the stack's events to the end (unless --no-wait);
5. record the step with its outcome (stack id, status, reason).

Only a step that succeeded changes the plan's current environment list, so
``update`` always starts from what last worked.
"""

from tripleoplanclient import errors
from tripleoplanclient import plans
from tripleoplanclient import record as record_mod

LIFECYCLE_DIR = 'environments/lifecycle/'
STAGES = ('prepare', 'converge')
_BUSY = '_IN_PROGRESS'
# Seconds to keep following after --timeout: Heat's own stack timeout ends
# the stack at the same moment, and its FAILED event is worth waiting for.
_GRACE = 10


def lifecycle_path(action, stage):
    return '%s%s-%s.yaml' % (LIFECYCLE_DIR, action, stage)


class Services(object):
    """What the flows talk to, built by the command.

    :param store: plan_store.PlanStore
    :param heat: heatclient v1 client (None: no Heat configured)
    :param workflows: callable returning workflows.Workflows (lazy)
    :param renderer: workflows.PlanRenderer or None (--no-render)
    :param follower: stack_events.StackFollower
    :param progress: line -> stderr
    :param confirm: question -> bool (the command decides about -y)
    """

    def __init__(self, store, heat, heat_url, swift_url, workflows, renderer,
                 follower, progress, confirm):
        self.store = store
        self.heat = heat
        self.heat_url = heat_url
        self.swift_url = swift_url
        self.workflows = workflows
        self.renderer = renderer
        self.follower = follower
        self.progress = progress
        self.confirm = confirm


class Options(object):
    def __init__(self, timeout=240, wait=True, dry_run=False, force=False):
        self.timeout = timeout          # minutes, for Heat and for waiting
        self.wait = wait
        self.dry_run = dry_run
        self.force = force


def current_stack(services, plan):
    """The stack of ``plan`` or None; refuses when Heat is absent or busy."""
    if services.heat is None:
        raise errors.CommandError(
            'No orchestration (Heat) endpoint: add one to the catalog or set '
            'orchestration_endpoint_override in clouds.yaml. Nothing was '
            'changed.')
    from heatclient import exc as heat_exc
    try:
        stack = services.heat.stacks.get(plan)
    except heat_exc.HTTPNotFound:
        return None
    except Exception as exc:
        raise errors.CommandError(
            'Cannot reach Heat at %s to look up stack %s (%s). Nothing was '
            'changed.' % (services.heat_url, plan,
                          getattr(exc, 'message', None) or
                          type(exc).__name__))
    if stack.stack_status.endswith(_BUSY):
        raise errors.CommandError(
            'Stack %s is %s: wait until it ends (openstack stack show %s), '
            'then run the command again. Nothing was changed.'
            % (plan, stack.stack_status, plan))
    return stack


def describe(change, stack, lifecycle=None):
    """The plan of a step, for --dry-run and for the question before it."""
    return {
        'operation': 'UPDATE' if stack is not None else 'CREATE',
        'objects_added': change.added if change else [],
        'objects_changed': change.changed if change else [],
        'environments': (change.environments if change else [])
        + ([lifecycle] if lifecycle else []),
        'renders': bool(change and change.renders),
    }


def differences(record, change, lifecycle):
    """Lines that tell what differs from the last successful step."""
    before, after = record['environments'], change.environments
    lines = ['  - %s' % e for e in before if e not in after]
    lines += ['  + %s' % e for e in after if e not in before]
    if [e for e in before if e in after] != [e for e in after
                                             if e in before]:
        lines.append('  (order changed)')
    lines += ['  ~ %s (content changed)' % p for p in change.changed
              if p in record['files']]
    if lifecycle:
        lines.append('  + %s (this step only)' % lifecycle)
    return lines


def run(services, options, action, plan, files, remove=(), stage=None,
        with_templates=False, record=None):
    """One deploy / update / upgrade step; returns ``(record, step)``.

    ``files``: environments.PlanFiles of what the user named, the whole
    templates tree too when ``with_templates`` (deploy --templates).
    ``record``: the plan's record when the caller read it already. With
    ``options.dry_run`` returns ``(None, description)``, writing nothing.
    """
    from tripleoplanclient import passwords

    store = services.store
    created = None
    stack = current_stack(services, plan)
    if action != 'deploy' and stack is None:
        raise errors.CommandError(
            'Stack %s does not exist: run "openstack overcloud deploy --stack '
            '%s" first. Nothing was changed.' % (plan, plan))
    headers, listing = store.listing(plan)
    if listing is None or not store.is_plan(headers) or \
            record_mod.PATH not in listing:
        record = None
    elif record is None:
        record = store.read_record(plan)
    if record is None or not record_mod.succeeded(record):
        if action != 'deploy' or not with_templates:
            raise errors.CommandError(
                'Plan %s does not exist: run "openstack overcloud deploy '
                '--stack %s --templates <dir> ..." first. Nothing was '
                'changed.' % (plan, plan))
        if options.dry_run:
            return None, dict(describe(None, stack), plan_created=True,
                              objects_added=sorted(files.objects),
                              environments=files.environments,
                              renders=services.renderer is not None)
        services.workflows().check()
        record, created = plans.create(store, plan, files, services.renderer)
        listing = None
        files = files.__class__(files.templates)    # all of it is stored
        with_templates = False
    elif with_templates:
        # The stored plan-environment.yaml holds the generated passwords.
        files.objects.pop(passwords.PLAN_ENVIRONMENT, None)
    lifecycle = None
    if stage is not None:
        lifecycle = lifecycle_path(action, stage)
        # update/upgrade never create the plan: the listing is current.
        if lifecycle not in listing:
            if stage == 'prepare':
                raise errors.CommandError(
                    'The templates of plan %s have no %s: they do not '
                    'support "%s --stage prepare". Nothing was changed.'
                    % (plan, lifecycle, action))
            lifecycle = None    # THT 18: converge is the plain list
    # Templates are compared with the listing, user files with the record.
    change = plans.Change(record, files, remove,
                          listing if with_templates else None)
    if options.dry_run:
        return None, describe(change, stack, lifecycle)
    if action != 'deploy':
        services.progress('%s of stack %s, against the last successful step '
                          '(%d):' % (action.capitalize(), plan,
                                     record_mod.last_success_id(record)))
        for line in differences(record, change, lifecycle) or [
                '  (the same environment list)']:
            services.progress(line)
        if not services.confirm('Run the %s of stack %s?' % (action, plan)):
            raise errors.CommandError('Not confirmed: nothing was changed.')
    if change.renders:
        if services.renderer is None:
            raise errors.CommandError(
                'Plan %s needs a render before its stack can be deployed; '
                'run the command without --no-render. Nothing was changed.'
                % plan)
        services.renderer.check()
    services.workflows().check()
    change.write(store, plan)
    details = {'lifecycle': lifecycle} if lifecycle else {}
    if created is not None:
        # This command began by creating the plan (and rendering it).
        details['plan_created'] = {
            'step': created['id'],
            'rendered': (created.get('render') or {}).get('state')
            == 'SUCCESS'}
    if with_templates and files.templates != record.get('templates'):
        details['templates'] = files.templates
    step = change.step(action, **details)
    if change.renders:
        plans.render_step(services.renderer, plan, step, change.render_inputs)
    if step['outcome']['status'] == 'SUCCESS':
        _stack_operation(services, options, plan, record, step, lifecycle,
                         stack)
    record = store.commit(plan, record, step, change.rebase)
    return record, step


def _stack_operation(services, options, plan, record, step, lifecycle,
                     existing):
    """Run the deploy workflow and follow the stack; fills the step.

    ``existing``: what current_stack() found when the command began (the
    action checks again that it is not busy).
    """
    marker = None
    unchanged = None if options.force or lifecycle else \
        record_mod.last_stack(record)
    if existing is not None and options.wait:
        marker = services.follower.last_event(plan, existing.id)
    environments = record_mod.heat_environments(step)
    inputs = {
        'container': plan, 'environments': environments,
        'swift_url': services.swift_url, 'heat_url': services.heat_url,
        'plan_environment': record['inputs'].get('plan_environment'),
        'timeout': int(max(1, round(options.timeout))),
        'unchanged': unchanged,
    }
    try:
        result, execution = services.workflows().deploy(
            inputs, options.timeout * 60)
    except errors.CommandError as exc:
        step['outcome'].update(status='FAILED', reason=str(exc))
        return
    step['execution'] = execution
    # What assembling cost: Swift GETs (0 when the action's cache held
    # every object) and the files Heat got.
    stack = {'id': result['stack_id'], 'operation': result['operation'],
             'fingerprint': result['fingerprint'],
             'swift_gets': result.get('swift_gets'),
             'files': result.get('files')}
    step['stack'] = stack
    step['outcome']['stack_id'] = result['stack_id']
    if result['operation'] == 'NONE':
        services.progress('Stack %s is up to date with the plan (nothing '
                          'changed since step %s): Heat was not called.'
                          % (plan, record_mod.last_id(record)))
        stack.update(status=result['status'], updated=result['updated'])
        step['outcome']['stack_status'] = result['status']
        return
    services.progress('Stack %s: %s started (%s).' % (
        plan, result['operation'], result['stack_id']))
    if not options.wait:
        step['outcome'].update(status='IN_PROGRESS',
                               stack_status='%s_IN_PROGRESS'
                               % result['operation'])
        return
    try:
        status, reason = services.follower.follow(
            plan, result['stack_id'], result['operation'],
            options.timeout * 60 + _GRACE, marker)
        final = services.follower.stack(plan, result['stack_id'])
    except errors.CommandError as exc:
        # The operation goes on in Heat: the record must still say so.
        step['outcome'].update(status='UNKNOWN', reason=str(exc))
        return
    stack['updated'] = getattr(final, 'updated_time', None) or \
        final.creation_time
    if status == 'TIMEOUT':
        step['outcome'].update(
            status='TIMEOUT', stack_status=final.stack_status,
            reason='%s not finished after the --timeout of %s minutes; it '
                   'goes on in Heat' % (result['operation'], options.timeout))
        return
    status, reason = final.stack_status, final.stack_status_reason or reason
    step['outcome'].update(stack_status=status, reason=reason)
    if not status.endswith('_COMPLETE'):
        failed = services.follower.failures(plan, result['stack_id'])
        step['outcome'].update(status='FAILED', failed_resources=[
            '%s: %s' % f for f in failed])


def raise_if_failed(plan, step):
    outcome = step['outcome']
    if outcome['status'] == 'SUCCESS':
        return
    lines = ['Stack %s: step %s recorded as %s. %s' % (
        plan, step['id'], outcome['status'], outcome.get('reason') or '')]
    for failure in outcome.get('failed_resources', []):
        lines.append('  failed: %s' % failure)
    if outcome['status'] == 'IN_PROGRESS':
        return
    lines.append('Fix the cause and run the command again.')
    raise errors.CommandError('\n'.join(lines))
