"""``openstack overcloud plan`` commands.

Loaded on every ``openstack`` run: standard library, cliff and light
osc-lib modules only at module level (see ``base``).
"""

import os
import tempfile

from osc_lib.command import command
from osc_lib import exceptions

from tripleoplanclient.osc import base
from tripleoplanclient.osc import defaults
from tripleoplanclient.osc import exit_status
from tripleoplanclient.osc import plan_step
from tripleoplanclient.osc import plan_tables

# environments: plan paths (in a table, as the user named the files);
# environment_names: as named.
STEP_COLUMNS = ('plan', 'id', 'action', 'environments', 'added',
                'changed', 'removed', 'status', 'environment_names')
HISTORY_COLUMNS = ('step', 'id', 'time', 'action', 'user', 'project',
                   'templates', 'environments', 'outcome', 'config',
                   'validations', 'environment_names')
EXPORT_COLUMNS = ('plan', 'step', 'id', 'file', 'objects', 'bytes')
# Seconds to wait for Mistral's answer to a list or a delete.
MISTRAL_WAIT = 600


def add_step_option(parser, required, what):
    parser.add_argument('--step', metavar='<step>', required=required,
                        help='%s: its number in "overcloud plan show-history"'
                             ' or its id.' % what)


def step_result(plan, state, step):
    """ShowOne columns of the step a command recorded (or the plan now)."""
    from tripleoplanclient import protocol
    return summary_result(protocol.result(plan, step, state))


def summary_result(result):
    """ShowOne columns of a step's summary (``protocol.result``).

    ``id`` names the step for good: no other step has it, whoever writes
    at the same time (its number in the history is its place in Swift's
    order, see show-history).
    """
    values = dict(result)
    values['environments'], values['environment_names'] = \
        plan_step.environment_columns(result['environments'], dict(zip(
            result['environments'], result['environment_names'])))
    return STEP_COLUMNS, tuple(values[c] for c in STEP_COLUMNS)


def _failed(cmd, plan, result):
    """Tell a step recorded FAILED (its row follows, exit status 1)."""
    from tripleoplanclient.record import steps
    error = steps.failed(plan, result)
    if error is not None:
        cmd.error(str(error))
    return error is not None


class CreatePlan(exit_status.ResultCommand, command.ShowOne):
    _description = 'Create a deployment plan from templates and user files'
    columns, action = STEP_COLUMNS, 'create'
    table_leaves_out = plan_step.NAMES_IN_TABLES

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('plan', metavar='<plan>',
                            help='Plan name (also the Heat stack name).')
        defaults.add_templates_option(
            parser, 'The templates tree (default: the installed tree, as '
            'for tripleoclient).', default=defaults.INSTALLED_TEMPLATES)
        base.add_environment_options(parser)
        base.add_input_options(parser, defaults=True)
        base.add_render_options(parser)
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient.plan import layout
        from tripleoplanclient.record import steps

        plan = layout.check_name(parsed_args.plan)
        files = base.plan_files(parsed_args, parsed_args.templates,
                                with_tree=True, origin=self.origin(plan),
                                progress=self.progress)
        result = steps.create(self.plan_store(), plan, files,
                              self.recorder(parsed_args),
                              render=not parsed_args.no_render)
        _rendered(self, result)
        if not _failed(self, plan, result):
            self.progress('Plan %s created: %d objects, %d environment files.'
                          % (plan, result['added'] + result['changed'],
                             len(result['environments'])))
        return summary_result(result)


def _rendered(cmd, result):
    render = result.get('render') or {}
    if render.get('state') == 'SUCCESS':
        cmd.progress('Rendered %d templates: %d written, %d stale removed'
                     % (render.get('outputs', 0), render.get('written', 0),
                        render.get('removed', 0)))
        if render.get('info'):
            cmd.progress('Render: %s' % render['info'])


class AmendPlan(exit_status.ResultCommand, command.ShowOne):
    _description = 'Change only the named files of a deployment plan'
    columns, action = STEP_COLUMNS, 'amend'
    table_leaves_out = plan_step.NAMES_IN_TABLES

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('plan', metavar='<plan>', help='Plan name.')
        base.add_environment_options(parser)
        base.add_remove_option(parser)
        base.add_input_options(parser)
        base.add_render_options(parser)
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient.plan import layout
        from tripleoplanclient.record import steps

        plan = layout.check_name(parsed_args.plan)
        if not (parsed_args.environment_files or parsed_args.upload_files
                or parsed_args.remove_environments
                or parsed_args.environment_directories
                or parsed_args.roles_file or parsed_args.networks_file
                or parsed_args.plan_environment_file):
            raise exceptions.CommandError(
                'Nothing to amend: give -e, --remove-environment, '
                '--upload-file, --environment-directory, -r, -n or -p.')
        store = self.plan_store()
        head = store.reader.head(plan)
        files = base.plan_files(parsed_args, head.state['templates'],
                                origin=self.origin(plan))
        remove = steps.resolve_removals(
            files, head.state['environments'],
            parsed_args.remove_environments)
        result = steps.amend(store, plan, head, files, remove,
                             self.recorder(parsed_args),
                             no_render=parsed_args.no_render)
        if result is None or result['status'] == 'UNCHANGED':
            self.progress('Plan %s: nothing changed, no step recorded.'
                          % plan)
            return step_result(plan, head.state, None)
        _rendered(self, result)
        _failed(self, plan, result)
        return summary_result(result)


