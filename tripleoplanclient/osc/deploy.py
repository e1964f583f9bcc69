"""``openstack overcloud deploy / update / upgrade``.

Loaded on every ``openstack`` run: standard library, cliff and light
osc-lib modules only at module level (see ``base``).
"""

import sys

from osc_lib.command import command
from osc_lib import exceptions

from tripleoplanclient.osc import base
from tripleoplanclient.osc import defaults
from tripleoplanclient.osc import exit_status
from tripleoplanclient.osc import hooks

RESULT_COLUMNS = ('plan', 'id', 'action', 'operation', 'stack_id',
                  'stack_status', 'environments', 'rendered',
                  'config_status', 'status', 'validations', 'reason')
# "overcloud <action> preview": what the step would change, then Heat's
# preview (stack.preview.COLUMNS).
PREVIEW_COLUMNS = ('plan', 'action', 'operation', 'plan_created',
                   'templates', 'environments', 'environments_added',
                   'environments_removed', 'objects_added', 'objects_changed',
                   'objects_removed', 'files_changed', 'renders')


class StackCommand(exit_status.ResultCommand, command.ShowOne):
    """Shared by deploy, update and upgrade: one recorded stack step."""

    action = None
    columns = RESULT_COLUMNS
    # sleep and clock of the stack's follower (a test's FakeClock)
    waiting = {}
    # "overcloud <action> preview" (osc.preview): the preview's table;
    # none of the options of a run (--wait, --no-wait, --dry-run, -y).
    preview_only = False
    templates_help = (
        'A templates tree (a tripleo-heat-templates release) to move the '
        'plan to first: new and changed files are written, files the tree '
        'lacks are removed from the plan (user files stay), in one pass.')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        base.add_stack_option(parser)
        defaults.add_templates_option(parser, self.templates_help)
        base.add_environment_options(parser)
        defaults.add_environment_directory_option(parser, defaults=True)
        base.add_remove_option(parser)
        parser.add_argument(
            '-t', '--timeout', metavar='<minutes>', type=base.stack_minutes,
            default=240,
            help='Heat stack timeout, and how long to wait for it, in '
                 'minutes (default 240).')
        if self.preview_only:
            parser.set_defaults(dry_run=True, wait=False, yes=False,
                                config='none', run_validations=False)
        else:
            self.add_run_options(parser)
            self.add_config_options(parser)
            hooks.add_options(parser, self.action)
        parser.add_argument(
            '--no-validate', dest='validate', action='store_false',
            help='Do not check the plan before Heat is asked (the checks '
                 'of "overcloud plan validate": required parameters without '
                 'value, mutually exclusive or missing required '
                 'environments); Heat still validates the templates.')
        parser.set_defaults(no_render=False)
        return parser

    @staticmethod
    def add_run_options(parser):
        base.add_wait_options(
            parser, 'Follow the stack to the end', 'Return once Heat '
            'accepted the operation; the step is recorded IN_PROGRESS.')
        parser.add_argument(
            '--dry-run', action='store_true',
            help='Change nothing: print the row the command would print '
                 '(status DRY_RUN, no step id), what would change and '
                 'Heat\'s preview on stderr. The full preview table: '
                 '"overcloud <command> preview".')
        base.add_yes_option(parser)

    @staticmethod
    def add_config_options(parser):
        """How the servers are configured after Heat (config-download),
        in tripleoclient's words."""
        mode = parser.add_mutually_exclusive_group()
        mode.add_argument(
            '--stack-only', dest='config', action='store_const',
            const='none', default='auto',
            help='Only create or update the stack: no configuration is '
                 'downloaded or applied to the servers.')
        mode.add_argument(
            '--config-download-only', dest='config', action='store_const',
            const='only',
            help='Do not ask Heat: configure the servers of the stack as '
                 'it is (a step that changes the plan is refused).')
        mode.add_argument(
            '--setup-only', dest='config', action='store_const',
            const='setup',
            help='Create or update the stack and keep its configuration '
                 'with the step ("overcloud config download"), without '
                 'running Ansible.')
        parser.add_argument(
            '--tags', metavar='<tag,...>', type=base.comma_list,
            help='Run only the tasks of these Ansible tags (comma '
                 'separated; ansible-playbook --tags).')
        parser.add_argument(
            '--skip-tags', metavar='<tag,...>', type=base.comma_list,
            help='Skip the tasks of these Ansible tags (comma separated; '
                 'ansible-playbook --skip-tags).')
        parser.add_argument(
            '--limit', metavar='<hosts>',
            help='Configure only these hosts or groups (ansible-playbook '
                 '--limit; e.g. "Controller,overcloud-novacompute-0").')
        parser.add_argument(
            '--ansible-forks', metavar='<n>', type=base.count,
            help='How many hosts Ansible configures at once '
                 '(ansible-playbook --forks).')
        parser.add_argument(
            '--config-download-timeout', metavar='<minutes>',
            type=base.minutes, default=240,
            help='How long the configuration of the servers may take, '
                 'and how long to wait for it, in minutes (default 240).')

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
            recorder=self.recorder(parsed_args, workflows),
            follower=events.StackFollower(heat, self.progress,
                                          **self.waiting),
            progress=self.progress, config_waiting=self.waiting)

    def take_action(self, parsed_args):
        from tripleoplanclient.plan import layout
        from tripleoplanclient.record import sources
        from tripleoplanclient.stack import operations

        plan = layout.check_name(parsed_args.stack)
        pre = hooks.check(parsed_args, self.action, self.progress)
        services = self.services(parsed_args)
        templates = getattr(parsed_args, 'templates', None)
        # Read once: -e paths are relative to the recorded templates.
        listed, history = operations.read_record(services.store, plan)
        recorded = history[1].state['templates'] if history[1] else None
        files = base.plan_files(parsed_args, templates or recorded,
                                with_tree=bool(templates),
                                origin=self.origin(plan),
                                progress=self.progress)
        prepared = operations.prepare(
            services, self.action, plan, files,
            parsed_args.remove_environments,
            stage=getattr(parsed_args, 'stage', None),
            with_templates=bool(templates), listed=listed, history=history)
        for line in sources.told(prepared.unread):
            self.progress(line)
        options = operations.Options(
            timeout=parsed_args.timeout, wait=parsed_args.wait,
            force=getattr(parsed_args, 'force', False),
            validate=parsed_args.validate, config=parsed_args.config,
            tags=getattr(parsed_args, 'tags', None),
            skip_tags=getattr(parsed_args, 'skip_tags', None),
            limit=getattr(parsed_args, 'limit', None),
            forks=getattr(parsed_args, 'ansible_forks', None),
            config_timeout=getattr(parsed_args, 'config_download_timeout',
                                   240))
        if parsed_args.dry_run:
            return self.dry_run(plan, services, options, prepared)
        if self.action == 'deploy':
            for path in prepared.resent:
                self.progress('%s: its local source changed since it was '
                              'last read; sending it again.' % path)
        else:
            lines = prepared.differences()
            if not parsed_args.yes and sys.stdin.isatty():
                # The question comes with Heat's answer to it.
                lines += self.preview_lines(services, options, prepared)
            for line in lines:
                self.progress(line)
            if not self.confirm('Run the %s of stack %s?'
                                % (self.action, plan), parsed_args.yes):
                raise exceptions.CommandError(
                    'Not confirmed: nothing was changed.')
        if pre:
            # after the question (a script without -y is refused first),
            # before anything is written
            options.validations = hooks.before(
                self, services.workflows, self.action, plan,
                services.swift_url, services.heat_url)
        from tripleoplanclient.stack import execution
        try:
            step = execution.execute(
                services, options, prepared, recorded=lambda step: (
                    self.changed(step and dict(zip(RESULT_COLUMNS,
                                                   self.row(plan, step))))))
        except KeyboardInterrupt:
            raise exit_status.Interrupted(
                'what Heat was asked goes on; see "openstack overcloud plan '
                'show-history %s" and "openstack stack show %s".'
                % (plan, plan)) from None
        message = execution.problem(plan, step)
        if message:
            self.error(message)
        if getattr(parsed_args, 'run_post_validations', False):
            step['validations'] = list(step.get('validations') or []) + \
                hooks.after(self, services.workflows, self.action, plan,
                            step['id'],
                            step['outcome']['status'] == 'SUCCESS',
                            services.swift_url, services.heat_url,
                            services.store.writer)
        return self.result(plan, step)

    def known(self, parsed_args):
        return dict(super().known(parsed_args), plan=parsed_args.stack)

    def preview_lines(self, services, options, prepared):
        from tripleoplanclient.stack import operations
        from tripleoplanclient.stack import preview
        try:
            result = operations.preview(services, options, prepared)
        except exceptions.CommandError as exc:
            return ['Heat\'s preview is not available: %s' % exc]
        return preview.summary_lines(result) if result else []

    def dry_run(self, plan, services, options, prepared):
        """What the step would change in the plan, then Heat's preview, on
        stderr; the command's own row (status DRY_RUN), or the preview
        table for "overcloud <action> preview"."""
        from osc_lib.cli import format_columns

        from tripleoplanclient.stack import operations
        from tripleoplanclient.stack import preview

        d = operations.describe(
            prepared, renders_on_create=services.renderer is not None)
        if not prepared.creates_plan:
            for line in prepared.differences():
                self.progress(line)
        result = operations.preview(services, options, prepared)
        if result is None:
            self.progress('Plan %s does not exist yet: Heat can preview its '
                          'stack once it does ("openstack overcloud plan '
                          'create", then this command again).' % plan)
            names, values = preview.columns({'operation': d['operation']})
            values = values[:-1] + ('not asked: no plan yet',)
        else:
            for line in preview.summary_lines(result):
                self.progress(line)
            names, values = preview.columns(result)
        lists = format_columns.ListColumn
        if not self.preview_only:
            # What a run would print, as far as known before it runs.
            stack = prepared.stack
            return RESULT_COLUMNS, (
                plan, None, self.action,
                (result or {}).get('operation') or d['operation'],
                getattr(stack, 'id', None),
                getattr(stack, 'stack_status', None),
                lists(d['environments']), False, None, 'DRY_RUN',
                hooks.column(None), None)
        return PREVIEW_COLUMNS + names, (
            plan, self.action, d['operation'], d['plan_created'],
            d['templates'], lists(d['environments']),
            lists(d['environments_added']), lists(d['environments_removed']),
            len(d['objects_added']), len(d['objects_changed']),
            len(d['objects_removed']), lists(d['files_changed']),
            d['renders']) + values

    def result(self, plan, step):
        self.progress('Stack %s: %s (step %s recorded).' % (
            plan, step['outcome'].get('stack_status') or (
                step.get('stack') or {}).get('operation'), step['id']))
        return RESULT_COLUMNS, self.row(plan, step)

    @staticmethod
    def row(plan, step):
        """The RESULT_COLUMNS of a step (also the plan create step a
        deploy begins with, while it is all that is known)."""
        from tripleoplanclient.osc import plan_step
        from tripleoplanclient.record import log
        from tripleoplanclient.stack import failures
        outcome = step['outcome']
        stack = step.get('stack') or {}
        envs = log.heat_environments(dict(
            step, environments=step['state']['environments']))
        return (
            plan, step['id'], step['action'], stack.get('operation'),
            outcome.get('stack_id'), outcome.get('stack_status'),
            # a table names the user's files as given
            plan_step.environment_columns(envs, step.get('names'))[0],
            # Whether this command rendered, in its own step or in the
            # create step it began with.
            (step.get('render') or {}).get('state') == 'SUCCESS' or
            (step.get('plan_created') or {}).get('rendered', False),
            outcome.get('config_status'), outcome['status'],
            hooks.column(step.get('validations')),
            exit_status.reason(failures.reason(step)))


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
        base.add_input_options(parser, directory=False)
        parser.add_argument(
            '--force', action='store_true',
            help='Update the stack even when neither the plan nor the stack '
                 'changed since the last successful deploy.')
        return parser


