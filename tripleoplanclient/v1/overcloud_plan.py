"""``openstack overcloud plan`` commands.

Loaded on every ``openstack`` run: only the standard library, cliff and
the light osc-lib modules are imported here (osc_lib.utils and
format_columns pull in yaml and requests); the rest is imported when a
command runs.
"""

import logging
import os
import sys
import tempfile

from osc_lib.command import command
from osc_lib import exceptions

LOG = logging.getLogger(__name__)

STEP_COLUMNS = ('plan', 'step', 'action', 'environments', 'added',
                'changed', 'removed', 'status')
HISTORY_COLUMNS = ('id', 'time', 'action', 'user', 'environments',
                   'outcome')


class PlanCommand(command.Command):
    """Base of the plan commands: the plan store and stderr progress."""

    def progress(self, line):
        self.app.stderr.write(line + '\n')
        self.app.stderr.flush()

    def plan_store(self):
        from tripleoplanclient import plan_store
        return plan_store.PlanStore(
            self.app.client_manager.tripleoplan.object_store,
            progress=self.progress)

    def workflows(self):
        """The Mistral side; a clear error when none is configured."""
        from tripleoplanclient import workflows
        client, url = self.app.client_manager.tripleoplan.workflow_engine()
        if client is None:
            raise exceptions.CommandError(
                'No workflow (Mistral) endpoint: rendering runs in Mistral. '
                'Add one to the catalog or set workflow_endpoint_override in '
                'clouds.yaml, or pass --no-render.')
        return workflows.Workflows(client, url, self.progress)

    def renderer(self, parsed_args, connect=None):
        """The render hook of a plan step, or None with --no-render.

        ``connect``: what builds the Workflows (default: self.workflows).
        """
        if parsed_args.no_render:
            return None
        from tripleoplanclient import workflows
        return workflows.PlanRenderer(
            connect or self.workflows,
            self.app.client_manager.tripleoplan.endpoint('object-store'),
            parsed_args.timeout * 60)


def add_environment_options(parser):
    parser.add_argument(
        '-e', '--environment-file', metavar='<file>', action='append',
        dest='environment_files', default=[],
        help='Environment file, in the order Heat merges them; may be '
             'repeated. Files outside --templates and what they reference '
             'are stored in the plan under user-files/.')
    parser.add_argument(
        '--upload-file', metavar='<local>[=<plan-path>]', action='append',
        dest='upload_files', default=[],
        help='Store any other file in the plan (default plan path: '
             'user-files/<absolute local path>); may be repeated.')


def add_input_options(parser):
    parser.add_argument(
        '--environment-directory', metavar='<dir>', action='append',
        dest='environment_directories', default=[],
        help='Add every *.yaml of this directory, sorted by name, before '
             'the -e files; may be repeated.')
    parser.add_argument('-r', '--roles-file', metavar='<file>',
                        help='Roles data file (default: roles_data.yaml '
                             'of --templates).')
    parser.add_argument('-n', '--networks-file', metavar='<file>',
                        help='Networks data file (default: network_data.yaml '
                             'of --templates).')
    parser.add_argument('-p', '--plan-environment-file', metavar='<file>',
                        help='Plan environment file (default: '
                             'plan-environment.yaml of --templates).')


def add_render_options(parser):
    parser.add_argument(
        '--no-render', action='store_true',
        help='Do not render the jinja2 templates now; the next command '
             'that can render will.')
    parser.add_argument(
        '--timeout', metavar='<minutes>', type=float, default=10,
        help='How long to wait for the render in Mistral (default 10).')


def collect_user_files(files, parsed_args):
    """Fill ``files`` (an environments.PlanFiles) from the options."""
    for directory in getattr(parsed_args, 'environment_directories', []):
        files.add_environment_directory(directory)
    for path in parsed_args.environment_files:
        files.add_environment(path)
    for kind, option in (('roles_data', 'roles_file'),
                         ('network_data', 'networks_file'),
                         ('plan_environment', 'plan_environment_file')):
        path = getattr(parsed_args, option, None)
        if path:
            files.add_input(kind, path, '--' + option.replace('_', '-'))
    for spec in parsed_args.upload_files:
        files.add_upload(spec)
    return files


