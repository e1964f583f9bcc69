"""``overcloud node discover``: probe addresses for Redfish BMCs and
register each system of those that took one of the credentials
(``workflows.fleet``: the ``node_discover`` action run on its
own, unsaved, as ``overcloud node import``'s registration); with
``--introspect`` / ``--provide``, the new manageable nodes then go on as
``node import`` takes them. A row per BMC that answered and per system;
addresses where nothing answered are only counted (stderr).

Loaded on every ``openstack`` run: standard library, cliff and osc-lib
only at module level.
"""

from tripleoplanclient.osc import node_import

COLUMNS = ('address', 'port', 'system', 'name', 'uuid', 'provision_state',
           'status', 'error')


class DiscoverNode(node_import.ImportNode):
    _description = ('Probe IP addresses for Redfish BMCs (GET /redfish/v1/'
                    'Systems) and register each system of those that take '
                    'one of the credentials; new nodes end manageable')
    columns = COLUMNS

    def get_parser(self, prog_name):
        parser = super(node_import.ImportNode, self).get_parser(prog_name)
        where = parser.add_mutually_exclusive_group(required=True)
        where.add_argument('--ip', action='append', dest='ip_addresses',
                           metavar='<ips>',
                           help='IP address to probe (repeat the option '
                                'for more).')
        where.add_argument('--range', dest='ip_range', metavar='<range>',
                           help='IP range to probe (CIDR, at most a /22: '
                                '1024 addresses).')
        parser.add_argument(
            '--credentials', metavar='<key:value>', action='append',
            required=True,
            help='USER:PASSWORD to try on each BMC, in order (repeat the '
                 'option for more).')
        parser.add_argument(
            '--port', action='append', metavar='<ports>', type=int,
            help='BMC port to probe (repeat for more; default 443, by '
                 'https; another port by http).')
        parser.add_argument('--introspect', action='store_true',
                            help='Then inspect the new manageable nodes.')
        parser.add_argument(
            '--provide', action='store_true',
            help='Then make the new manageable nodes available (after '
                 '--introspect: those that passed).')
        self.add_wait(parser)
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient.workflows import fleet

        ips = fleet.addresses(parsed_args.ip_addresses, parsed_args.ip_range)
        pairs = fleet.credentials(parsed_args.credentials)
        workflows = self.workflows()
        rows, probed, requests = fleet.discover(
            workflows, ips, parsed_args.port, pairs, self.ironic_url())
        if any(r['uuid'] for r in rows):
            self.changed()
        for row in rows:
            if row['error']:
                self.progress('%s:%s%s: %s' % (
                    row['address'], row['port'], ' ' + row['system']
                    if row['system'] else '', row['error']))
        self.progress('%s probe(s): %d BMC system(s) registered, %d '
                      'failed (%s requests to Ironic).' % (
                          probed, sum(r['status'] == 'SUCCESS'
                                      for r in rows),
                          sum(r['status'] == 'FAILED' for r in rows),
                          requests))
        return self.finish(parsed_args, workflows, rows)