class ShowPlanHistory(base.Command, command.Lister):
    _description = ('Show the life cycle story of a deployment plan (the '
                    'files after one step: "overcloud plan show-step")')
    has_long = True
    table_leaves_out = (plan_tables.HISTORY_LEAVES_OUT
                        + plan_step.NAMES_IN_TABLES)

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('plan', metavar='<plan>', help='Plan name.')
        plan_step.add_moved_step_option(parser)
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient.plan import layout
        from tripleoplanclient.record import hook_runs

        plan = layout.check_name(parsed_args.plan)
        store = self.plan_store()
        rows, _ = store.reader.history(plan)
        self.mend(store, plan, rows)
        hook_runs.merge(store.container, plan, rows)
        return HISTORY_COLUMNS, plan_tables.history(rows, parsed_args)

    def mend(self, store, plan, rows):
        """Ask Heat how a stack step nobody saw end did end, when Heat is
        there to ask (the history is shown either way)."""
        from tripleoplanclient.common import status
        from tripleoplanclient.record import open_step

        heat = self.clients.orchestration()
        if heat is None or open_step.find(rows) is None:
            return
        try:
            open_step.mend(store, plan, rows, status.lookup(
                heat, plan, self.clients.endpoint('orchestration')))
        except exceptions.CommandError as exc:
            self.progress('Step outcome not checked with Heat: %s' % exc)


class DiffPlan(base.Command, command.ShowOne):
    _description = ('Show what changed in a deployment plan between two '
                    'steps: environment list, files and parameters '
                    '(secrets masked)')
    has_long = True
    table_leaves_out = plan_step.NAMES_IN_TABLES

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('plan', metavar='<plan>', help='Plan name.')
        parser.add_argument(
            '--from', metavar='<step>', dest='from_step',
            help='The step to compare from: its number in "overcloud plan '
                 'show-history" or its id (default: the last deploy, '
                 'update or upgrade that succeeded; step 1 when the plan '
                 'was never deployed). May come after --to: the diff then '
                 'shows what going back would change.')
        parser.add_argument(
            '--to', metavar='<step>', dest='to_step',
            help='The step to compare to (default: the newest, the plan '
                 'as it is now).')
        parser.add_argument(
            '--no-diff', action='store_true',
            help='Compare files by MD5 only: read no file content for the '
                 'diff column, which stays empty.')
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient.plan import hidden_parameters
        from tripleoplanclient.plan import layout
        from tripleoplanclient.record import diff

        plan = layout.check_name(parsed_args.plan)
        result = diff.compare(self.plan_store(read_only=True), plan,
                              parsed_args.from_step,
                              parsed_args.to_step,
                              with_diff=not parsed_args.no_diff,
                              progress=self.progress,
                              known=hidden_parameters.Known.default())
        self.progress('Plan %s, step %d to step %d: %d environment files '
                      'added, %d removed; %d files added, %d removed, %d '
                      'changed; %d parameters changed.' % (
                          plan, result['from']['step'],
                          result['to']['step'],
                          len(result['environments_added']),
                          len(result['environments_removed']),
                          len(result['files_added']),
                          len(result['files_removed']),
                          len(result['files_changed']),
                          len(result['parameters_changed'])))
        return diff.COLUMNS, plan_tables.diff(result, parsed_args)


class ListPlans(base.Command, command.Lister):
    _description = 'List deployment plans'

    def take_action(self, parsed_args):
        from tripleoplanclient.workflows import plans
        result = self.workflows().run_action(
            'plan_list', plans.plan_list_request(
                self.clients.endpoint('object-store')), MISTRAL_WAIT)
        return (('Plan', 'Objects', 'Bytes'),
                ((p['name'], p['objects'], p['bytes'])
                 for p in result['plans']))


