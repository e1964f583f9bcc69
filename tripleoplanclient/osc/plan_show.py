"""``openstack overcloud plan show``: the plan at a glance.

Read from the plan's index (``record.index``: one Swift GET; the log only
when the index is missing or of an older form) and, when there is Heat, one
look at the stack. Nothing is written: a step nobody saw end is shown
open, ``show-history`` mends it.

Loaded on every ``openstack`` run: standard library, cliff and light
osc-lib modules only at module level (see ``base``).
"""

from osc_lib.command import command

from tripleoplanclient.osc import base
from tripleoplanclient.osc import plan_step

# Fixed, whatever the plan or the options: scripts pick them with -c.
# environments: plan paths (in a table, as the user named the files).
COLUMNS = ('plan', 'templates', 'templates_source', 'environments',
           'inputs', 'steps', 'last_step', 'open_step', 'stack',
           'environment_names')
STEP_FIELDS = ('step', 'id', 'action', 'time', 'user', 'status')
STACK_FIELDS = ('name', 'id', 'status', 'updated')


def _step(row):
    """What the view shows of a history row (None: no such step)."""
    if row is None:
        return None
    return dict({k: row.get(k) for k in STEP_FIELDS[:-1]},
                status=(row.get('outcome') or {}).get('status'))


def _stack(name, status, stack_id=None, updated=None):
    return {'name': name, 'id': stack_id, 'status': status,
            'updated': updated}


class ShowPlan(base.Command, command.ShowOne):
    _description = ('Show a deployment plan: templates release, '
                    'environment list, inputs, last step and the stack')
    has_long = True
    table_leaves_out = plan_step.NAMES_IN_TABLES

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('plan', metavar='<plan>', help='Plan name.')
        return parser

    def take_action(self, parsed_args):
        from osc_lib.cli import format_columns

        from tripleoplanclient.osc import formats
        from tripleoplanclient.osc import summaries
        from tripleoplanclient.plan import layout
        from tripleoplanclient.plan import templates as templates_mod
        from tripleoplanclient.record import log
        from tripleoplanclient.record import open_step

        plan = layout.check_name(parsed_args.plan)
        head = self.plan_store(read_only=True).reader.head(plan)
        rows = list(head.rows or head.imported or ())
        state = head.state
        paths = state.get('environments') or []
        environments = plan_step.environment_columns(
            paths, log.given_names(state, paths))
        values = {
            'plan': plan,
            'templates': templates_mod.name(state.get('release')),
            'templates_source': state.get('templates'),
            # a table lists them a line each, in Heat's order
            'environments': formats.summary(
                environments[0], '\n'.join(environments[1].machine_readable()),
                parsed_args),
            'inputs': state.get('inputs') or {},
            'steps': len(rows),
            'last_step': _step(rows[-1] if rows else None),
            'open_step': _step(open_step.find(rows)),
            'stack': self.stack(plan, rows),
            'environment_names': environments[1],
        }
        for field in ('inputs', 'last_step', 'open_step', 'stack'):
            if values[field] is not None:
                # a table: a field a line
                values[field] = formats.summary(
                    format_columns.DictColumn(values[field]),
                    summaries.mapping(values[field], None),
                    parsed_args)
        return COLUMNS, tuple(values[c] for c in COLUMNS)

    def stack(self, plan, rows):
        """The stack's fields, from Heat (one request, by the id the
        record holds); what is not known is said in ``status``."""
        from tripleoplanclient.common import exceptions
        from tripleoplanclient.common import status

        if not any(r.get('stack') for r in rows):
            return _stack(plan, 'NOT DEPLOYED (no deploy step in the plan)')
        heat = self.clients.orchestration()
        if heat is None:
            return _stack(plan, 'UNKNOWN (no orchestration endpoint: add '
                                'Heat to the catalog or set '
                                'orchestration_endpoint_override)')
        try:
            found = status.recorded(heat, plan, rows,
                                    self.clients.endpoint('orchestration'))
        except exceptions.CommandError as exc:
            self.progress(str(exc))
            return _stack(plan, 'UNKNOWN (Heat did not answer)')
        if found is None:
            return _stack(plan, 'NOT FOUND (deployed by the plan, no such '
                                'stack in Heat now)')
        return _stack(found.stack_name, found.stack_status, found.id,
                      status.updated(found))
