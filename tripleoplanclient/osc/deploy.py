"""``openstack overcloud deploy / update / upgrade``.

Loaded on every ``openstack`` run: standard library, cliff and light
osc-lib modules only at module level (see ``base``).
"""

from osc_lib.command import command
from osc_lib import exceptions

from tripleoplanclient.osc import base

RESULT_COLUMNS = ('plan', 'id', 'action', 'operation', 'stack_id',
                  'stack_status', 'environments', 'rendered', 'status')
DRY_RUN_COLUMNS = ('plan', 'action', 'operation', 'plan_created',
                   'environments', 'objects_added', 'objects_changed',
                   'renders')


class StackCommand(base.Command, command.ShowOne):
    """Shared by deploy, update and upgrade: one recorded stack step."""

    action = None
    templates_help = (
        'A templates tree (a tripleo-heat-templates release) to move the '
        'plan to first: new and changed files are written, files the tree '
        'lacks are removed from the plan (user files stay), in one pass.')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--stack', '--plan', dest='stack',
                            metavar='<name>', default='overcloud',
                            help='Stack (and plan) name (default overcloud).')
        parser.add_argument(
            '--templates', metavar='<dir>', help=self.templates_help)
        base.add_environment_options(parser)
        base.add_remove_option(parser)
        parser.add_argument(
            '--timeout', metavar='<minutes>', type=base.minutes, default=240,
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
        base.add_yes_option(parser)
        parser.set_defaults(no_render=False)
        return parser

    def services(self, parsed_args):
        from tripleoplanclient.stack import events
        from tripleoplanclient.stack import operations

        heat = self.clients.orchestration()
        # One Workflows for render and deploy: Mistral is checked once.
        workflows = self.workflows()
        return operations.Services(
            store=self.plan_store(read_only=parsed_args.dry_run), heat=heat,
            heat_url=self.clients.endpoint('orchestration'),
            swift_url=self.clients.endpoint('object-store'),
            workflows=workflows,
            renderer=self.renderer(parsed_args, workflows),
            follower=events.StackFollower(heat, self.progress),
            progress=self.progress)

    def take_action(self, parsed_args):
        from tripleoplanclient.plan import layout
        from tripleoplanclient.stack import operations

        plan = layout.check_name(parsed_args.stack)
        services = self.services(parsed_args)
        templates = getattr(parsed_args, 'templates', None)
        # Read once: -e paths are relative to the recorded templates.
        listed = services.store.listing(plan)
        history = operations.read_history(services.store, plan, listed)
        recorded = history[1].state['templates'] if history[1] else None
        files = base.plan_files(parsed_args, templates or recorded,
                                with_tree=bool(templates))
        prepared = operations.prepare(
            services, self.action, plan, files,
            parsed_args.remove_environments,
            stage=getattr(parsed_args, 'stage', None),
            with_templates=bool(templates), listed=listed, history=history)
        if parsed_args.dry_run:
            return self.dry_run_result(plan, operations.describe(
                prepared, renders_on_create=services.renderer is not None))
        if self.action != 'deploy':
            for line in prepared.differences():
                self.progress(line)
            if not self.confirm('Run the %s of stack %s?'
                                % (self.action, plan), parsed_args.yes):
                raise exceptions.CommandError(
                    'Not confirmed: nothing was changed.')
        options = operations.Options(
            timeout=parsed_args.timeout, wait=parsed_args.wait,
            force=getattr(parsed_args, 'force', False))
        step = operations.execute(services, options, prepared)
        operations.raise_if_failed(plan, step)
        return self.result(plan, step)

    def dry_run_result(self, plan, description):
        from osc_lib.cli import format_columns
        d = description
        return DRY_RUN_COLUMNS, (
            plan, self.action, d['operation'], d['plan_created'],
            format_columns.ListColumn(d['environments']),
            len(d['objects_added']), len(d['objects_changed']), d['renders'])

    def result(self, plan, step):
        from osc_lib.cli import format_columns

        from tripleoplanclient.plan import record as record_mod
        outcome = step['outcome']
        stack = step.get('stack') or {}
        envs = record_mod.heat_environments(dict(
            step, environments=step['state']['environments']))
        self.progress('Stack %s: %s %s (step %s recorded).' % (
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


class Deploy(StackCommand):
    _description = ('Create or update the overcloud stack from its plan '
                    '(creating or syncing the plan first)')
    action = 'deploy'

    templates_help = (
        'The templates tree; needed to create the plan, optional later '
        '(only changed files are sent; files the tree lacks are removed '
        'from the plan).')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        base.add_input_options(parser)
        parser.add_argument(
            '--force', action='store_true',
            help='Update the stack even when neither the plan nor the stack '
                 'changed since the last successful deploy.')
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
        return parser


class Update(_Lifecycle):
    _description = ('Update the overcloud stack with the recorded '
                    'environments plus the update lifecycle environment')
    action = 'update'


class Upgrade(_Lifecycle):
    _description = ('Upgrade the overcloud stack with the recorded '
                    'environments plus the upgrade lifecycle environment')
    action = 'upgrade'
