"""The deployment library's commands: ``overcloud plan capabilities``,
``roles list|show``, ``parameters show`` and ``validate``.

Each runs our Mistral action of the same name (``mistral.library``) on its
own, synchronously and unsaved, and formats what it answers: a GUI or a
script that runs the action, or starts the workflow of the same name,
gets the same answer. Loaded on every ``openstack`` run: standard library,
cliff and light osc-lib modules only at module level (see ``base``).
"""


from osc_lib.command import command
from osc_lib import exceptions

from tripleoplanclient.osc import base
from tripleoplanclient.osc import exit_status
from tripleoplanclient.osc import plan as plan_cmd
from tripleoplanclient.osc import plan_step

CAPABILITY_COLUMNS = ('topic', 'group', 'file', 'title', 'enabled',
                      'requires', 'excludes', 'description')
ROLE_COLUMNS = ('name', 'in_plan', 'count', 'count_parameter', 'networks',
                'tags', 'description')
PARAMETER_COLUMNS = ('name', 'type', 'default', 'value', 'description',
                     'templates')
PROBLEM_COLUMNS = ('kind', 'what', 'problem')


def _list(value):
    from osc_lib.cli import format_columns
    return format_columns.ListColumn(value or [])


class _LibraryCommand(base.Command):
    """Runs one of the library's actions for ``<plan>``."""

    # the action (a name of protocol.WORKFLOWS) and whether it asks Heat
    operation = None
    uses_heat = False
    default_timeout = 2

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('plan', metavar='<plan>', help='Plan name.')
        parser.add_argument(
            '--timeout', metavar='<minutes>', type=base.minutes,
            default=self.default_timeout,
            help='How long to wait for Mistral\'s answer, in minutes '
                 '(default %d).' % self.default_timeout)
        return parser

    def ask(self, parsed_args, **fields):
        from tripleoplanclient.plan import layout
        from tripleoplanclient.workflows import plans

        plan = layout.check_name(parsed_args.plan)
        fields['swift_url'] = self.clients.endpoint('object-store')
        if self.uses_heat:
            fields['heat_url'] = self.clients.endpoint('orchestration')
        request = plans.library_request(self.operation, plan, **fields)
        result = self.workflows().run_action(self.operation, request,
                                             parsed_args.timeout * 60)
        # A later file overriding an earlier one is how TripleO is
        # configured: said (validate, capabilities set), never refused.
        for warning in result.get('warnings') or ():
            self.error('Warning: %s' % warning)
        return result


class ShowCapabilities(_LibraryCommand, command.Lister):
    _description = ('List the capabilities of a deployment plan: the '
                    'environment files its templates offer, by topic and '
                    'group, which are enabled, and their constraints')
    operation = 'capabilities'

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--enabled', action='store_true',
                            help='Only the enabled environment files.')
        return parser

    def take_action(self, parsed_args):
        result = self.ask(parsed_args)
        if result.get('note'):
            self.progress(result['note'])
        rows = []
        for topic in result.get('topics') or []:
            for group in topic.get('groups') or []:
                for env in group.get('environments') or []:
                    if parsed_args.enabled and not env.get('enabled'):
                        continue
                    rows.append((
                        topic.get('title'), group.get('title'), env['file'],
                        env.get('title'), bool(env.get('enabled')),
                        _list(env.get('requires')),
                        _list(sorted(e['file'] for e in
                                     env.get('excludes') or [])),
                        env.get('description')))
        self.progress('Plan %s: %d environment files (%s), %d enabled.' % (
            parsed_args.plan, len(rows), result.get('source') or 'none',
            sum(1 for r in rows if r[4])))
        return CAPABILITY_COLUMNS, rows


class _SetCommand(exit_status.ResultCommand, _LibraryCommand, command.ShowOne):
    """A recorded step, written by our action in Mistral: shows the step
    like ``plan amend`` (UNCHANGED: nothing written)."""

    columns = plan_cmd.STEP_COLUMNS
    table_leaves_out = plan_step.NAMES_IN_TABLES

    def ask(self, parsed_args, **fields):
        fields['command'] = self.command_line()
        result = super().ask(parsed_args, **fields)
        if result['status'] == 'UNCHANGED':
            self.progress('Plan %s: nothing to change; nothing written.'
                          % result['plan'])
        else:
            self.progress('Plan %s: step %s recorded (%s).' % (
                result['plan'], result['id'], result['action']))
        return plan_cmd.summary_result(result)


class SetCapabilities(_SetCommand):
    _description = ('Enable and disable environment files of a deployment '
                    'plan\'s capabilities: a recorded step, refused with '
                    'every broken constraint named')
    operation, action = 'capabilities_set', 'capabilities'

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--enable', metavar='<path>', action='append', default=[],
            help='Plan path of an environment file to enable (appended to '
                 'the environment list); may be repeated.')
        parser.add_argument(
            '--disable', metavar='<path>', action='append', default=[],
            help='Plan path of an environment file to disable (dropped from '
                 'the list; the file stays in the plan); may be repeated.')
        return parser

    def take_action(self, parsed_args):
        if not parsed_args.enable and not parsed_args.disable:
            raise exceptions.CommandError(
                'Give --enable PATH or --disable PATH (plan paths, as '
                '"openstack overcloud plan capabilities %s" lists them). '
                'Nothing was changed.' % parsed_args.plan)
        return self.ask(parsed_args, enable=parsed_args.enable,
                        disable=parsed_args.disable)