def step_result(plan, record, step):
    """ShowOne columns of the step a command recorded (or the plan now)."""
    from osc_lib.cli import format_columns
    if step is None:
        values = (plan, None, None, record['environments'], 0, 0, 0,
                  'UNCHANGED')
    else:
        objects = step['objects']
        values = (plan, step['id'], step['action'], step['environments'],
                  objects['added'], objects['changed'], objects['removed'],
                  step['outcome']['status'])
    values = list(values)
    values[3] = format_columns.ListColumn(values[3])
    return STEP_COLUMNS, values


class CreatePlan(PlanCommand, command.ShowOne):
    _description = 'Create a deployment plan from templates and user files'

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('plan', metavar='<plan>',
                            help='Plan name (also the Heat stack name).')
        parser.add_argument('--templates', metavar='<dir>', required=True,
                            help='The templates tree, e.g. '
                                 '/usr/share/openstack-tripleo-heat-'
                                 'templates.')
        add_environment_options(parser)
        add_input_options(parser)
        add_render_options(parser)
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient import environments
        from tripleoplanclient import plans

        plan = plans.check_name(parsed_args.plan)
        files = environments.PlanFiles(parsed_args.templates)
        files.add_templates()
        collect_user_files(files, parsed_args)
        record, step = plans.create(self.plan_store(), plan, files,
                                    self.renderer(parsed_args))
        self.progress('Plan %s created: %d objects, %d environment files.'
                      % (plan, step['objects']['added']
                         + step['objects']['changed'],
                         len(step['environments'])))
        return step_result(plan, record, step)


class AmendPlan(PlanCommand, command.ShowOne):
    _description = 'Change only the named files of a deployment plan'

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('plan', metavar='<plan>', help='Plan name.')
        add_environment_options(parser)
        parser.add_argument(
            '--remove-environment', metavar='<file>', action='append',
            dest='remove_environments', default=[],
            help='Drop an environment file from the list (local path or plan '
                 'path); the stored file stays in the plan. May be '
                 'repeated.')
        add_input_options(parser)
        add_render_options(parser)
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient import environments
        from tripleoplanclient import plans

        plan = plans.check_name(parsed_args.plan)
        if not (parsed_args.environment_files or parsed_args.upload_files
                or parsed_args.remove_environments
                or parsed_args.environment_directories
                or parsed_args.roles_file or parsed_args.networks_file
                or parsed_args.plan_environment_file):
            raise exceptions.CommandError(
                'Nothing to amend: give -e, --remove-environment, '
                '--upload-file, --environment-directory, -r, -n or -p.')
        store = self.plan_store()
        record = store.read_record(plan)
        files = environments.PlanFiles(record.get('templates'))
        collect_user_files(files, parsed_args)
        remove = plans.resolve_removals(
            files, record['environments'], parsed_args.remove_environments)
        record, step = plans.amend(
            store, plan, record, files, remove,
            render=self.renderer(parsed_args),
            no_render=parsed_args.no_render)
        if step is None:
            self.progress('Plan %s: nothing changed, no step recorded.'
                          % plan)
        return step_result(plan, record, step)


class ShowPlanHistory(PlanCommand, command.Lister):
    _description = 'Show the life cycle story of a deployment plan'

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('plan', metavar='<plan>', help='Plan name.')
        return parser

    def take_action(self, parsed_args):
        from osc_lib.cli import format_columns

        from tripleoplanclient import plans
        from tripleoplanclient import record as record_mod

        plan = plans.check_name(parsed_args.plan)
        store = self.plan_store()
        record = store.read_record(plan)
        # Steps another writer committed after this record was written.
        for step in store.steps_after(plan, record_mod.last_id(record)):
            record_mod.apply(record, step)
        rows = ((s['id'], s['time'], s['action'], s['user'],
                 format_columns.ListColumn(record_mod.heat_environments(s)),
                 format_columns.DictColumn(s['outcome']))
                for s in record['history'])
        return HISTORY_COLUMNS, rows


