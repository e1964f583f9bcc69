"""The plan workflows from the client: every plan request is built here
(``protocol.request``), from the plain values the commands pass: plan
list, delete and restore, the deployment library's operations, render,
preview, deploy, and the steps the plan commands record.

The recording and rendering hooks the plan steps call (``Recorder``,
``PlanRenderer``) run them through ``executions.Workflows``; the node and
validation requests are built in ``nodes`` and ``validations``.
"""

from tripleoplanclient.common import exceptions
from tripleoplanclient import protocol


def plan_list_request(swift_url):
    """plan_list's request: the plans of the caller's project."""
    return protocol.request('plan_list', swift_url=swift_url)


def plan_delete_request(plans, swift_url, heat_url, check_only):
    """plan_delete's request: ``plans`` (names), each checked (and none
    with a stack) before any is deleted; ``check_only``: just say what
    would go."""
    return protocol.request('plan_delete', containers=list(plans),
                            swift_url=swift_url, heat_url=heat_url,
                            check_only=check_only)


def plan_restore_request(plan, step, swift_url, heat_url, command):
    """plan_restore's request: ``plan`` made what it was after ``step``
    (a number or id), recorded with ``command`` (masked)."""
    return protocol.request('plan_restore', container=plan, step=step,
                            swift_url=swift_url, heat_url=heat_url,
                            command=command)


def library_request(operation, plan, **fields):
    """The request of a deployment library action (``capabilities``,
    ``roles``, ``parameters``, ``validate``...) on ``plan``; ``fields``:
    its endpoints and options."""
    return protocol.request(operation, container=plan, **fields)


def preview_request(plan, swift_url, heat_url, objects, **fields):
    """The preview action's request: ``objects`` (``{plan path: bytes}``,
    what the step would write) carried as its overlay."""
    return protocol.request('preview', container=plan, swift_url=swift_url,
                            heat_url=heat_url,
                            overlay=protocol.encode_overlay(objects),
                            **fields)


def render_request(plan, swift_url, inputs, tree=None):
    """The render workflow's request: ``inputs``, the plan's
    ``roles_data`` / ``network_data`` paths; ``tree``, the plan's tree
    with the step's writes (``plan.tree``)."""
    return protocol.request('render', container=plan, swift_url=swift_url,
                            roles_data=inputs.get('roles_data'),
                            network_data=inputs.get('network_data'),
                            tree=tree)


def deploy_request(plan, swift_url, heat_url, change, **fields):
    """The deploy workflow's request for a stack step whose files
    ``change`` (``steps.Change``) wrote: what it wrote, as plan_amend's,
    with its deleted paths; ``fields``: the step's other request fields
    (action, stage, timeout...)."""
    from tripleoplanclient.record import steps

    step = steps.amend_request(change)
    step['tree'].update((p, None) for p in change.deleted)
    step.pop('render')
    if change.release:
        step['release'] = change.release
    return protocol.request('deploy', container=plan, swift_url=swift_url,
                            heat_url=heat_url, **dict(step, **fields))


def step_request(name, plan, swift_url, command, **fields):
    """The request of a step the plan commands record (``plan_create``,
    ``plan_amend``) with ``command`` (masked); ``fields``: what the step
    wrote."""
    return protocol.request(name, container=plan, swift_url=swift_url,
                            command=command, **fields)


class PlanRenderer:
    """What plan steps call to render: ``check()`` first, then the render.

    :param workflows: a Workflows; Mistral is reached only when a step
        does render
    """

    def __init__(self, workflows, swift_url, timeout):
        self._workflows = workflows
        self._swift_url = swift_url
        self._timeout = timeout

    def check(self):
        self._workflows.check()

    def __call__(self, plan, inputs, tree=None):
        # The objects have landed by now: a Mistral that vanished since
        # check() becomes a failed render on record, not a lost step.
        try:
            self.check()
            return self._workflows.render(
                render_request(plan, self._swift_url, inputs, tree),
                self._timeout)
        except exceptions.CommandError as exc:
            return {'state': 'ERROR', 'info': str(exc)}


class Recorder:
    """What the plan steps call to record a step in Mistral (the
    plan_create and plan_amend actions, ``mistral.lifecycle``): ``check()``
    before the first write, then ``(plan, name, fields, renders)`` once
    the files are written; returns the action's summary of the step.

    A step that renders (or creates: it reads the whole tree for the
    passwords) runs as a workflow execution, followed to its end: it may
    take minutes. Any other runs as the action on its own (one request).

    :param command: the command line to record (masked)
    """

    def __init__(self, workflows, swift_url, timeout, command):
        self._workflows = workflows
        self._swift_url = swift_url
        self._timeout = timeout
        self._command = command

    @property
    def command(self):
        """The command line each step records (a stack step's too)."""
        return self._command

    def check(self):
        self._workflows.check()

    def __call__(self, plan, name, fields, renders=False):
        request = step_request(name, plan, self._swift_url, self._command,
                               **fields)
        if renders:
            result = self._workflows.run_workflow(name, request,
                                                  self._timeout)
        else:
            result = self._workflows.run_action(name, request,
                                                self._timeout)
        if not isinstance(result, dict) or 'status' not in result:
            raise exceptions.CommandError(
                'The %s action in Mistral answered no step (%r): install '
                'the same tripleoplanclient version in Mistral\'s '
                'environment.' % (name, result))
        return result
