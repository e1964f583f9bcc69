"""overcloud node introspect|provide|configure|tag: nodes moved through
Ironic by our Mistral workflows (``workflows.nodes``), a row per node.

The exit status tells the outcome (``exit_status``): 0 every node done (or
started, with --no-wait), 1 some node failed (the others went on), 3
refused before anything started (an unknown node, one not manageable, no
admin role), 4 still running at --timeout, 130 Ctrl-C.
"""

import argparse

from osc_lib.command import command

from tripleoplanclient.osc import base
from tripleoplanclient.osc import exit_status
from tripleoplanclient.osc import hooks

COLUMNS = ('name', 'uuid', 'provision_state', 'status', 'error')
INTROSPECT_COLUMNS = ('name', 'uuid', 'provision_state', 'status',
                      'attempts', 'properties', 'error', 'validations')
CONFIGURE_COLUMNS = ('name', 'uuid', 'root_device', 'status', 'error')
TAG_COLUMNS = ('name', 'uuid', 'profile', 'status', 'error')
# how long configure and tag wait for Mistral (they do not follow nodes)
WAIT = 600


def _whole(key):
    """An argparse type: a whole number within node_introspect's bounds
    for ``key``."""
    def check(text):
        from tripleoplanclient.protocol import nodes
        least, most = nodes.INTROSPECT_BOUNDS[key]
        if not (text.strip().isdigit() and least <= int(text) <= most):
            raise argparse.ArgumentTypeError(
                '%r: give a whole number from %d to %d.' % (text, least,
                                                            most))
        return int(text)
    return check


class NodesCommand(exit_status.ResultCommand, command.Lister):
    """A row per node whatever the outcome; the exit status says it."""

    # a row that ends before the nodes' rows says why there
    reason_column = 'error'

    def known(self, parsed_args):
        return {}

    def add_nodes(self, parser, verb, manageable=True):
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument('nodes', metavar='<node>', nargs='*', default=[],
                           help='Name or UUID of a node to %s.' % verb)
        if manageable:
            group.add_argument(
                '--all-manageable', action='store_true',
                help="%s every node in the 'manageable' state." %
                     verb.capitalize())

    def add_wait(self, parser):
        base.add_wait_options(
            parser, 'Follow every node to its end', 'Return once the nodes '
            'started; the workflow follows them (openstack workflow '
            'execution show <id>).')
        parser.add_argument(
            '--timeout', metavar='<seconds>', type=base.node_seconds,
            default=3600,
            help='Seconds for the whole operation (default 3600, at most '
                 '%d): a node ' % base.NODE_TIMEOUT_MAX +
                 'still busy then fails (an inspection waiting for its '
                 'ramdisk is aborted).')

    def ironic_url(self):
        return self.clients.endpoint('baremetal')

    def before(self, parsed_args, step, workflows):
        """``--run-validations``: the pre hook's runs, for the rows'
        ``validations`` column (nodes are no plan's: no plan's own
        validations, none of those that need a plan)."""
        if not parsed_args.run_validations:
            return []
        return hooks.before(self, workflows, step, None,
                            self.clients.endpoint('object-store'),
                            self.clients.endpoint('orchestration'))

    def rows(self, found):
        """The command's output from an ``Outcome``."""
        self.status = found.status
        return self.columns, [tuple(row.get(c) for c in self.columns)
                              for row in found.rows]

    def produce_output(self, parsed_args, column_names, data):
        # rows, not ResultCommand's one row: take_action set the status
        return base.Command.produce_output(self, parsed_args,
                                           column_names, data)

    def _early(self, parsed_args, status):
        names = getattr(parsed_args, 'nodes', None) or []
        base.Command.produce_output(self, parsed_args, self.columns, [
            tuple({'name': name, 'status': status,
                   self.reason_column: exit_status.reason(self.why)}.get(c)
                  for c in self.columns) for name in names])
        return exit_status.EXIT_STATUS[status]


