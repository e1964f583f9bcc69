"""``overcloud node delete``: servers taken out of the plan's stack by
name, node or ``Role/index`` (``mistral.node_delete``): their removal
policies and the roles' lower counts recorded as one update step, the
stack updated (and configured) by the deploy workflow, their nodes
released.

python-tripleoclient's forms: ``NODE...``, ``-b/--baremetal-deployment``
(the instances marked ``provisioned: false``), ``--stack``, ``--timeout``
(minutes), ``-y``. Loaded on every ``openstack`` run: standard library,
cliff and osc-lib only at module level.
"""

from osc_lib.command import command
from osc_lib import exceptions

from tripleoplanclient.osc import base
from tripleoplanclient.osc import exit_status

COLUMNS = ('plan', 'servers', 'step', 'execution', 'status', 'reason')


class DeleteNode(exit_status.ResultCommand, command.ShowOne):
    _description = ('Delete servers from the plan\'s stack (hostnames, '
                    'nodes provisioned into the plan, or Role/index): the '
                    'plan records their removal policies and lower counts '
                    'as one update step, every other server keeps its '
                    'name, index and address, and their nodes are '
                    'released')
    columns = COLUMNS

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'nodes', metavar='<node>', nargs='*',
            help='A server\'s hostname, a node provisioned into the plan '
                 '(name or UUID), or Role/index (e.g. Compute/1).')
        parser.add_argument(
            '-b', '--baremetal-deployment', metavar='<baremetal_deployment'
            '.yaml>', help='Delete the instances this file marks '
                           'provisioned: false.')
        base.add_stack_option(parser)
        parser.add_argument(
            '--timeout', metavar='<minutes>', type=base.stack_minutes,
            default=240,
            help='Heat stack timeout of the update, in minutes (default '
                 '240).')
        parser.add_argument(
            '--config-download-timeout', metavar='<minutes>',
            type=base.minutes, default=240,
            help='How long the configuration of the servers may take, in '
                 'minutes (default 240).')
        parser.add_argument(
            '--stack-only', dest='config', action='store_const',
            const='none', default='auto',
            help='Only update the stack: no configuration of the servers.')
        parser.add_argument(
            '--no-provide', dest='provide', action='store_false',
            help='Leave the released nodes manageable (default: '
                 'available).')
        base.add_wait_options(
            parser, 'Wait for the update and the release', 'Return once the '
            'plan\'s environment is written; the update goes on in '
            'Mistral.')
        base.add_yes_option(parser)
        return parser

    def known(self, parsed_args):
        return {'plan': parsed_args.stack}

    def names(self, parsed_args):
        names = list(parsed_args.nodes)
        if parsed_args.baremetal_deployment:
            from tripleoplanclient.common import content
            from tripleoplanclient.nodes import baremetal_file

            path = parsed_args.baremetal_deployment
            roles = baremetal_file.read(content.load_yaml(
                base.read_file(path, 'Nothing was changed.'), path,
                loader=content.PlainLoader,
                max_bytes=content.MAX_BAREMETAL_FILE_BYTES), path)
            names += [i['hostname'] for r in roles for i in r['instances']
                      if not i['provisioned'] and i['hostname']]
        if not names:
            raise exceptions.CommandError(
                'Name the servers to delete (hostnames, nodes or '
                'Role/index), or give -b with instances marked '
                'provisioned: false. Nothing was changed.')
        return list(dict.fromkeys(names))

    def take_action(self, parsed_args):
        from tripleoplanclient.plan import layout
        from tripleoplanclient.workflows import nodes

        plan = layout.check_name(parsed_args.stack)
        names = self.names(parsed_args)
        if not self.confirm('Delete %s from stack %s?' % (
                ', '.join(names), plan), parsed_args.yes):
            raise exceptions.CommandError('Nothing was changed.')
        workflows = self.workflows()
        found = nodes.delete(
            workflows, plan, names, int(max(1, round(parsed_args.timeout))),
            int(max(1, round(parsed_args.config_download_timeout))),
            parsed_args.wait, started=self.changed,
            provide=parsed_args.provide, config=parsed_args.config,
            ironic_url=self.clients.endpoint('baremetal'),
            swift_url=self.clients.endpoint('object-store'),
            heat_url=self.clients.endpoint('orchestration'),
            command=self.command_line())
        step = found.step or {}
        if step.get('id'):
            self.progress('Plan %s: step %s recorded (%s); %s.' % (
                plan, step['id'], step['action'], found.status))
        if found.status == 'TIMEOUT':
            self.error('%s: "openstack workflow execution show %s".' % (
                found.reason, found.execution))
        reason = found.reason
        if reason is None and step.get('id') and found.status not in (
                'SUCCESS', 'IN_PROGRESS'):
            reason = self.step_reason(plan, step['id'])
        return COLUMNS, (plan, found.rows, step.get('id'), found.execution,
                         found.status, exit_status.reason(reason))

    def step_reason(self, plan, step_id):
        """Why the update step did not succeed, as its outcome object
        records it (None: not recorded)."""
        from tripleoplanclient.record import log
        from tripleoplanclient.stack import failures

        name = log.outcome_path(step_id)
        data = self.plan_store(read_only=True).container.get(plan, name)
        if data is None:
            return None
        return failures.reason(log.load_outcome(data, name, plan))
