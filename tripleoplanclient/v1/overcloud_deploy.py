"""``openstack overcloud deploy / update / upgrade``.

Loaded on every ``openstack`` run: standard library, cliff and osc-lib
only at module level (see overcloud_plan).
"""

import sys

from osc_lib.command import command
from osc_lib import exceptions

from tripleoplanclient.v1 import overcloud_plan

RESULT_COLUMNS = ('plan', 'step', 'action', 'operation', 'stack_id',
                  'stack_status', 'environments', 'rendered', 'status')
DRY_RUN_COLUMNS = ('plan', 'action', 'operation', 'plan_created',
                   'environments', 'objects_added', 'objects_changed',
                   'renders')


class StackCommand(overcloud_plan.PlanCommand, command.ShowOne):
    """Shared by deploy, update and upgrade: one recorded stack step."""

    action = None

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--stack', '--plan', dest='stack',
                            metavar='<name>', default='overcloud',
                            help='Stack (and plan) name (default overcloud).')
        overcloud_plan.add_environment_options(parser)
        parser.add_argument(
            '--remove-environment', metavar='<file>', action='append',
            dest='remove_environments', default=[],
            help='Drop an environment file (local or plan path) from the '
                 'recorded list; may be repeated.')
        parser.add_argument(
            '--timeout', metavar='<minutes>', type=float, default=240,
            help='Heat stack timeout, and how long to wait for it '
                 '(default 240).')
        wait = parser.add_mutually_exclusive_group()
        wait.add_argument('--wait', dest='wait', action='store_true',
                          default=True,
                          help='Follow the stack to the end (default).')
        wait.add_argument('--no-wait', dest='wait', action='store_false',
                          help='Return once Heat accepted the operation; '
                               'the step is recorded IN_PROGRESS.')
        parser.add_argument('--dry-run', action='store_true',
                            help='Show what would change; change nothing.')
        parser.add_argument('-y', '--yes', action='store_true',
                            help='Do not ask for confirmation.')
        return parser

    def confirm(self, parsed_args):
        def ask(question):
            if parsed_args.yes:
                return True
            if not sys.stdin.isatty():
                raise exceptions.CommandError(
                    'No terminal to ask "%s": pass -y to go on. Nothing was '
                    'changed.' % question)
            answer = input('%s [y/N] ' % question)
            return answer.strip().lower() in ('y', 'yes')
        return ask

    def services(self, parsed_args):
        from tripleoplanclient import overcloud
        from tripleoplanclient import stack_events

        wrapper = self.app.client_manager.tripleoplan
        heat = wrapper.orchestration()
        # One Workflows for render and deploy: Mistral is checked once.
        workflows = self._workflows_once()
        return overcloud.Services(
            store=self.plan_store(), heat=heat,
            heat_url=wrapper.endpoint('orchestration'),
            swift_url=wrapper.endpoint('object-store'),
            workflows=workflows,
            renderer=self.renderer(parsed_args, workflows),
            follower=stack_events.StackFollower(heat, self.progress),
            progress=self.progress, confirm=self.confirm(parsed_args))

    def _workflows_once(self):
        made = []

        def get():
            if not made:
                made.append(self.workflows())
            return made[0]
        return get

    def plan_files(self, parsed_args, templates):
        from tripleoplanclient import environments
        files = environments.PlanFiles(templates)
        if getattr(parsed_args, 'templates', None):
            files.add_templates()
        overcloud_plan.collect_user_files(files, parsed_args)
        return files

    def removals(self, record, plan, files, parsed_args):
        if not parsed_args.remove_environments:
            return []
        from tripleoplanclient import plans
        if record is None:
            raise exceptions.CommandError(
                'Plan %s does not exist: nothing to remove an environment '
                'from. Nothing was changed.' % plan)
        return plans.resolve_removals(files, record['environments'],
                                      parsed_args.remove_environments)

    def take_action(self, parsed_args):
        from tripleoplanclient import overcloud
        from tripleoplanclient import plans

        plan = plans.check_name(parsed_args.stack)
        services = self.services(parsed_args)
        # Read once: -e paths are relative to the recorded templates.
        record = self.stored_record(services.store, plan)
        files = self.plan_files(
            parsed_args, getattr(parsed_args, 'templates', None) or
            (record or {}).get('templates'))
        remove = self.removals(record, plan, files, parsed_args)
        options = overcloud.Options(
            timeout=parsed_args.timeout, wait=parsed_args.wait,
            dry_run=parsed_args.dry_run,
            force=getattr(parsed_args, 'force', False))
        record, step = overcloud.run(
            services, options, self.action, plan, files, remove,
            stage=getattr(parsed_args, 'stage', None),
            with_templates=bool(getattr(parsed_args, 'templates', None)),
            record=record)
        if record is None:
            return self.dry_run_result(plan, step)
        overcloud.raise_if_failed(plan, step)
        return self.result(plan, step)

    def dry_run_result(self, plan, description):
        from osc_lib.cli import format_columns
        d = description
        return DRY_RUN_COLUMNS, (
            plan, self.action, d['operation'], d.get('plan_created', False),
            format_columns.ListColumn(d['environments']),
            len(d['objects_added']), len(d['objects_changed']), d['renders'])

    def result(self, plan, step):
        from osc_lib.cli import format_columns

        from tripleoplanclient import record as record_mod
        outcome = step['outcome']
        stack = step.get('stack') or {}
        envs = record_mod.heat_environments(step)
        self.progress('Stack %s: %s %s (step %d recorded).' % (
            plan, stack.get('operation'), outcome.get('stack_status'),
            step['id']))
        return RESULT_COLUMNS, (
            plan, step['id'], step['action'], stack.get('operation'),
            outcome.get('stack_id'), outcome.get('stack_status'),
            format_columns.ListColumn(envs),
            # Whether this command rendered, in its own step or in the
            # create step it began with.
            (step.get('render') or {}).get('state') == 'SUCCESS' or
            (step.get('plan_created') or {}).get('rendered', False),
            outcome['status'])

    def stored_record(self, store, plan):
        """The plan's record, or None: run() says what to do then."""
        try:
            return store.read_record(plan)
        except exceptions.CommandError:
            return None


class Deploy(StackCommand):
    _description = ('Create or update the overcloud stack from its plan '
                    '(creating or syncing the plan first)')
    action = 'deploy'

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--templates', metavar='<dir>',
            help='The templates tree; needed to create the plan, optional '
                 'later (only changed files are sent).')
        overcloud_plan.add_input_options(parser)
        parser.add_argument(
            '--force', action='store_true',
            help='Update the stack even when neither the plan nor the stack '
                 'changed since the last successful deploy.')
        parser.set_defaults(no_render=False)
        return parser


class _Lifecycle(StackCommand):
    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--stage', choices=('prepare', 'converge'), default='prepare',
            help='prepare (default): the recorded environments plus the '
                 'templates\' environments/lifecycle/<%s>-prepare.yaml; '
                 'converge: the recorded environments (plus <%s>-converge'
                 '.yaml when the templates have one).'
                 % (self.action, self.action))
        parser.set_defaults(no_render=False)
        return parser


class Update(_Lifecycle):
    _description = ('Update the overcloud stack with the recorded '
                    'environments plus the update lifecycle environment')
    action = 'update'


class Upgrade(_Lifecycle):
    _description = ('Upgrade the overcloud stack with the recorded '
                    'environments plus the upgrade lifecycle environment')
    action = 'upgrade'
