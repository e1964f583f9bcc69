"""overcloud profiles list: every node with its profiles, from Ironic
alone (no Nova), through our profiles_list workflow."""

from osc_lib.command import command

from tripleoplanclient.osc import base

COLUMNS = ('uuid', 'name', 'provision_state', 'current_profile',
           'possible_profiles')


class ListProfiles(base.Command, command.Lister):
    _description = ('List nodes with their current profile (capability '
                    'profile:<name>) and the profiles their capabilities '
                    'allow (<name>_profile:true)')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--all', action='store_true',
            help='Every node, not only the available and active ones '
                 'outside maintenance.')
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient.workflows import nodes
        found = nodes.profiles(self.workflows(), parsed_args.all,
                               self.clients.endpoint('baremetal'))
        return COLUMNS, [tuple(row.get(c) for c in COLUMNS)
                         for row in found.rows]
