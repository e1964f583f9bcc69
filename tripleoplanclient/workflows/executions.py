"""Mistral executions from the client: check, start, wait, report.

The business logic runs in Mistral (``tripleoplanclient.mistral``); here the
client only makes sure the workbook is there and of its protocol, starts an
execution with a request its family's module built (``plans``, ``nodes``,
``validations``) and follows it to the end.
"""

import json
import sys
import threading
import time

from tripleoplanclient.common import exceptions
from tripleoplanclient.common import poll
from tripleoplanclient import protocol
from tripleoplanclient.workflows import titles

RENDER = protocol.workflow('render')
DEPLOY = protocol.workflow('deploy')
# Mistral's default [engine] execution_field_size_limit_kb: the most an
# action's input may weigh, even when nothing is saved (see preview).
FIELD_LIMIT_KB = 1024
_RUNNING = ('IDLE', 'RUNNING', 'PAUSED')
_INSTALL = 'run "openstack overcloud workbook install"'
# Mistral's API past rpc_response_timeout (500): "This rpc call
# "start_action" took longer than configured 60 seconds"
_GAVE_UP = 'took longer than configured'


class _Ended:
    """What a task that never ran reports: its execution's end."""

    def __init__(self, state, state_info):
        self.state = 'ERROR' if state == 'SUCCESS' else state
        self.state_info = state_info or 'the deploy task never ran'


def published(task):
    """What a task published, parsed."""
    found = task.published
    return json.loads(found) if isinstance(found, str) else (found or {})


def output(execution):
    """An execution's output, parsed."""
    output = execution.output
    return json.loads(output) if isinstance(output, str) else (output or {})


