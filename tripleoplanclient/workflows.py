"""Mistral executions from the client: check, start, wait, report.

The business logic runs in Mistral (tripleoplanclient.mistral); here the
client only makes sure the workbook is there and of its protocol, starts an
execution and follows it to the end.
"""

import json
import os
import time

from tripleoplanclient import errors
from tripleoplanclient import mistral as protocol

WORKBOOK = 'tripleoplan.v1'
RENDER = WORKBOOK + '.render'
DEPLOY = WORKBOOK + '.deploy'
TAG = 'tripleoplan-protocol-%d' % protocol.PROTOCOL
WORKBOOK_FILE = os.path.join(os.path.dirname(protocol.__file__),
                             'workbook.yaml')
_INSTALL = 'run "openstack overcloud workbook install"'


class PlanRenderer(object):
    """What plan steps call to render: ``check()`` first, then the render.

    Mistral is reached only when a step does render: ``connect`` builds the
    Workflows on first use.
    """

    def __init__(self, connect, swift_url, timeout):
        self._connect = connect
        self._workflows = None
        self._swift_url = swift_url
        self._timeout = timeout

    def check(self):
        if self._workflows is None:
            self._workflows = self._connect()
        self._workflows.check()

    def __call__(self, plan, inputs):
        # The objects have landed by now: a Mistral that vanished since
        # check() becomes a failed render on record, not a lost step.
        try:
            self.check()
            return self._workflows.render(plan, self._swift_url, inputs,
                                          self._timeout)
        except errors.CommandError as exc:
            return {'state': 'ERROR', 'info': str(exc)}


def workbook_definition():
    with open(WORKBOOK_FILE) as f:
        return f.read()


def install_workbook(client, url):
    """Create or update our workbook, then ask the actions their protocol.

    Returns ``(workbook status, actions protocol)``; CommandError names what
    is missing or of another version.
    """
    from mistralclient.api import base as mistral_base

    definition = workbook_definition()
    try:
        current = client.workbooks.get(WORKBOOK)
    except mistral_base.APIException as exc:
        if getattr(exc, 'error_code', None) != 404:
            raise errors.CommandError('Mistral at %s: %s' % (url, exc))
        current = None
    except Exception as exc:
        if errors.unreachable(exc):
            raise errors.CommandError('Mistral is unreachable at %s (%s).'
                                      % (url, type(exc).__name__))
        raise
    if current is None:
        client.workbooks.create(definition)
        status = 'created'
    elif current.definition != definition:
        client.workbooks.update(definition)
        status = 'updated'
    else:
        status = 'unchanged'
    try:
        result = client.action_executions.create(
            'tripleoplan.version', {}, run_sync=True, save_result=False)
    except mistral_base.APIException as exc:
        raise errors.CommandError(
            'The workbook is %s, but Mistral at %s cannot run the tripleoplan '
            'actions (%s): install them in Mistral\'s environment (pip '
            'install "tripleoplanclient[mistral]") and restart Mistral.'
            % (status, url, exc))
    output = result.output
    output = json.loads(output) if isinstance(output, str) else output
    theirs = ((output or {}).get('result') or {}).get('protocol')
    if theirs != protocol.PROTOCOL:
        raise errors.CommandError(
            'The workbook is %s, but the tripleoplan actions in Mistral at %s '
            'speak protocol %s and this client %d: install the same '
            'tripleoplanclient version in Mistral\'s environment and restart '
            'Mistral.' % (status, url, theirs, protocol.PROTOCOL))
    return status, theirs


