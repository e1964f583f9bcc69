"""The life cycle's hooks: ``--run-validations`` (python-tripleoclient's
option: a group run before the step, refusing it when one does not pass)
and ``--run-post-validations`` (a group run after the step succeeded; one
that does not pass leaves the step done and says so: exit status 1), and
the ``validations`` column of the rows of the commands that take them.

Loaded on every ``openstack`` run: standard library, cliff and light
osc-lib modules only at module level (see ``base``).
"""

from osc_lib import exceptions

from tripleoplanclient.osc import exit_status

# step -> (the group run before it, what it does), as tripleoclient and
# tripleo-ui ran them
PRE = {'deploy': ('pre-deployment', 'deploying'),
       'update': ('pre-update', 'updating'),
       'upgrade': ('pre-upgrade', 'upgrading'),
       'import': ('pre-introspection', 'registering the nodes'),
       'introspect': ('pre-introspection', 'introspecting the nodes')}
# step -> the group run after it succeeded
POST = {'deploy': 'post-deployment', 'update': 'post-update',
        'upgrade': 'post-upgrade'}


def add_options(parser, step):
    parser.add_argument(
        '--run-validations', action='store_true',
        help='First run the %s validations in Mistral (%s) and refuse to '
             'go on when one does not pass, naming it (exit status 3, '
             'nothing changed).%s' % (
                 PRE[step][0], 'the plan\'s own too, as it stands, when the '
                 'plan exists' if step in POST else 'the installed ones '
                 'that need no plan', ' Not run with --dry-run.'
                 if step in POST else ''))
    if step in POST:
        parser.add_argument(
            '--run-post-validations', action='store_true',
            help='Once the step succeeded (its servers configured), run the '
                 '%s validations; when one does not pass, the step stays '
                 'done and the exit status is 1. Not run when the step '
                 'failed; not with --no-wait nor --dry-run. Both runs\' ids '
                 'are in the step\'s record.' % POST[step])


def column(found):
    """The ``validations`` column: ``[{hook, group, run, status}]``."""
    from osc_lib.cli import format_columns
    return format_columns.ListDictColumn(list(found or []))


def check(parsed_args, step, progress):
    """Refuse what cannot go together, before anything runs; say what
    --dry-run leaves out. Whether the pre hook is to run."""
    post = getattr(parsed_args, 'run_post_validations', False)
    if post and not getattr(parsed_args, 'wait', True) and \
            not getattr(parsed_args, 'dry_run', False):
        raise exceptions.CommandError(
            '--run-post-validations runs the %s validations once the step '
            'ended: it cannot go with --no-wait. Nothing was changed.'
            % POST[step])
    if getattr(parsed_args, 'dry_run', False):
        if parsed_args.run_validations or post:
            progress('--dry-run: no validation is run (they would be the '
                     '%s).' % ' and '.join(
                         ([PRE[step][0]] if parsed_args.run_validations
                          else []) + ([POST[step]] if post else [])))
        return False
    return parsed_args.run_validations


def before(command, workflows, step, plan, swift_url, heat_url):
    """The pre hook's runs, for the step's record and row (none when the
    group has nothing to run); a CommandError (refusal) when one does not
    pass, its run in the command's refused row."""
    from tripleoplanclient.workflows import validations
    group, doing = PRE[step]
    try:
        found = validations.before(workflows, doing, group, plan, swift_url,
                                   heat_url, command.progress)
    except validations.NotPassed as exc:
        command.fields['validations'] = column([exc.found])
        raise
    return [found] if found else []


def after(command, workflows, step, plan, step_id, succeeded, swift_url,
          heat_url, writer):
    """The post hook of a step that ended (``succeeded``: its status was
    SUCCESS): its run recorded with the step (``writer.write_hook_run``)
    as it starts and when it ends. ``[record]`` to add to the row (none
    when not run); sets ``command.exit_status`` when it did not pass."""
    from tripleoplanclient.workflows import validations
    group = POST[step]
    if not succeeded:
        command.progress('The %s validations are not run: the step did not '
                         'succeed.' % group)
        return []

    def started(found):
        writer.write_hook_run(plan, step_id, found, final=False)

    try:
        found = validations.hook(workflows, 'post', group, plan, swift_url,
                                 heat_url, command.progress,
                                 started=started)
        if found is None:
            return []
        writer.write_hook_run(plan, step_id, found)
    except exceptions.CommandError as exc:
        command.error('Step %s is done; its %s validations did not run to '
                      'their end: %s' % (step_id, group, exc))
        command.exit_status = exit_status.FAILED
        return []
    if found['status'] == 'TIMEOUT':
        command.error('Step %s is done; its %s validations (run %s) did not '
                      'end in time: see "openstack overcloud validation show '
                      '%s".' % (step_id, group, found['run'], found['run']))
        command.exit_status = exit_status.TIMEOUT
    elif found['status'] != 'PASSED':
        command.error('Step %s is done, but %d %s validation(s) did not pass '
                      '(run %s):%s' % (
                          step_id, len(found['failures']), group,
                          found['run'], ''.join(
                              '\n  %s' % f for f in found['failures'])))
        command.exit_status = exit_status.FAILED
    return [validations.recorded(found)]