class IntrospectNode(NodesCommand):
    _description = ("Inspect nodes (Ironic's inspection): their CPUs, "
                    "memory, disks and boot mode; with --provide, then make "
                    "those that passed available")
    columns = INTROSPECT_COLUMNS

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        self.add_nodes(parser, 'introspect')
        parser.add_argument(
            '--provide', action='store_true',
            help='Provide (power off, make available) the nodes that '
                 'passed.')
        parser.add_argument(
            '--node-timeout', metavar='<seconds>', type=_whole(
                'node_timeout'), default=1200,
            help="Seconds one node's inspection may take (default 1200): "
                 'then it is aborted, and retried or failed.')
        parser.add_argument(
            '--max-retries', metavar='<count>', type=_whole('max_retries'),
            default=1,
            help='Times a node whose inspection failed or timed out is '
                 'inspected again (default 1); a node that fails them all '
                 'is reported with its reason and powered off.')
        parser.add_argument(
            '--retry-timeout', metavar='<seconds>',
            type=_whole('retry_timeout'), default=120,
            help='Seconds from a failed inspection to its retry (default '
                 '120).')
        hooks.add_options(parser, 'introspect')
        parser.add_argument(
            '--concurrency', metavar='<count>', type=_whole('concurrency'),
            default=20,
            help='Inspections running at once, at most (default 20); the '
                 'other nodes wait their turn.')
        self.add_wait(parser)
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient.workflows import nodes
        workflows = self.workflows()
        ran = self.before(parsed_args, 'introspect', workflows)
        found = nodes.introspect(
            workflows, parsed_args.nodes, parsed_args.all_manageable,
            parsed_args.provide, self.ironic_url(), parsed_args.timeout,
            parsed_args.wait, started=lambda _: self.changed(),
            node_timeout=parsed_args.node_timeout,
            max_retries=parsed_args.max_retries,
            retry_timeout=parsed_args.retry_timeout,
            concurrency=parsed_args.concurrency)
        for row in found.rows:
            row['validations'] = hooks.column(ran)
        return self.rows(found)


class ProvideNode(NodesCommand):
    _description = ('Make manageable nodes available: powered off, then '
                    "Ironic's provide (and its cleaning, when enabled)")
    columns = COLUMNS

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        self.add_nodes(parser, 'provide')
        self.add_wait(parser)
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient.workflows import nodes
        return self.rows(nodes.provide(
            self.workflows(), parsed_args.nodes, parsed_args.all_manageable,
            self.ironic_url(), parsed_args.timeout, parsed_args.wait,
            started=lambda _: self.changed()))


class ConfigureNode(NodesCommand):
    _description = ("Set nodes' deploy kernel and ramdisk, and their root "
                    'device hints')
    columns = CONFIGURE_COLUMNS

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        self.add_nodes(parser, 'configure')
        parser.add_argument('--deploy-kernel', metavar='<image>',
                            help="Deploy kernel (image or URL) for the "
                                 "nodes' driver_info; unset: kept.")
        parser.add_argument('--deploy-ramdisk', metavar='<image>',
                            help="Deploy ramdisk (image or URL) for the "
                                 "nodes' driver_info; unset: kept.")
        parser.add_argument(
            '--root-device', metavar='<device>',
            help='Root device: "smallest" or "largest" (the disk of the '
                 "node's inspection inventory), device names to choose "
                 'from (sda,vda), or a JSON mapping of Ironic hints '
                 '({"serial": "S1"}).')
        parser.add_argument(
            '--root-device-minimum-size', metavar='<GiB>', type=int,
            default=4,
            help='Smallest disk (GiB) smallest/largest may choose '
                 '(default 4).')
        parser.add_argument(
            '--overwrite-root-device-hints', action='store_true',
            help='Replace root device hints a node has already.')
        return parser

    def take_action(self, parsed_args):
        import json

        from osc_lib import exceptions

        from tripleoplanclient.workflows import nodes
        root = parsed_args.root_device
        if root and root.lstrip().startswith('{'):
            try:
                root = json.loads(root)
            except ValueError as exc:
                raise exceptions.CommandError(
                    'Bad --root-device %r: not JSON (%s); give smallest, '
                    'largest, device names or a JSON mapping of hints.'
                    % (root, exc))
        return self.rows(nodes.configure(
            self.workflows(), parsed_args.nodes, WAIT,
            all_manageable=parsed_args.all_manageable,
            deploy_kernel=parsed_args.deploy_kernel,
            deploy_ramdisk=parsed_args.deploy_ramdisk, root_device=root,
            root_device_minimum_size=parsed_args.root_device_minimum_size,
            overwrite_root_device_hints=(
                parsed_args.overwrite_root_device_hints),
            ironic_url=self.ironic_url()))


class TagNode(NodesCommand):
    _description = ('Give nodes a profile (the capability profile:<name> '
                    'that deployment roles match), or take it away')
    columns = TAG_COLUMNS

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('nodes', metavar='<node>', nargs='+',
                            help='Name or UUID of a node to tag.')
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument('--profile', metavar='<profile>',
                           help='The profile (e.g. control, compute).')
        group.add_argument('--no-profile', action='store_true',
                           help='Take the profile away.')
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient.workflows import nodes
        return self.rows(nodes.tag(
            self.workflows(), parsed_args.nodes,
            None if parsed_args.no_profile else parsed_args.profile,
            self.ironic_url(), WAIT))