class Workflows(object):
    """Mistral, as the plan commands use it.

    :param client: a python-mistralclient v2 client
    :param url: Mistral's endpoint, for messages
    :param progress: callable taking one line for stderr
    """

    def __init__(self, client, url, progress, sleep=time.sleep,
                 clock=time.monotonic, interval=0.25, max_interval=2.0):
        self._client = client
        self._url = url
        self._progress = progress
        self._sleep = sleep
        self._clock = clock
        self._interval = interval
        self._max_interval = max_interval
        self._checked = False

    def _call(self, what, fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            if errors.unreachable(exc):
                raise errors.CommandError(
                    'Mistral is unreachable at %s (%s): start it or fix the '
                    'workflow endpoint; nothing was changed by %s.' % (
                        self._url, type(exc).__name__, what))
            raise

    def check(self):
        """Refuse early when Mistral is down or the workbook is not ours."""
        if self._checked:
            return
        from mistralclient.api import base as mistral_base
        try:
            workflow = self._call('this command', self._client.workflows.get,
                                  RENDER)
        except mistral_base.APIException as exc:
            if getattr(exc, 'error_code', None) == 404:
                raise errors.CommandError(
                    'Mistral at %s has no workflow %s: %s, then run this '
                    'command again.' % (self._url, RENDER, _INSTALL))
            raise errors.CommandError('Mistral at %s: %s' % (self._url, exc))
        tags = getattr(workflow, 'tags', None) or []
        if TAG not in tags:
            raise errors.CommandError(
                'The workbook %s in Mistral at %s is of another version (tags '
                '%s, this client needs %s): %s.' % (
                    WORKBOOK, self._url, ', '.join(tags) or 'none', TAG,
                    _INSTALL))
        self._checked = True

    def start(self, workflow, inputs):
        self.check()
        execution = self._call('this command', self._client.executions.create,
                               workflow, workflow_input=inputs)
        self._progress('Mistral execution %s of %s started' % (
            execution.id, workflow))
        return execution

    def wait(self, execution, timeout):
        """Follow ``execution`` until it ends or ``timeout`` seconds pass."""
        deadline = self._clock() + timeout
        state = execution.state
        interval = self._interval
        while execution.state in ('IDLE', 'RUNNING', 'PAUSED'):
            if self._clock() >= deadline:
                break
            # Quick answers for quick executions, few requests for long ones.
            self._sleep(min(interval, max(deadline - self._clock(), 0)))
            interval = min(interval * 2, self._max_interval)
            execution = self._call('waiting', self._client.executions.get,
                                   execution.id)
            if execution.state != state:
                state = execution.state
                self._progress('Mistral execution %s: %s'
                               % (execution.id, state))
        return execution

    def render(self, plan, swift_url, inputs, timeout):
        """Render ``plan`` in Mistral; returns the step's render entry.

        ``inputs``: the plan's ``roles_data`` / ``network_data`` paths.

        ``state`` is SUCCESS, ERROR, or TIMEOUT (the execution goes on);
        ``info`` carries Mistral's state_info when it is not SUCCESS.
        """
        started = self._clock()
        execution = self.wait(self.start(RENDER, {
            'container': plan, 'swift_url': swift_url,
            'roles_data': inputs.get('roles_data'),
            'network_data': inputs.get('network_data'),
            'protocol': protocol.PROTOCOL}), timeout)
        entry = {'execution': execution.id, 'state': execution.state}
        if execution.state in ('IDLE', 'RUNNING', 'PAUSED'):
            entry.update(state='TIMEOUT', info=(
                'still %s after %d s; see "openstack workflow execution show '
                '%s"' % (execution.state, timeout, execution.id)))
        elif execution.state != 'SUCCESS':
            entry['info'] = execution.state_info
        else:
            output = execution.output
            output = json.loads(output) if isinstance(output, str) else (
                output or {})
            summary = output.get('render') or {}
            entry.update(outputs=summary.get('outputs', 0),
                         written=len(summary.get('written', [])),
                         removed=len(summary.get('removed', [])))
            self._progress(
                'Rendered %d templates in %.1f s: %d written, %d stale '
                'removed' % (entry['outputs'], self._clock() - started,
                             entry['written'], entry['removed']))
        return entry

    def deploy(self, inputs, timeout):
        """Run the deploy workflow: ``(its summary, execution id)``.

        The workflow ends once Heat accepted (or refused) the operation;
        a refusal is a CommandError with Heat's reason.
        """
        execution = self.wait(self.start(DEPLOY, dict(
            inputs, protocol=protocol.PROTOCOL)), timeout)
        if execution.state in ('IDLE', 'RUNNING', 'PAUSED'):
            raise errors.CommandError(
                'The deploy workflow is still %s after %d s; see "openstack '
                'workflow execution show %s".'
                % (execution.state, timeout, execution.id))
        if execution.state != 'SUCCESS':
            raise errors.CommandError(_reason(execution.state_info))
        output = execution.output
        output = json.loads(output) if isinstance(output, str) else (
            output or {})
        return output.get('deploy') or {}, execution.id


def _reason(state_info):
    """The action's own message out of Mistral's failure report."""
    text = (state_info or 'no reason given').strip()
    marker = text.rfind(']: ')     # "... [action_ex_id=..., idx=0]: <why>"
    if marker >= 0:
        text = text[marker + 3:].strip()
    return text
