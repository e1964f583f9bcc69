"""``openstack overcloud failures``: every failed resource of the stack and
its nested stacks, with the stderr of failed software deployments, and the
failed Ansible tasks of the servers' configuration (per host and task).

Loaded on every ``openstack`` run: standard library, cliff and osc-lib
only at module level (see ``base``).
"""

from osc_lib.command import command

from tripleoplanclient.osc import base
from tripleoplanclient.osc import exit_status


class ShowFailures(base.Command, command.Lister):
    _description = ('List the failed resources of a stack and its nested '
                    'stacks, with the stderr of failed software '
                    'deployments (exit 0 whether or not there are any)')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        base.add_stack_option(parser)
        return parser

    def run(self, parsed_args):
        from tripleoplanclient.stack import failures
        try:
            return super().run(parsed_args)
        except failures.StackNotFound as exc:
            # the empty list still parses (-f json); the status tells
            self.error(str(exc))
            self.produce_output(parsed_args, failures.COLUMNS, [])
            return exit_status.REFUSED   # nothing to look at

    def take_action(self, parsed_args):
        from tripleoplanclient.stack import failures
        rows = failures.failures(self.heat(), parsed_args.stack)
        self.progress('%d failed resource(s) in stack %s and its nested '
                      'stacks.' % (len(rows), parsed_args.stack))
        found = failures.ansible(self.newest_stack_step(parsed_args.stack))
        if found:
            self.progress('%d Ansible failure(s) in the configuration of '
                          'its servers.' % len(found))
        return failures.COLUMNS, (tuple(row[c] for c in failures.COLUMNS)
                                  for row in rows + found)

    def newest_stack_step(self, plan):
        """The history row of the plan's newest stack step (None: no plan
        or no such step); its configuration's failures are listed too."""
        from osc_lib import exceptions

        from tripleoplanclient.plan import layout
        try:
            head = self.plan_store(read_only=True).reader.head(
                layout.check_name(plan), required=False)
        except exceptions.CommandError as exc:
            self.progress('The configuration\'s failures are not listed: '
                          '%s' % exc)
            return None
        step_id = head.state.get('stack') if head else None
        return next((r for r in reversed(head.rows or ())
                     if r['id'] == step_id), None) if step_id else None
