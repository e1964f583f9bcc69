"""``openstack overcloud credentials``: the overcloud's admin rc file
(``<stack>rc``, as tripleoclient names it) from the plan's stack and
passwords (``stack.credentials``); the row names the file, never the
password.

Loaded on every ``openstack`` run: standard library, cliff and osc-lib
only at module level (see ``base``).
"""

from osc_lib.command import command

from tripleoplanclient.osc import base
from tripleoplanclient.osc import exit_status

COLUMNS = ('plan', 'file', 'auth_url', 'region', 'status')


class CreateCredentials(exit_status.ResultCommand, base.Command,
                        command.ShowOne):
    _description = ("Write the overcloud's admin rc file (<plan>rc, mode "
                    "0600) from the plan's stack outputs and its "
                    "AdminPassword")

    columns = COLUMNS

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('plan', metavar='<plan>',
                            help='Plan (and stack) name, e.g. overcloud.')
        parser.add_argument(
            '--directory', metavar='<directory>', default='.', nargs='?',
            help='Where to write <plan>rc (default: the current '
                 'directory); an older file there is replaced.')
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient.plan import layout
        from tripleoplanclient.stack import credentials

        plan = layout.check_name(parsed_args.plan)
        written = credentials.overcloudrc(
            self.heat(), self.plan_store(read_only=True).container, plan,
            parsed_args.directory or '.')
        self.progress('Wrote %s (mode 0600): "source %s" to use the '
                      'overcloud as its admin.' % (written['file'],
                                                   written['file']))
        return COLUMNS, tuple(dict(written, status='SUCCESS')[c]
                              for c in COLUMNS)