class DeletePlan(base.Command):
    _description = 'Delete deployment plans that have no Heat stack'

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('plans', metavar='<plan>', nargs='+',
                            help='Plan(s) to delete.')
        base.add_yes_option(parser)
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient.plan import layout
        from tripleoplanclient.workflows import plans

        names = [layout.check_name(p) for p in parsed_args.plans]
        workflows = self.workflows()

        def ask(check_only):
            # The action checks every plan (and Heat) before deleting any.
            return workflows.run_action(
                'plan_delete', plans.plan_delete_request(
                    names, self.clients.endpoint('object-store'),
                    self.clients.endpoint('orchestration'), check_only),
                MISTRAL_WAIT)

        if not parsed_args.yes:
            found = ask(True)['plans']
            if not self.confirm('Delete plan(s) %s and every file in them?'
                                % ', '.join('%s (%d objects)' % (
                                    p['name'], p['objects'])
                                    for p in found), False):
                raise exceptions.CommandError('Not confirmed: nothing was '
                                              'deleted.')
        for plan in ask(False)['plans']:
            self.progress('Deleted plan %s (%d objects).'
                          % (plan['name'], plan['objects']))


class ExportPlan(base.Command, command.ShowOne):
    _description = 'Export a whole deployment plan to a tar.gz file'

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('plan', metavar='<plan>', help='Plan name.')
        parser.add_argument('-o', '--output-file', metavar='<file>',
                            help='Tarball to write (default: '
                                 '<plan>.tar.gz).')
        parser.add_argument('--force-overwrite', action='store_true',
                            help='Overwrite an existing output file.')
        add_step_option(parser, False, 'Export the plan as it stood after '
                        'this step (its files and the steps up to it; the '
                        'same bytes whenever made)')
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient.plan import export
        from tripleoplanclient.plan import layout
        from tripleoplanclient.record import past

        plan = layout.check_name(parsed_args.plan)
        output = os.path.abspath(parsed_args.output_file
                                 or '%s.tar.gz' % plan)
        if os.path.exists(output) and not parsed_args.force_overwrite:
            raise exceptions.CommandError(
                'Output file %s exists; pass --force-overwrite to replace '
                'it.' % output)
        store = self.plan_store()
        if parsed_args.step is not None:
            at = past.at(store, plan, parsed_args.step)
            row = at.row
            count = write_atomically(
                output, lambda f: past.export(store, at, f))
        else:
            listed = headers, listing = store.container.listing(plan)
            if listing is None or not layout.is_plan(headers):
                raise exceptions.CommandError(
                    'Plan %s does not exist; see "openstack overcloud plan '
                    'list".' % plan)
            # Read only: an export of the plan as it is writes nothing.
            row = past.newest(self.plan_store(read_only=True), plan,
                              listed) or {}
            # Names the listing left alone are named by the export's
            # refusal: an export is the whole plan or nothing.
            members = list(listing) + list(store.container.unsafe(plan))
            write_atomically(output, lambda f: export.export(
                store.container, plan, members, f))
            count = len(listing)
        # The same columns with or without --step (scripts use -c).
        return EXPORT_COLUMNS, (plan, row.get('step'), row.get('id'), output,
                                count, os.path.getsize(output))


def write_atomically(output, write):
    """Write beside the target and rename: no half-written tarball."""
    fd, partial = tempfile.mkstemp(prefix='.%s.' % os.path.basename(output),
                                   dir=os.path.dirname(output))
    try:
        with os.fdopen(fd, 'wb') as f:
            result = write(f)
        os.replace(partial, output)
    except BaseException:
        os.unlink(partial)
        raise
    return result


class RestorePlan(exit_status.ResultCommand, command.ShowOne):
    _description = ('Make a deployment plan what it was after a past step '
                    '(a new step; the next deploy applies it)')
    columns, action = STEP_COLUMNS, 'restore'
    table_leaves_out = plan_step.NAMES_IN_TABLES

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('plan', metavar='<plan>', help='Plan name.')
        add_step_option(parser, True, 'The step to go back to')
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient.plan import layout
        from tripleoplanclient.workflows import plans

        plan = layout.check_name(parsed_args.plan)
        result = self.workflows().run_action(
            'plan_restore', plans.plan_restore_request(
                plan, parsed_args.step, self.clients.endpoint('object-store'),
                self.clients.endpoint('orchestration'), self.command_line()),
            MISTRAL_WAIT)
        back = result['restored']
        if result['id'] is None:
            self.progress('Plan %s is already as it was after step %d: no '
                          'step recorded.' % (plan, back['step']))
        else:
            self.progress('Plan %s restored to step %d (%s): %d files put '
                          'back, %d removed. The next deploy applies it.' % (
                              plan, back['step'], back['id'],
                              result['added'] + result['changed'],
                              result['removed']))
        return summary_result(result)
