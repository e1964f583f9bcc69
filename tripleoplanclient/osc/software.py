"""``openstack software deployment trigger / watch / cancel``.

Heat's software-config-trigger: run one action (BACKUP...) of a config on
a server, follow it, cancel it. python-heatclient owns the other
``software deployment`` commands. Loaded on every ``openstack`` run:
standard library, cliff and osc-lib only at module level.
"""

from osc_lib.command import command
from osc_lib import exceptions

from tripleoplanclient.osc import base
from tripleoplanclient.osc import exit_status

COLUMNS = ('id', 'name', 'server_id', 'action', 'status', 'status_reason',
           'config_id', 'signal_transport', 'signal', 'deploy_status_code',
           'deploy_stdout', 'deploy_stderr', 'outputs')


class DeploymentCommand(exit_status.ResultCommand, command.ShowOne):
    """Base: Heat and Swift clients, stderr progress, the exit status."""

    columns = COLUMNS

    def run(self, parsed_args):
        from tripleoplanclient.software import signals
        signals.redact_logs()
        return super().run(parsed_args)

    def known(self, parsed_args):
        found = super().known(parsed_args)
        if getattr(parsed_args, 'deployment', None):
            found['id'] = parsed_args.deployment
        return found

    def signals(self):
        from tripleoplanclient.software import signals
        return signals.SignalStore(self.clients.object_store,
                                   self.clients.endpoint('object-store'))

    def deployments(self, heat):
        from tripleoplanclient.software import deployments
        return deployments.Deployments(heat, self.signals(), self.progress)

    def result(self, deployment, config):
        """The columns of all three commands; outputs as a dict."""
        from osc_lib.cli import format_columns
        from tripleoplanclient.software import deployments
        from tripleoplanclient.software import heat_signal
        from tripleoplanclient.software import signals
        from tripleoplanclient.software import trigger
        values = deployment.get('output_values') or {}
        declared = [o['name'] for o in config.get('outputs') or []]
        transport = trigger.input_value(config, 'deploy_signal_transport')
        url = deployments.signal_url(config)
        if transport == trigger.HEAT_SIGNAL:
            path = heat_signal.signal_path(config)
            heat = self.clients.endpoint('orchestration')
            url = path and ('%s/%s' % (heat.rstrip('/'), path) if heat
                            else path)
        return COLUMNS, (
            deployment['id'], config.get('name'), deployment['server_id'],
            deployment['action'], deployment['status'],
            deployment.get('status_reason'), deployment['config_id'],
            transport, signals.public_url(url),
            values.get('deploy_status_code'), values.get('deploy_stdout'),
            values.get('deploy_stderr'),
            format_columns.DictColumn({n: values.get(n) for n in declared}))

    def follow(self, heat, deployment_id, parsed_args):
        """Watch to the end; sets the exit status from the final state."""
        from tripleoplanclient.software import deployments
        try:
            state, deployment, config = self.deployments(heat).watch(
                deployment_id, parsed_args.timeout * 60,
                parsed_args.interval)
        except KeyboardInterrupt:
            raise exit_status.Interrupted(
                'deployment %s goes on; follow it with "openstack software '
                'deployment watch %s".' % (deployment_id, deployment_id))
        self.exit_status = {deployments.COMPLETE: exit_status.DONE,
                            deployments.TIMEOUT: exit_status.TIMEOUT}.get(
                                state, exit_status.FAILED)
        return self.result(deployment, config)


def add_wait_options(parser, timeout_help):
    parser.add_argument(
        '--timeout', metavar='<minutes>', type=base.minutes, default=60,
        help=timeout_help)
    parser.add_argument(
        '--interval', metavar='<seconds>', type=base.seconds, default=2,
        help='Seconds between two looks at the deployment (default 2, '
             'from 0.1 to 3600).')


