"""The validations from the client: every validation request is built
here (``protocol.request``). Each operation is our workflow of the same
name (``protocol``); the CLI runs the quick ones as their action on its
own (one synchronous request, as the library's commands do) and a run as
a workflow execution, whose id is the run's.
"""

import time

from tripleoplanclient.common import exceptions
from tripleoplanclient import protocol
from tripleoplanclient.workflows import executions

# what the client waits for Mistral beyond the run's own time budget
MARGIN = 60


class NotPassed(exceptions.CommandError):
    """A pre hook's refusal; ``found``: its run, as a step records it."""

    def __init__(self, message, found):
        super().__init__(message)
        self.found = found


def ask(workflows, name, timeout, **fields):
    """The answer of the quick operation ``name`` (``validation_list``,
    ``_install``, ``_stop``, ``_results``)."""
    result = workflows.run_action(name, protocol.request(name, **fields),
                                  timeout)
    if not isinstance(result, dict):
        raise exceptions.CommandError(
            'The %s action in Mistral answered %r: install the same '
            'tripleoplanclient version in Mistral\'s environment.'
            % (name, result))
    return result


def start(workflows, **fields):
    """Start a run: its workflow execution (the run's id is its id)."""
    return workflows.start(protocol.workflow('validation_run'),
                           protocol.request('validation_run', **fields))


def wait(workflows, execution, timeout, look=None, every=3.0,
         clock=time.monotonic):
    """The run's summary once it ended; None when Mistral still runs it
    after ``timeout`` seconds. CommandError with the action's reason when
    it failed before running anything (an unknown validation...).
    ``look()``: called every ``every`` seconds while the run goes on (the
    command reads the run's record to tell each validation as it ends)."""
    deadline = clock() + timeout
    while True:
        left = deadline - clock()
        task = workflows.wait_task(execution, 'validation_run', max(
            0.0, min(left, every) if look is not None else left))
        if task is not None or clock() >= deadline:
            break
        look()
    if task is None:
        return None
    if task.state != 'SUCCESS':
        raise exceptions.CommandError(executions.reason(task.state_info))
    return executions.published(task).get('validation_run') or {}


def hook(workflows, hook, group, plan, swift_url, heat_url, progress,
         timeout=600, started=None):
    """A life cycle's hook (``--run-validations``: ``pre``, before the
    step; ``--run-post-validations``: ``post``, after it succeeded): run
    ``group``, with the plan's own as it stands when ``plan`` exists
    (without it, those that need a plan are skipped), to its end.

    The hook's record ``{hook, group, run, status}`` (status PASSED,
    FAILED, or TIMEOUT when it did not end in time; ``failures``: each
    validation that did not pass, named with its host, task and
    message), or None when the group has nothing to run. ``started``:
    told the record (status RUNNING) once the run has its id.
    """
    listed = None
    if plan is not None:
        try:
            listed = ask(workflows, 'validation_list', 120, plan=plan,
                         group=group, swift_url=swift_url)
        except exceptions.CommandError as exc:
            if 'Plan %s does not exist' % plan not in str(exc):
                raise
            plan = None
    if listed is None:
        listed = ask(workflows, 'validation_list', 120, group=group,
                     swift_url=swift_url)
    names = [v['id'] for v in listed['validations']
             if plan is not None or not v.get('requires')]
    if not names:
        progress('No %s validation to run.' % group)
        return None
    progress('Running the %s validations: %s' % (group, ', '.join(names)))
    execution = start(workflows, names=names, plan=plan, timeout=timeout,
                      swift_url=swift_url, heat_url=heat_url)
    found = {'hook': hook, 'group': group, 'run': execution.id,
             'status': 'RUNNING'}
    if started is not None:
        started(dict(found))
    run = wait(workflows, execution, timeout + MARGIN)
    if run is None:
        progress('The %s validations (run %s) did not end within %d s.'
                 % (group, execution.id, timeout))
        return dict(found, status='TIMEOUT', failures=[])
    failures = ['%s %s%s' % (v['id'], v['status'], ': %s' % v['message']
                             if v.get('message') else '')
                for v in run.get('validations') or []
                if v['status'] not in ('PASSED', 'SKIPPED')]
    found.update(status='FAILED' if failures else 'PASSED',
                 failures=failures)
    if not failures:
        progress('The %s validations passed (run %s).'
                 % (group, execution.id))
    return found


def before(workflows, doing, group, plan, swift_url, heat_url, progress,
           timeout=600):
    """``--run-validations``: the ``pre`` hook of a step (``doing``:
    what it does, "deploying"); CommandError (a refusal: nothing was
    written yet, ``NotPassed``) naming each validation that did not pass.
    Its record without ``failures`` (None: nothing to run)."""
    found = hook(workflows, 'pre', group, plan, swift_url, heat_url,
                 progress, timeout)
    if found is None:
        return None
    if found['status'] == 'TIMEOUT':
        raise NotPassed(
            'Not %s: the %s validations (run %s) did not end within %d s. '
            'Nothing was changed.' % (doing, group, found['run'], timeout),
            recorded(found))
    if found['status'] != 'PASSED':
        raise NotPassed(
            'Not %s: %d %s validation(s) did not pass (run %s): %s. '
            'Nothing was changed; fix them, or run the command without '
            '--run-validations.' % (doing, len(found['failures']), group,
                                    found['run'],
                                    '; '.join(found['failures'])),
            recorded(found))
    return recorded(found)


def recorded(found):
    """What a step's record keeps of a hook: its run, not its text."""
    return {k: found[k] for k in ('hook', 'group', 'run', 'status')}


def sealed(workflows, extra_vars, timeout=120):
    """``(plain, sealed)``: ``extra_vars`` without the secret ones
    (``masking.secret_key``), and those sealed by Mistral for the caller
    in an unsaved run of ``validation_seal`` (None without any): a run is
    a workflow, whose input Mistral keeps."""
    from tripleoplanclient.common import masking
    secret = {k: v for k, v in (extra_vars or {}).items()
              if masking.secret_key(k)}
    if not secret:
        return extra_vars, None
    plain = {k: v for k, v in extra_vars.items() if k not in secret}
    return plain or None, ask(workflows, 'validation_seal', timeout,
                              extra_vars=secret)['sealed']
