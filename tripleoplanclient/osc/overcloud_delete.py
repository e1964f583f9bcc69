"""``overcloud delete``: the plan's record exported to a file first, then
the stack deleted and waited for, then the plan deleted (or kept with the
delete on record), the nodes provisioned into it released when asked
(``mistral.overcloud_delete``).

python-tripleoclient's forms: ``STACK`` (or ``--stack``), ``-y``; ours:
``--keep-plan``, ``--unprovision``, ``--no-export``, ``--export-file``,
``--wait/--no-wait``, ``--timeout`` (minutes). Loaded on every
``openstack`` run: standard library, cliff and osc-lib only at module
level.
"""

import os
import time

from osc_lib.command import command
from osc_lib import exceptions

from tripleoplanclient.osc import base
from tripleoplanclient.osc import exit_status

COLUMNS = ('plan', 'export_file', 'stack_status', 'plan_status', 'nodes',
           'execution', 'status', 'reason')


class DeleteOvercloud(exit_status.ResultCommand, command.ShowOne):
    _description = ('Delete an overcloud: its plan exported to a file '
                    'first, its stack deleted and waited for, then its '
                    'plan deleted (or kept with the delete on record) and '
                    'with --unprovision its nodes released')
    columns = COLUMNS

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('name', metavar='<stack>', nargs='?',
                            help='Stack (and plan) name (default '
                                 'overcloud, or --stack).')
        base.add_stack_option(parser)
        parser.add_argument(
            '--keep-plan', action='store_true',
            help='Keep the plan, with a step recording the delete.')
        parser.add_argument(
            '--unprovision', action='store_true',
            help='Release the nodes provisioned into the plan once the '
                 'stack is gone (available).')
        export = parser.add_mutually_exclusive_group()
        export.add_argument(
            '--no-export', dest='export', action='store_false',
            help='Do not export the plan first.')
        export.add_argument(
            '--export-file', metavar='<file>',
            help='Where the plan\'s export goes (default ./overcloud-'
                 'delete-<stack>-<UTC time>.tar.gz; an existing file is '
                 'refused).')
        parser.add_argument(
            '--timeout', metavar='<minutes>', type=base.stack_minutes,
            default=240,
            help='How long the delete may take, in minutes (default 240).')
        base.add_wait_options(
            parser, 'Wait until the stack is gone and the plan and nodes '
            'are done', 'Return once Heat was asked; the rest goes on in '
            'Mistral.')
        base.add_yes_option(parser)
        return parser

    def known(self, parsed_args):
        return {'plan': parsed_args.name or parsed_args.stack}

    def export(self, plan, output):
        """The plan's export written to ``output`` (``plan export``'s
        tarball): refused, nothing changed, when it cannot be."""
        from tripleoplanclient.osc import plan as plan_cmd
        from tripleoplanclient.plan import export
        from tripleoplanclient.plan import layout

        output = os.path.abspath(output)
        if os.path.exists(output):
            raise exceptions.CommandError(
                'Export file %s exists: give another --export-file (or '
                '--no-export). Nothing was changed.' % output)
        store = self.plan_store(read_only=True)
        headers, listing = store.container.listing(plan)
        if listing is None or not layout.is_plan(headers):
            raise exceptions.CommandError(
                'Plan %s does not exist; see "openstack overcloud plan '
                'list". Nothing was changed.' % plan)
        members = list(listing) + list(store.container.unsafe(plan))
        try:
            plan_cmd.write_atomically(output, lambda f: export.export(
                store.container, plan, members, f))
        except OSError as exc:
            raise exceptions.CommandError(
                'Cannot write the export %s (%s). Nothing was changed.' % (
                    output, exc.strerror))
        self.progress('Plan %s exported to %s.' % (plan, output))
        return output

    def take_action(self, parsed_args):
        from tripleoplanclient.plan import layout
        from tripleoplanclient.workflows import overclouds

        plan = layout.check_name(parsed_args.name or parsed_args.stack)
        if not self.confirm('Delete stack %s%s?' % (plan, (
                '' if parsed_args.keep_plan else ' and its plan') + (
                ' and release its nodes' if parsed_args.unprovision
                else '')), parsed_args.yes):
            raise exceptions.CommandError('Nothing was changed.')
        output = None
        if parsed_args.export:
            output = self.export(plan, parsed_args.export_file or
                                 'overcloud-delete-%s-%s.tar.gz' % (
                                     plan, time.strftime('%Y%m%dT%H%M%SZ',
                                                         time.gmtime())))
            self.fields['export_file'] = output
        found = overclouds.delete(
            self.workflows(), plan, int(max(1, round(parsed_args.timeout))),
            parsed_args.wait, started=self.changed,
            keep_plan=parsed_args.keep_plan,
            unprovision=parsed_args.unprovision,
            ironic_url=self.clients.endpoint('baremetal')
            if parsed_args.unprovision else None,
            swift_url=self.clients.endpoint('object-store'),
            heat_url=self.clients.endpoint('orchestration'),
            command=self.command_line())
        if found.status == 'TIMEOUT':
            self.error('%s: "openstack workflow execution show %s".' % (
                found.reason, found.execution))
        elif found.reason:
            self.error('Stack %s: %s' % (plan, found.reason))
        return COLUMNS, (plan, output, found.stack_status, found.plan,
                         found.nodes, found.execution, found.status,
                         exit_status.reason(found.reason)
                         if found.status != 'SUCCESS' else None)