class Trigger(DeploymentCommand):
    _description = ('Run one action (e.g. BACKUP) of a software config or '
                    'SoftwareComponent on a server')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--server', metavar='<server>', required=True,
                            help='Server id; with --stack also a server '
                                 'resource name, or a node of its nested '
                                 'stacks by server name '
                                 '(overcloud-controller-0) or resource path '
                                 '(Controller/0).')
        parser.add_argument('--action', metavar='<action>', required=True,
                            help='The action to run, e.g. BACKUP: one a '
                                 'SoftwareComponent defines.')
        parser.add_argument('--stack', metavar='<stack>',
                            help='Stack holding --resource.')
        parser.add_argument('--resource', metavar='<resource>',
                            help='SoftwareComponent / software config '
                                 'resource, or a deployment resource, of '
                                 '--stack: its config is run.')
        parser.add_argument('--config', metavar='<config>',
                            help='Software config id or name to run '
                                 '(instead of --stack/--resource).')
        parser.add_argument(
            '--input-value', metavar='<key=value>', action='append',
            dest='input_values', default=[],
            help='Override an input the config declares; may be repeated. '
                 'Other inputs keep the value the stack gave this server, '
                 'else their default.')
        parser.add_argument(
            '--signal-transport', metavar='<transport>',
            default='TEMP_URL_SIGNAL', type=str.upper,
            choices=('TEMP_URL_SIGNAL', 'HEAT_SIGNAL', 'NO_SIGNAL'),
            help='TEMP_URL_SIGNAL (default): the server PUTs its outputs to '
                 'a Swift temp URL; HEAT_SIGNAL: the server signals a '
                 'resource of a stack made for this trigger, with '
                 'credentials of the stack user domain (needs Heat with '
                 'Keystone), and Heat fails the deployment after '
                 '--timeout; NO_SIGNAL: fire and forget, the deployment is '
                 'COMPLETE at once.')
        add_wait_options(
            parser, 'How long the signal URL stays valid, and how long '
                    '--wait waits, in minutes (default 60).')
        parser.add_argument(
            '--wait', action='store_true',
            help='Follow the deployment to its end, like "software '
                 'deployment watch".')
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient.software import resolve
        from tripleoplanclient.software import trigger

        by_stack = parsed_args.stack or parsed_args.resource
        if by_stack and parsed_args.config or not (
                parsed_args.config or (parsed_args.stack
                                       and parsed_args.resource)):
            raise exceptions.CommandError(
                'Give the config to run: --stack <stack> --resource '
                '<resource>, or --config <config> (not both).')
        heat = self.heat()
        resolver = resolve.Resolver(heat, self.progress)
        stack = resolver.stack(parsed_args.stack) if by_stack else None
        server_id = resolver.server(parsed_args.server, stack)
        if stack:
            source = resolver.from_stack(stack, parsed_args.resource,
                                         server_id)
        else:
            source = resolver.from_config(parsed_args.config, server_id)
        action = trigger.check_action(source, parsed_args.action)
        overrides = trigger.parse_input_values(
            parsed_args.input_values, source.config)
        deployment, _ = trigger.create(
            heat, self.signals(), source, action, server_id, overrides,
            parsed_args.signal_transport, parsed_args.timeout * 60,
            self.progress)
        self.changed({c: deployment.get(c) for c in (
            'id', 'server_id', 'action', 'status', 'config_id')})
        if parsed_args.wait:
            return self.follow(heat, deployment['id'], parsed_args)
        config = trigger.as_dict(
            heat.software_configs.get(deployment['config_id']))
        return self.result(deployment, config)


class Watch(DeploymentCommand):
    _description = ('Follow a software deployment until COMPLETE or FAILED '
                    'and show its outputs (exit 0 only on COMPLETE)')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('deployment', metavar='<deployment>',
                            nargs='?',
                            help='Software deployment id (or --server).')
        parser.add_argument('--server', metavar='<server>',
                            help='Watch the newest deployment of this '
                                 'server: its id; with --stack also a '
                                 'server resource name, or a node of its '
                                 'nested stacks by server name '
                                 '(overcloud-controller-0) or resource path '
                                 '(Controller/0), as trigger --server.')
        parser.add_argument('--stack', metavar='<stack>',
                            help='Stack holding --server.')
        add_wait_options(parser, 'Give up after this many minutes (default '
                                 '60); the deployment stays IN_PROGRESS.')
        return parser

    def take_action(self, parsed_args):
        heat = self.heat()
        deployment_id = parsed_args.deployment
        if bool(deployment_id) == bool(parsed_args.server) or (
                parsed_args.stack and not parsed_args.server):
            raise exceptions.CommandError(
                'Give the deployment to watch: its id, or --server <server> '
                '[--stack <stack>] for the newest deployment of a server '
                '(not both).')
        if parsed_args.server:
            from tripleoplanclient.software import resolve
            resolver = resolve.Resolver(heat, self.progress)
            stack = parsed_args.stack and resolver.stack(parsed_args.stack)
            deployment_id = resolver.newest_deployment(
                resolver.server(parsed_args.server, stack),
                parsed_args.server)
        return self.follow(heat, deployment_id, parsed_args)


class Cancel(DeploymentCommand):
    _description = ('Mark an IN_PROGRESS software deployment FAILED and '
                    'make a late signal harmless')
    exit_status = exit_status.DONE   # FAILED is what was asked

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('deployment', metavar='<deployment>',
                            help='Software deployment id.')
        parser.add_argument('--reason', metavar='<text>',
                            help='Why: kept in the status reason.')
        return parser

    def take_action(self, parsed_args):
        deployment, config = self.deployments(self.heat()).cancel(
            parsed_args.deployment, parsed_args.reason)
        return self.result(deployment, config)