class _Lifecycle(StackCommand):
    # None: the stage is an option (--stage), else the command's own.
    stage = None

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        if self.stage is not None:
            parser.set_defaults(stage=self.stage)
            return parser
        parser.add_argument(
            '--stage', choices=('prepare', 'converge'), default='prepare',
            help='"--stage prepare" (the default) is "overcloud %s '
                 'prepare": the recorded environments plus the templates\' '
                 'environments/lifecycle/%s-prepare.yaml; "--stage '
                 'converge" is "overcloud %s converge": the recorded '
                 'environments (plus %s-converge.yaml when the templates '
                 'have one).' % ((self.action,) * 4))
        return parser


class Update(_Lifecycle):
    _description = ('Update the overcloud stack with the recorded '
                    'environments plus the update lifecycle environment')
    action = 'update'


class UpdatePrepare(Update):
    _description = ('Update the overcloud stack with the recorded '
                    'environments plus the templates\' '
                    'environments/lifecycle/update-prepare.yaml')
    stage = 'prepare'


class UpdateConverge(Update):
    _description = ('Update the overcloud stack with the recorded '
                    'environments (plus the templates\' '
                    'environments/lifecycle/update-converge.yaml when they '
                    'have one)')
    stage = 'converge'


class Upgrade(_Lifecycle):
    _description = ('Upgrade the overcloud stack with the recorded '
                    'environments plus the upgrade lifecycle environment')
    action = 'upgrade'


class UpgradePrepare(Upgrade):
    _description = ('Upgrade the overcloud stack with the recorded '
                    'environments plus the templates\' '
                    'environments/lifecycle/upgrade-prepare.yaml')
    stage = 'prepare'


class UpgradeConverge(Upgrade):
    _description = ('Upgrade the overcloud stack with the recorded '
                    'environments (plus the templates\' '
                    'environments/lifecycle/upgrade-converge.yaml when they '
                    'have one)')
    stage = 'converge'