class Workflows:
    """Mistral, as the plan and stack steps use it.

    :param client: a python-mistralclient v2 client, or None when no
        Mistral is configured (the first use says so)
    :param url: Mistral's endpoint, for messages
    :param progress: callable taking one line for stderr
    """

    def __init__(self, client, url, progress, sleep=time.sleep,
                 clock=time.monotonic, interval=0.25, max_interval=2.0):
        self._client = client
        self._url = url
        self.progress = progress
        self._sleep = sleep
        self._clock = clock
        self._interval = interval
        self._max_interval = max_interval
        self._checked = False
        # execution id -> (what it does, in the operator's words; when)
        self._begun = {}

    def _call(self, what, fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            if exceptions.unreachable(exc):
                raise exceptions.CommandError(
                    'Mistral is unreachable at %s (%s): start it or fix the '
                    'workflow endpoint; nothing was changed by %s.' % (
                        self._url, type(exc).__name__, what))
            raise

    def _require_client(self):
        if self._client is None:
            raise exceptions.CommandError(
                'No workflow (Mistral) endpoint: rendering and stack '
                'operations run in Mistral. Add one to the catalog or set '
                'workflow_endpoint_override in clouds.yaml (plan commands '
                'also take --no-render).')

    def check(self):
        """Refuse early when Mistral is down or the workbook is not ours."""
        if self._checked:
            return
        self._require_client()
        from mistralclient.api import base as mistral_base
        try:
            workflow = self._call('this command', self._client.workflows.get,
                                  RENDER)
        except mistral_base.APIException as exc:
            if getattr(exc, 'error_code', None) == 404:
                raise exceptions.CommandError(
                    'Mistral at %s has no workflow %s: %s, then run this '
                    'command again.' % (self._url, RENDER, _INSTALL))
            raise exceptions.CommandError('Mistral at %s: %s'
                                          % (self._url, exc))
        tags = getattr(workflow, 'tags', None) or []
        if protocol.TAG not in tags:
            raise exceptions.CommandError(
                'The workbook %s in Mistral at %s is of another version (tags '
                '%s, this client needs %s): %s.' % (
                    protocol.WORKBOOK, self._url, ', '.join(tags) or 'none',
                    protocol.TAG, _INSTALL))
        self._checked = True

    def start(self, workflow, request):
        self.check()
        execution = self._call('this command', self._client.executions.create,
                               workflow, workflow_input={'request': request})
        doing = titles.doing(workflow.rsplit('.', 1)[-1], request)
        self._begun[execution.id] = (doing, self._clock())
        # the one line with the id: "openstack workflow execution show"
        self.progress('%s: started in Mistral (execution %s)' % (
            doing, execution.id))
        return execution

    def doing(self, execution_id):
        """What an execution started here does ("Deploying overcloud")."""
        return self._begun.get(execution_id, ('Mistral execution %s'
                                              % execution_id,))[0]

    def _state(self, execution_id, state):
        since = self._begun.get(execution_id, (None, self._clock()))[1]
        return titles.state(self.doing(execution_id), state,
                            self._clock() - since)

    def wait(self, execution, timeout):
        """Follow ``execution`` until it ends or ``timeout`` seconds pass."""
        # Quick answers for quick executions, few requests for long ones.
        rounds = poll.Poll(timeout, self._interval, self._max_interval,
                           sleep=self._sleep, clock=self._clock)
        for attempt in rounds:
            if attempt > 1:
                state = execution.state
                execution = self._call('waiting', self._client.executions.get,
                                       execution.id)
                if execution.state != state:
                    self.progress(self._state(execution.id, execution.state))
            if execution.state not in _RUNNING:
                break
            rounds.quiet()
        return execution

    def render(self, request, timeout):
        """Render a plan in Mistral; returns the step's render entry.

        ``request``: ``plans.render_request(...)``.

        ``state`` is SUCCESS, ERROR, or TIMEOUT (the execution goes on);
        ``info`` carries Mistral's state_info when it is not SUCCESS.
        """
        started = self._clock()
        execution = self.wait(self.start(RENDER, request), timeout)
        entry = {'execution': execution.id, 'state': execution.state}
        if execution.state in _RUNNING:
            entry.update(state='TIMEOUT', info=(
                'still %s after %d s; see "openstack workflow execution show '
                '%s"' % (execution.state, timeout, execution.id)))
        elif execution.state != 'SUCCESS':
            entry['info'] = execution.state_info
        else:
            entry.update(protocol.render_entry(
                output(execution).get('render') or {}))
            self.progress(
                'Rendered %d templates in %.1f s: %d written, %d stale '
                'removed' % (entry['outputs'], self._clock() - started,
                             entry['written'], entry['removed']))
        return entry

    def run_workflow(self, name, request, timeout):
        """The result of our workflow ``name`` (its action's answer),
        started and followed to its end; CommandError with the action's
        own message when it failed; StillRunning when it still runs after
        ``timeout`` seconds (it goes on in Mistral)."""
        execution = self.start(protocol.workflow(name), request)
        task = self.wait_task(execution, name, timeout)
        if task is None:
            raise StillRunning(
                '%s: still running after %d s; it goes on in Mistral: see '
                '"openstack workflow execution show %s".'
                % (self.doing(execution.id), timeout, execution.id))
        if task.state != 'SUCCESS':
            raise exceptions.CommandError(reason(task.state_info))
        return published(task).get(name)

    def deploy(self, request, timeout, started=None):
        """Run the deploy workflow: ``(its summary, execution id)``.

        ``request``: ``plans.deploy_request(...)``; ``started`` is
        called with the execution id once Mistral has it (from then on Heat
        may be called). The workflow ends once Heat accepted (or refused)
        the operation; a refusal is a CommandError with Heat's reason, and
        losing sight of the execution is ``Unobserved``.
        """
        execution = self.start(DEPLOY, request)
        if started is not None:
            started(execution.id)
        try:
            task = self.wait_task(execution, 'deploy', timeout)
        except Exception as exc:    # Mistral errors while we wait, too
            raise Unobserved('%s: lost sight of Mistral execution %s (%s); '
                             'the operation may go on.' % (
                                 self.doing(execution.id), execution.id, exc))
        if task is None:
            raise Unobserved(
                '%s: still running after %d s; see "openstack workflow '
                'execution show %s".' % (self.doing(execution.id), timeout,
                                         execution.id))
        if task.state != 'SUCCESS':
            raise exceptions.CommandError(reason(task.state_info))
        return published(task).get('deploy') or {}, execution.id

    def preview(self, request, timeout, field_limit_kb=FIELD_LIMIT_KB):
        """Heat's preview of a stack operation: the preview action's result.

        ``request``: ``plans.preview_request(...)``. The action runs
        on its own, not in a workflow, synchronously and unsaved: Mistral's
        ``POST /v2/action_executions`` with params ``run_sync: true,
        save_result: false``, as the request may carry secrets (the
        overlay). What Mistral 23 does with that (its source,
        ``engine/default_engine.py`` ``start_action``):

        * Nothing reaches its database: the API asks the engine over RPC
          (a call, not a cast), the engine runs the action through an
          executor (another RPC call) and answers an ``ActionExecution``
          it never adds to a session: no id, ``state`` SUCCESS or ERROR,
          ``output`` ``{"result": <the action's data, or its
          Result(error=...) text>}``; HTTP 201 either way. An action that
          raises answers ERROR with "The action raised an exception
          [...]". The request travels through the message broker twice
          (RPC queues: not durable) and the API logs resources with
          ``input`` masked.
        * That unsaved ActionExecution is still a database model: its
          ``input`` and ``output`` are checked against ``[engine]
          execution_field_size_limit_kb`` (1024 by default, the size of
          ``str()`` of the value) *after* the action ran: a bigger request
          is a 400 "Field size limit exceeded" at the end. So the request
          is measured here first, against ``field_limit_kb`` (None: not
          checked).
        * Time: the API waits for the engine and the engine for the
          executor, each an RPC call bound by oslo.messaging's
          ``rpc_response_timeout`` (``[DEFAULT]``, 60 s by default); past
          it the API answers 500 "This rpc call "start_action" took longer
          than configured 60 seconds" while the action runs on to its
          end, its result dropped. The ``timeout`` param Mistral also
          takes only makes the executor report an error once a slower
          action has ended, so it is not sent. On THT 18, Heat's preview
          with nested detail fails after ~28 s and the top-level one then
          takes ~22 s more: give Mistral an ``rpc_response_timeout`` of a
          few minutes.
        * ``timeout`` here: the seconds this client waits for Mistral's
          answer before giving up (the preview changes nothing, so
          nothing is left half-done).

        CommandError when Mistral is not there, knows no such action (its
        tripleoplanclient is older), or the action failed (its own
        message).
        """
        result = self.run_action('preview', request, timeout,
                                 field_limit_kb)
        if not isinstance(result, dict):
            raise exceptions.CommandError(
                'The preview action in Mistral at %s returned no summary: '
                'install the same tripleoplanclient version in Mistral\'s '
                'environment.' % self._url)
        return result

    def run_action(self, name, request, timeout,
                   field_limit_kb=FIELD_LIMIT_KB):
        """The result of our action ``name`` run on its own (see
        ``preview``): one synchronous request, nothing saved in Mistral.

        ``request``: ``protocol.request(name, ...)``. CommandError when
        Mistral is not there, lacks the action (its tripleoplanclient is
        older), or the action failed (its own message); NoAnswer when
        Mistral or this client gave up waiting (the action may go on).
        """
        self._require_client()
        from mistralclient.api import base as mistral_base

        action = protocol.action(name)
        body = {'request': request}
        size_kb = sys.getsizeof(str(body)) // 1024
        if field_limit_kb is not None and size_kb > field_limit_kb:
            raise exceptions.CommandError(
                'The %s request is %d KiB: more than the %d KiB Mistral '
                'takes as an action\'s input ([engine] '
                'execution_field_size_limit_kb in its configuration). '
                'Ask for fewer changes at once, or raise that limit. '
                'Nothing was changed.' % (name, size_kb, field_limit_kb))
        started = self._clock()
        try:
            execution = self._within(
                timeout, self._call, 'the %s' % name,
                self._client.action_executions.create, action, body,
                run_sync=True, save_result=False)
        except mistral_base.APIException as exc:
            message = self._refused(exc, name, action)
            if _GAVE_UP in str(getattr(exc, 'error_message', None) or exc):
                raise NoAnswer(message, "Mistral's rpc_response_timeout "
                               "passed")
            raise exceptions.CommandError(message)
        result = output(execution).get('result')
        if getattr(execution, 'state', None) != 'SUCCESS':
            raise exceptions.CommandError(
                str(result or 'The %s failed in Mistral at %s without a '
                    'reason.' % (name, self._url)))
        self.progress('%s: done in %.1f s' % (
            titles.doing(name, request), self._clock() - started))
        return result

    def _within(self, timeout, fn, *args, **kwargs):
        """``fn(...)``, given up after ``timeout`` seconds (it goes on in a
        daemon thread, which does not keep the command alive)."""
        outcome = {}

        def run():
            try:
                outcome['value'] = fn(*args, **kwargs)
            except BaseException as exc:    # handed to the caller
                outcome['error'] = exc

        thread = threading.Thread(target=run, name='mistral-call',
                                  daemon=True)
        thread.start()
        thread.join(timeout)
        if thread.is_alive():
            raise NoAnswer(
                'Mistral at %s did not answer within %g s. Nothing was '
                'changed; run it again later, or with a longer timeout.'
                % (self._url, timeout), 'no answer within %g s' % timeout)
        if 'error' in outcome:
            raise outcome['error']
        return outcome['value']

    def _refused(self, exc, name, action):
        """The message for Mistral's refusal of an ad hoc action run."""
        text = str(getattr(exc, 'error_message', None) or exc)
        code = getattr(exc, 'error_code', None)
        if 'Failed to find action' in text or (
                code in (400, 404) and action in text):
            return (
                'Mistral at %s has no action %s: its tripleoplan actions are '
                'older than this client. In Mistral\'s environment run pip '
                'install -U "tripleoplanclient[mistral]", restart Mistral, '
                'then run "openstack overcloud workbook install".'
                % (self._url, action))
        if 'Field size limit exceeded' in text:
            return (
                'Mistral at %s refused the %s as too large (%s): ask for '
                'less at once, or raise [engine] '
                'execution_field_size_limit_kb in its configuration.'
                % (self._url, name, text))
        if _GAVE_UP in text:
            return (
                'Mistral at %s gave up waiting for the %s (%s): raise '
                'rpc_response_timeout ([DEFAULT] in its configuration) to a '
                'few minutes and restart it. Nothing was changed.'
                % (self._url, name, text))
        return 'Mistral at %s refused the %s: %s' % (self._url, name, text)

    def wait_task(self, execution, name, timeout):
        """The task ``name`` of ``execution`` once it ended (None: not
        within ``timeout`` seconds). The execution itself may go on (the
        deploy workflow follows the stack after its deploy task)."""
        rounds = poll.Poll(timeout, self._interval, self._max_interval,
                           sleep=self._sleep, clock=self._clock)
        for _ in rounds:
            tasks = self._call('waiting', self._client.tasks.list,
                               workflow_execution_id=execution.id)
            task = next((t for t in tasks if t.name == name), None)
            if task is not None and task.state not in _RUNNING + (
                    'WAITING', 'DELAYED'):
                if task.state != 'SUCCESS' or name not in titles.STARTS:
                    # else the work goes on (Heat, a follow task): the
                    # caller tells what was started
                    self.progress(self._state(execution.id, task.state))
                return task
            if task is None:
                found = self._call('waiting', self._client.executions.get,
                                   execution.id)
                if found.state not in _RUNNING:
                    # Ended before the task ran: the execution says why.
                    return _Ended(found.state, found.state_info)
            rounds.quiet()
        return None


class Unobserved(exceptions.CommandError):
    """A started execution's end could not be seen (it may go on)."""


class NoAnswer(exceptions.CommandError):
    """An action run on its own whose answer never came (Mistral's RPC
    timeout, or the client's): it may have run, or still run. ``why``:
    which, in a few words."""

    def __init__(self, message, why):
        super().__init__(message)
        self.why = why


class StillRunning(exceptions.CommandError):
    """A workflow still running at the client's timeout (it goes on in
    Mistral): a timeout, not a refusal."""


def reason(state_info):
    """The action's own message out of Mistral's failure report."""
    text = (state_info or 'no reason given').strip()
    marker = text.rfind(']: ')     # "... [action_ex_id=..., idx=0]: <why>"
    if marker >= 0:
        text = text[marker + 3:].strip()
    return text