class ListPlans(PlanCommand, command.Lister):
    _description = 'List deployment plans'

    def take_action(self, parsed_args):
        # Container HEADs are exact; account listing counts may lag.
        return (('Plan', 'Objects', 'Bytes'),
                ((name, int(h.get('x-container-object-count', 0)),
                  int(h.get('x-container-bytes-used', 0)))
                 for name, h in self.plan_store().plans()))


class DeletePlan(PlanCommand):
    _description = 'Delete deployment plans that have no Heat stack'

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('plans', metavar='<plan>', nargs='+',
                            help='Plan(s) to delete.')
        parser.add_argument('-y', '--yes', action='store_true',
                            help='Do not ask for confirmation.')
        return parser

    def _stack_exists(self, heat, plan):
        from heatclient import exc as heat_exc
        try:
            heat.stacks.get(plan)
            return True
        except heat_exc.HTTPNotFound:
            return False
        except Exception as exc:
            raise exceptions.CommandError(
                'Cannot tell whether stack %s exists (%s); not deleting plan '
                '%s.' % (plan, exc, plan))

    def take_action(self, parsed_args):
        from tripleoplanclient import plans

        names = [plans.check_name(p) for p in parsed_args.plans]
        store = self.plan_store()
        heat = self.app.client_manager.tripleoplan.orchestration()
        if heat is None:
            self.progress('No orchestration (Heat) endpoint configured: not '
                          'checking for stacks.')
        listings = {}
        for plan in names:          # check every plan before deleting any
            headers, listing = store.listing(plan)
            if listing is None or not store.is_plan(headers):
                raise exceptions.CommandError(
                    'Plan %s does not exist; see "openstack overcloud plan '
                    'list". Nothing was deleted.' % plan)
            if heat is not None and self._stack_exists(heat, plan):
                raise exceptions.CommandError(
                    'Stack %s exists: delete the stack before its plan. '
                    'Nothing was deleted.' % plan)
            listings[plan] = listing
        if not parsed_args.yes:
            self._confirm(names)
        for plan in names:
            store.delete(plan, listings[plan])
            self.progress('Deleted plan %s (%d objects).'
                          % (plan, len(listings[plan])))

    @staticmethod
    def _confirm(names):
        if not sys.stdin.isatty():
            raise exceptions.CommandError(
                'Refusing to delete plan(s) %s without --yes (no terminal '
                'to ask).' % ', '.join(names))
        answer = input('Delete plan(s) %s and every file in them? [y/N] '
                       % ', '.join(names))
        if answer.strip().lower() not in ('y', 'yes'):
            raise exceptions.CommandError('Not deleted.')


class ExportPlan(PlanCommand, command.ShowOne):
    _description = 'Export a whole deployment plan to a tar.gz file'

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('plan', metavar='<plan>', help='Plan name.')
        parser.add_argument('--output-file', metavar='<file>',
                            help='Tarball to write (default: '
                                 '<plan>.tar.gz).')
        parser.add_argument('--force-overwrite', action='store_true',
                            help='Overwrite an existing output file.')
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient import plans

        plan = plans.check_name(parsed_args.plan)
        output = os.path.abspath(parsed_args.output_file
                                 or '%s.tar.gz' % plan)
        if os.path.exists(output) and not parsed_args.force_overwrite:
            raise exceptions.CommandError(
                'Output file %s exists; pass --force-overwrite to replace '
                'it.' % output)
        store = self.plan_store()
        headers, listing = store.listing(plan)
        if listing is None or not store.is_plan(headers):
            raise exceptions.CommandError(
                'Plan %s does not exist; see "openstack overcloud plan '
                'list".' % plan)
        # Write beside the target and rename: no half-written tarball.
        fd, partial = tempfile.mkstemp(
            prefix='.%s.' % os.path.basename(output),
            dir=os.path.dirname(output))
        try:
            with os.fdopen(fd, 'wb') as f:
                store.export(plan, listing, f)
            os.replace(partial, output)
        except BaseException:
            os.unlink(partial)
            raise
        return (('plan', 'file', 'objects', 'bytes'),
                (plan, output, len(listing), os.path.getsize(output)))