class ListRoles(_LibraryCommand, command.Lister):
    _description = ('List the roles of a deployment plan and those its '
                    'templates offer')
    operation = 'roles'

    def take_action(self, parsed_args):
        result = self.ask(parsed_args)
        rows = []
        for role in result['roles']:
            for note in role.get('notes') or []:
                self.progress('%s: %s' % (role['name'], note))
            rows.append(tuple(
                _list(role.get(c)) if c in ('networks', 'tags') else
                role.get(c) for c in ROLE_COLUMNS))
        return ROLE_COLUMNS, rows


class ShowRole(_LibraryCommand, command.ShowOne):
    _description = 'Show one role of a deployment plan in detail'
    operation = 'roles'

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('name', metavar='<role>', help='Role name.')
        return parser

    def take_action(self, parsed_args):
        from osc_lib.cli import format_columns

        role = self.ask(parsed_args, name=parsed_args.name)['role']
        for note in role.get('notes') or []:
            self.progress('%s: %s' % (role['name'], note))
        out = {}
        for key, value in role.items():
            if isinstance(value, dict):
                value = format_columns.DictColumn(value)
            elif isinstance(value, list):
                value = format_columns.ListColumn(value)
            out[key] = value
        return tuple(zip(*sorted(out.items())))


class ShowParameters(_LibraryCommand, command.Lister):
    _description = ('Show the parameters of a deployment plan: type, '
                    'default, the value the plan sets (hidden ones '
                    'masked), description and declaring templates, from '
                    'Heat\'s validation of the assembled plan')
    operation = 'parameters'
    uses_heat = True
    default_timeout = 10

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--role', metavar='<role>',
                            help='Only the parameters of this role.')
        parser.add_argument(
            '--all', action='store_true',
            help='Also the parameters whose value only templates pass to '
                 'each other.')
        return parser

    def take_action(self, parsed_args):
        result = self.ask(parsed_args, role=parsed_args.role,
                          all=parsed_args.all)
        self.progress('Plan %s: %d parameters (Heat\'s validation %s, '
                      '%.1f s).' % (
                          parsed_args.plan, len(result['parameters']),
                          'kept from before' if result.get('cached')
                          else 'now', result.get('heat_seconds') or 0))
        return PARAMETER_COLUMNS, [
            tuple(_list(p.get(c)) if c == 'templates' else p.get(c)
                  for c in PARAMETER_COLUMNS)
            for p in result['parameters']]


class SetParameters(_SetCommand):
    _description = ('Set parameters of a deployment plan, checked against '
                    'Heat\'s types and constraints: a recorded step in the '
                    'plan\'s parameters file, merged after every environment '
                    'file')
    operation, action = 'parameters_set', 'parameters'
    uses_heat = True
    default_timeout = 10

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'assignments', metavar='<name>=<value>', nargs='*',
            help='A parameter and its value, read as YAML (3, true, [a, b], '
                 '{k: v}; a String parameter keeps the text as typed); an '
                 'empty value takes the parameter out again.')
        parser.add_argument(
            '--file', metavar='<file>',
            help='A YAML mapping of parameters and values (or an '
                 'environment file\'s parameter_defaults), applied before '
                 'the NAME=VALUE arguments.')
        return parser

    def take_action(self, parsed_args):
        values = None
        if parsed_args.file:
            from tripleoplanclient.library import parameter_values
            try:
                with open(parsed_args.file, 'rb') as f:
                    data = f.read()
            except OSError as exc:
                raise exceptions.CommandError(
                    'Cannot read --file %s (%s). Nothing was changed.'
                    % (parsed_args.file, exc.strerror or exc))
            values = parameter_values.parse_file(data, parsed_args.file)
        if not parsed_args.assignments and not values:
            raise exceptions.CommandError(
                'Give NAME=VALUE arguments or --file FILE. Nothing was '
                'changed.')
        return self.ask(parsed_args, assignments=parsed_args.assignments,
                        values=values)


class ValidatePlan(_LibraryCommand, command.Lister):
    _description = ('Check a deployment plan before a deploy: Heat\'s '
                    'validation, required parameters without value, '
                    'missing references, capability constraints; exits 1 '
                    'when there is a problem, each one listed')
    operation = 'validate'
    uses_heat = True
    default_timeout = 10
    _problems = 0

    def take_action(self, parsed_args):
        result = self.ask(parsed_args)
        problems = result.get('problems') or []
        self._problems = len(problems)
        if problems:
            self.progress('Plan %s is not valid: %d problems.'
                          % (parsed_args.plan, len(problems)))
        else:
            self.progress('Plan %s is valid.' % parsed_args.plan)
        return PROBLEM_COLUMNS, [tuple(p.get(c) for c in PROBLEM_COLUMNS)
                                 for p in problems]

    def run(self, parsed_args):
        status = super().run(parsed_args)
        return status or (1 if self._problems else 0)
