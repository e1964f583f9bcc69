"""When a stack step (deploy, update, upgrade) is refused, written once.

Runs on both sides: the client asks before it sends anything
(``stack.operations``, ``stack.execution``), and the deploy action in
Mistral asks again as the authority (``mistral.stack_step``), for any
client of the workflow. Plain values in, the refusal out; nothing here
reads Swift or Heat (what needs a request comes as a callable).
"""

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import layout


def lifecycle_environment(action, stage, held):
    """The lifecycle environment the step adds before the plan's list
    (``environments/lifecycle/<action>-<stage>.yaml``), when the templates
    the step leaves the plan with hold it (``held(path)``); None without a
    stage, and for converge when they hold none (THT 18: converge is the
    plain list). A prepare without one is refused (``refusal``)."""
    if stage is None:
        return None
    path = layout.lifecycle_path(action, stage)
    return path if held(path) else None


def refusal(plan, action, stack=None, idle=None, created=None,
            creates=False, removes=False, stage=None, held=None,
            renders=None, rendering=True):
    """The first reason to refuse the ``action`` step of ``plan``, a
    CommandError to raise, or None when it may go on.

    Each fact is checked only when given (not None): the client knows
    some only later than others and asks again then. In this order:

    ``stack``
        whether the plan's stack exists: update and upgrade need it;
    ``idle``
        a callable that raises while the stack is busy (the client mends
        the record from Heat first); asked once the stack is known to
        exist where it must;
    ``created``
        whether the plan was created: only a deploy that ``creates`` it
        (--templates) goes on without, and then ``removes`` nothing;
    ``held``
        whether the templates the step leaves the plan with hold the
        lifecycle environment of ``stage``: a prepare stage needs it;
    ``renders``
        whether the step needs a render: refused when not ``rendering``
        (--no-render, or a request with render false).
    """
    if stack is False and action != 'deploy':
        return exceptions.CommandError(
            'Stack %s does not exist: run "openstack overcloud deploy --stack '
            '%s" first. Nothing was changed.' % (plan, plan))
    if idle is not None:
        try:
            idle()
        except exceptions.CommandError as exc:
            return exc
    if created is False:
        if action != 'deploy' or not creates:
            return exceptions.CommandError(
                'Plan %s does not exist: run "openstack overcloud deploy '
                '--stack %s --templates <dir> ..." first. Nothing was '
                'changed.' % (plan, plan))
        if removes:
            return exceptions.CommandError(
                'Plan %s does not exist: nothing to remove an environment '
                'from. Nothing was changed.' % plan)
    if held is False and stage == 'prepare':
        return exceptions.CommandError(
            'The templates of plan %s have no %s: they do not support "%s '
            '--stage prepare". Nothing was changed.'
            % (plan, layout.lifecycle_path(action, stage), action))
    if renders and not rendering:
        return exceptions.CommandError(
            'Plan %s needs a render before its stack can be deployed; run '
            'the command without --no-render. Nothing was changed.' % plan)
    return None
