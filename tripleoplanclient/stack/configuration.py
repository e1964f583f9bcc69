"""The configuration of a stack step, followed by the client: Ansible's
task results per host, as the deploy workflow's configure task writes
them into the plan (``record.configs``), and the step's end it records.

Each round lists the step's progress objects after the last one read
(one request), reads each new one once, and looks for the final outcome
(one request): nothing is printed twice, and the client may stop at any
time (the record tells the end whether it waits or not).
"""

import time

from tripleoplanclient.common import exceptions
from tripleoplanclient.common import poll
from tripleoplanclient.record import configs
from tripleoplanclient.record import log

# the longest pause between two looks
MAX_INTERVAL = 5.0


def line(event):
    """One task result as the client prints it."""
    text = 'Ansible: %s | %s | %s' % (
        event.get('host') or '-', event.get('task') or '-',
        (event.get('status') or '-').upper())
    if event.get('ignored'):
        # the play goes on: the task said it may fail
        return text + ' (ignored)'
    if event.get('status') in ('failed', 'unreachable') and \
            event.get('message'):
        text += ': %s' % event['message']
    return text


class ConfigFollower:
    """Follows a step's configuration in the plan's container.

    :param store: record.plan_store.PlanStore
    :param progress: line -> stderr
    """

    def __init__(self, store, progress, sleep=time.sleep,
                 clock=time.monotonic, interval=1.0,
                 max_interval=MAX_INTERVAL):
        self._store = store
        self._progress = progress
        self._sleep = sleep
        self._clock = clock
        self._interval = interval
        self._max_interval = max_interval

    def follow(self, plan, step_id, timeout):
        """The step's final outcome object (``{outcome, stack, config}``)
        once recorded; None when ``timeout`` seconds passed first (the
        configuration goes on in Mistral)."""
        container = self._store.container
        prefix = configs.progress_prefix(step_id)
        marker = ''
        name = log.outcome_path(step_id)
        rounds = poll.Poll(timeout, self._interval, self._max_interval,
                           sleep=self._sleep, clock=self._clock)
        for _ in rounds:
            _, found = container.listing(plan, prefix=prefix, marker=marker)
            new = sorted(n for n in found or () if n > marker and
                         configs.progress_seq(n, step_id) is not None)
            for obj in new:
                for event in configs.load_events(container.get(plan, obj)
                                                 or b''):
                    self._progress(line(event))
                marker = obj
            data = container.get(plan, name)
            if data is not None:
                return log.load_outcome(data, name, plan)
            if new:
                rounds.busy()
            else:
                rounds.quiet()
        return None


def follow_step(services, options, plan, step):
    """Follow the configuration of ``step`` (its Heat part recorded, not
    final) to the end the workflow records; the step's outcome filled
    from it. TIMEOUT when the client's wait ended first (it goes on)."""
    follower = ConfigFollower(services.store, services.progress,
                              **(services.config_waiting or {}))
    services.progress('Stack %s: configuring the servers (step %s)...'
                      % (plan, step['id']))
    try:
        found = follower.follow(plan, step['id'],
                                options.config_timeout * 60 + 60)
    except exceptions.CommandError as exc:
        step['outcome'].update(status='UNKNOWN', reason=str(exc))
        return step
    if found is None:
        step['outcome'].update(
            status='TIMEOUT', reason='Timed out after %d s '
            '(--config-download-timeout of %g minutes): the configuration '
            'goes on in Mistral' % (options.config_timeout * 60 + 60,
                                    options.config_timeout))
        return step
    step['outcome'] = dict(found.get('outcome') or step['outcome'])
    if found.get('config'):
        step['config'] = dict(step.get('config') or {}, **found['config'])
    return step


def problem_lines(step):
    """The configuration's failures, for stderr."""
    config = step.get('config') or {}
    lines = []
    for failure in (config.get('failures') or ())[:20]:
        lines.append('  failed on %s: %s: %s' % (
            failure.get('host'), failure.get('task'), failure.get('message')))
    for host, counts in sorted((config.get('hosts') or {}).items()):
        if (counts or {}).get('unreachable'):
            lines.append('  unreachable: %s' % host)
    return lines
