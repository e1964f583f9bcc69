"""``overcloud node import``: TripleO's node file registered in Ironic
(``nodes.register``) by the ``node_register`` action; with
``--introspect`` / ``--provide``, the new manageable nodes then go
through ``node_introspect`` / ``node_provide`` (``workflows.nodes``).

The file is checked here first (every problem named, nothing sent);
then its nodes, BMC passwords included, go to the action run on its own,
synchronously and unsaved (``workflows.nodes.register``): Mistral keeps
no execution of it, and nothing is put in Swift, so no member of the
project can read them. One row per node; the exit status of
``osc.exit_status``: 3 when refused (nothing registered), 1 when a node
failed (the others went on), 4 when a node was still verifying its BMC
when the action answered (within ``nodes.REGISTER_WAIT`` s, Mistral's
synchronous call being bounded) or no answer came by --timeout.
Loaded on every ``openstack`` run: standard library, cliff and osc-lib
only at module level.
"""

from osc_lib import exceptions

from tripleoplanclient.osc import base
from tripleoplanclient.osc import exit_status
from tripleoplanclient.osc import hooks
from tripleoplanclient.osc import node_states

COLUMNS = ('name', 'uuid', 'action', 'provision_state', 'status', 'note',
           'error', 'validations')


class ImportNode(node_states.NodesCommand):
    _description = ('Register nodes from a TripleO node file (instackenv.'
                    'json / nodes.json, JSON or YAML) in Ironic, or update '
                    'those already there; new nodes end manageable')
    columns = COLUMNS

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'env_file', metavar='<env_file>',
            help='Node file: {"nodes": [...]} or a list of nodes (name, '
                 'pm_type, pm_addr, pm_user, pm_password, ports, cpu, '
                 'memory, disk, arch, capabilities, profile...).')
        parser.add_argument(
            '--validate-only', action='store_true',
            help='Check the file and match it against Ironic; register '
                 'nothing.')
        parser.add_argument(
            '--introspect', action='store_true',
            help='Then inspect the manageable nodes of the file.')
        parser.add_argument(
            '--provide', action='store_true',
            help='Then make the manageable nodes of the file available '
                 '(after --introspect: those that passed).')
        hooks.add_options(parser, 'import')
        self.add_wait(parser)
        return parser

    # One row when it ended before its rows (ResultCommand's, not the
    # node list's): the status, what was known (the pre hook's run that
    # refused it) and why.
    _early = exit_status.ResultCommand._early

    def read(self, path):
        from tripleoplanclient.nodes import nodes_json

        data = base.read_file(path, 'Nothing was registered.')
        nodes = nodes_json.load(data, path)
        # every problem of the file, before anything leaves this machine
        nodes_json.read(nodes, path)
        return nodes

    def take_action(self, parsed_args):
        from tripleoplanclient.workflows import nodes as node_workflows

        if parsed_args.validate_only and (parsed_args.introspect or
                                          parsed_args.provide):
            raise exceptions.CommandError(
                '--validate-only registers nothing: it cannot go with '
                '--introspect or --provide.')
        nodes = self.read(parsed_args.env_file)
        workflows = self.workflows()
        ran = self.before(parsed_args, 'import', workflows)
        rows, requests = node_workflows.register(
            workflows, nodes, ironic_url=self.ironic_url(),
            validate_only=parsed_args.validate_only,
            timeout=parsed_args.timeout)
        for row in rows:
            row['status'] = _status(row)
            row['validations'] = hooks.column(ran)
            if row['error']:
                self.progress('Node %s %s: %s' % (
                    row['name'] or row['uuid'],
                    'failed' if row['status'] == 'FAILED' else 'goes on',
                    row['error']))
        if any(r['action'] in ('created', 'updated') for r in rows):
            self.changed()
        counts = {}
        for row in rows:
            counts[row['action']] = counts.get(row['action'], 0) + 1
        self.progress('%d node(s): %s (%s requests to Ironic).' % (
            len(rows), ', '.join('%d %s' % (n, a) for a, n in sorted(
                counts.items())), requests))
        return self.finish(parsed_args, workflows, rows)

    def finish(self, parsed_args, workflows, rows):
        """The operation's status from the rows (a node still verifying
        its BMC: TIMEOUT), after ``--introspect``/``--provide``; the
        table."""
        found = {r['status'] for r in rows}
        status = 'FAILED' if 'FAILED' in found else \
            'TIMEOUT' if 'IN_PROGRESS' in found else 'SUCCESS'
        if parsed_args.introspect or parsed_args.provide:
            status = self.then(parsed_args, workflows, rows, status)
        self.status = status
        return self.columns, [tuple(r.get(c) for c in self.columns)
                              for r in rows]

    def then(self, parsed_args, workflows, rows, status):
        """Introspect and/or provide the file's manageable nodes; their
        rows take the outcome. The operation's status."""
        from tripleoplanclient.workflows import nodes

        uuids = [r['uuid'] for r in rows
                 if r['status'] == 'SUCCESS' and
                 r['provision_state'] == 'manageable']
        if not uuids:
            self.progress('No manageable node to %s.' % (
                'introspect' if parsed_args.introspect else 'provide'))
            return status
        self.changed()
        if parsed_args.introspect:
            found = nodes.introspect(
                workflows, uuids, provide=parsed_args.provide,
                ironic_url=self.ironic_url(), timeout=parsed_args.timeout,
                wait=parsed_args.wait)
        else:
            found = nodes.provide(
                workflows, uuids, ironic_url=self.ironic_url(),
                timeout=parsed_args.timeout, wait=parsed_args.wait)
        after = {r['uuid']: r for r in found.rows}
        for row in rows:
            if row['uuid'] in after:
                row.update({k: after[row['uuid']].get(k) for k in (
                    'provision_state', 'status', 'error')})
        if status in ('FAILED', 'TIMEOUT') and found.status in (
                'SUCCESS', 'IN_PROGRESS'):
            return status
        return found.status


def _status(row):
    """A registered node's status: FAILED, IN_PROGRESS (still verifying
    its BMC when the action answered: Ironic goes on) or SUCCESS."""
    if row['action'] == 'failed':
        return 'FAILED'
    if row['provision_state'] == 'verifying' and row['error']:
        return 'IN_PROGRESS'
    return 'SUCCESS'
