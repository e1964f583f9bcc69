"""overcloud node manage|clean, overcloud node bios configure|reset,
overcloud raid create: nodes made manageable, or cleaned by Ironic's
manual cleaning with an operation's clean steps, by our Mistral workflows
(``workflows.fleet``); a row per node, the exit status as
``node_states`` tells it.
"""

import os

from osc_lib import exceptions

from tripleoplanclient.osc import node_states

# a configuration file or text: far above any real BIOS or RAID one
MAX_CONFIGURATION = 1024 * 1024


def configuration(value, option):
    """A JSON or YAML configuration, given inline or as a file name (as
    tripleoclient takes it); YAML without anchors or aliases, bounded.
    CommandError naming ``option``."""
    from tripleoplanclient.common import content
    if os.path.isfile(value):
        from tripleoplanclient.osc import base
        name = value
        if os.path.getsize(value) > MAX_CONFIGURATION:
            raise exceptions.CommandError(
                '%s %s is more than %d bytes: not a BIOS or RAID '
                'configuration. Nothing was changed.' % (
                    option, value, MAX_CONFIGURATION))
        data = base.read_file(value, 'Nothing was changed.')
    else:
        name, data = '%s (not a file: read as JSON or YAML)' % option, value
    return content.load_yaml(data, name, loader=content.PlainLoader,
                             max_bytes=MAX_CONFIGURATION)


class _CleanCommand(node_states.NodesCommand):
    columns = node_states.COLUMNS
    operation = None

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        self.add_nodes(parser, self.verb)
        self.add_options(parser)
        self.add_wait(parser)
        return parser

    def add_options(self, parser):
        pass

    def configuration(self, parsed_args):
        return None

    def take_action(self, parsed_args):
        from tripleoplanclient.workflows import fleet
        return self.rows(fleet.clean(
            self.workflows(), parsed_args.nodes, self.operation,
            self.configuration(parsed_args),
            all_manageable=parsed_args.all_manageable,
            provide=getattr(parsed_args, 'provide', False),
            ironic_url=self.ironic_url(), timeout=parsed_args.timeout,
            wait=parsed_args.wait, started=lambda _: self.changed()))


class CleanNode(_CleanCommand):
    _description = ("Clean manageable nodes (Ironic's manual cleaning: "
                    "their disks' partition tables and metadata erased); "
                    'with --provide, then make them available')
    operation, verb = 'erase', 'clean'

    def add_options(self, parser):
        parser.add_argument(
            '--provide', action='store_true',
            help='Provide (power off, make available) the nodes once '
                 'cleaned.')


class ConfigureBIOS(_CleanCommand):
    _description = ('Apply a BIOS configuration to manageable nodes '
                    "(Ironic's bios apply_configuration clean step)")
    operation, verb = 'bios_configure', 'configure the BIOS of'

    def add_options(self, parser):
        parser.add_argument(
            '--configuration', metavar='<configuration>', required=True,
            help='BIOS configuration: JSON or YAML text, or a file name: '
                 '{"settings": [{"name": "LogicalProc", "value": '
                 '"Enabled"}]}.')

    def configuration(self, parsed_args):
        return configuration(parsed_args.configuration, '--configuration')


class ResetBIOS(_CleanCommand):
    _description = ("Reset manageable nodes' BIOS to its factory settings "
                    "(Ironic's bios factory_reset clean step)")
    operation, verb = 'bios_reset', 'reset the BIOS of'


class CreateRAID(_CleanCommand):
    _description = ('Build a RAID configuration on manageable nodes: their '
                    "target RAID configuration, then Ironic's raid "
                    'delete_configuration and create_configuration clean '
                    'steps')
    operation = 'raid_create'

    def get_parser(self, prog_name):
        parser = super(_CleanCommand, self).get_parser(prog_name)
        parser.add_argument(
            '--node', dest='nodes', metavar='<node>', action='append',
            required=True,
            help='Name or UUID of a manageable node (repeat the option for '
                 'more).')
        parser.add_argument(
            'configuration', metavar='<configuration>',
            help='RAID configuration: JSON or YAML text, or a file name: '
                 '{"logical_disks": [{"size_gb": 100, "raid_level": "1", '
                 '"is_root_volume": true}]}.')
        self.add_wait(parser)
        parser.set_defaults(all_manageable=False)
        return parser

    def configuration(self, parsed_args):
        return configuration(parsed_args.configuration, '<configuration>')


class ManageNode(node_states.NodesCommand):
    _description = ('Make nodes manageable: from enroll (their BMC '
                    'verified first), available, or a failed inspection or '
                    'cleaning')
    columns = node_states.COLUMNS

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument('nodes', metavar='<node>', nargs='*', default=[],
                           help='Name or UUID of a node to manage.')
        for state in ('enroll', 'available'):
            group.add_argument(
                '--all-%s' % state, dest='all_state', action='store_const',
                const=state,
                help="Manage every node in the '%s' state." % state)
        self.add_wait(parser)
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient.workflows import fleet
        return self.rows(fleet.manage(
            self.workflows(), parsed_args.nodes, parsed_args.all_state,
            self.ironic_url(), parsed_args.timeout, parsed_args.wait,
            started=lambda _: self.changed()))
