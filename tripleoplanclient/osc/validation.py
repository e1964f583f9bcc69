"""``openstack overcloud validation list | run | stop | show | results``:
TripleO's validations, run by our workflows in Mistral
(``validation_install``: ``install``; ``validation_parameters``: what a
run is given beside its validations, ``show parameter``, ``group
list``).

Loaded on every ``openstack`` run: standard library, cliff and light
osc-lib modules only at module level (see ``base``).
"""

from osc_lib.command import command

from tripleoplanclient.osc import base
from tripleoplanclient.osc import exit_status
from tripleoplanclient.osc import validation_junit

# ``status``: READY, or MALFORMED (``problem`` says why); the one row of
# a list that failed has the command's status and its message in problem
LIST_COLUMNS = ('id', 'name', 'groups', 'categories', 'products', 'source',
                'problem', 'description', 'status')
RUN_COLUMNS = ('run', 'plan', 'status', 'validations', 'failed_hosts',
               'duration', 'message')
# ``show <run>``: the run's row and its times and failures
SHOW_RUN_COLUMNS = RUN_COLUMNS + ('started', 'ended', 'failures')
RESULT_COLUMNS = ('run', 'validation', 'plan', 'time', 'status', 'duration',
                  'failed_hosts')
# a run's status -> exit status, beyond exit_status's (FAILED 1, TIMEOUT 4)
# runs ``results`` reads by default: one GET each
RESULTS_LIMIT = 50
_EXIT = {'STOPPED': exit_status.FAILED, 'ERROR': exit_status.FAILED}


def _list(value):
    from osc_lib.cli import format_columns
    return format_columns.ListColumn(value or [])


def _run_row(run):
    """A run as one row: each validation as ``id: STATUS``, the first
    failures' messages."""
    done = run.get('validations') or []
    hosts = sorted({h for v in done for h in v.get('failed_hosts') or []})
    messages = ['%s: %s' % (v['id'], v['message']) for v in done
                if v.get('message') and v.get('status') != 'PASSED']
    return {'run': run.get('run'), 'plan': run.get('plan'),
            'status': run.get('status'),
            'validations': _list(['%s: %s' % (v['id'], v['status'])
                                  for v in done]),
            'failed_hosts': _list(hosts), 'duration': run.get('duration'),
            'message': '; '.join(messages) or None}


class ValidationCommand(base.Command):
    """Runs one of the validations' actions, waiting ``--timeout``."""

    default_timeout = 120

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--timeout', metavar='<seconds>', type=base.seconds,
            default=self.default_timeout,
            help='How long to wait for Mistral, in seconds (default %d).'
                 % self.default_timeout)
        return parser

    def ask(self, parsed_args, name, **fields):
        from tripleoplanclient.workflows import validations
        fields['swift_url'] = self.clients.endpoint('object-store')
        return validations.ask(self.workflows(), name, parsed_args.timeout,
                               **fields)


def _add_plan(parser, what):
    parser.add_argument('--plan', metavar='<plan>',
                        help='Plan whose custom-validations/ %s.' % what)


def _add_run(parser):
    parser.add_argument('run', metavar='<run>',
                        help='Run id (see "validation results").')


class ListValidations(exit_status.ResultCommand, ValidationCommand,
                      command.Lister):
    _description = ('List the validations, their groups, and why a '
                    'malformed one cannot run')
    columns = LIST_COLUMNS
    reason_column = 'problem'

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--group', metavar='<group>',
                            help='Only the validations of this group.')
        parser.add_argument('--category', metavar='<category>',
                            action='append', default=[], dest='categories',
                            help='Only those of this category (repeatable; '
                                 'with --group and --product: any of them).')
        parser.add_argument('--product', metavar='<product>',
                            action='append', default=[], dest='products',
                            help='Only those of this product (repeatable).')
        _add_plan(parser, 'add or override')
        return parser

    def known(self, parsed_args):
        return {}

    def take_action(self, parsed_args):
        from tripleoplanclient.osc import validation_parameters
        result = self.ask(parsed_args, 'validation_list',
                          group=parsed_args.group, plan=parsed_args.plan,
                          categories=parsed_args.categories or None,
                          products=parsed_args.products or None)
        rows = result['validations']
        self.progress('%d validations (%d cannot run); groups: %s.' % (
            len(rows), sum(1 for r in rows if r['problem']),
            ', '.join(sorted(result['groups'])) or 'none'))
        return LIST_COLUMNS, [
            tuple(_list(r[c]) if c in ('groups', 'categories', 'products')
                  else validation_parameters.ready(r) if c == 'status'
                  else r[c]
                  for c in LIST_COLUMNS) for r in rows]


class _RunCommand(exit_status.ResultCommand, ValidationCommand,
                  command.ShowOne):
    """A run's row, its exit status from its status."""

    columns = RUN_COLUMNS
    reason_column = 'message'

    def row(self, run):
        found = _run_row(run)
        if run.get('status') in _EXIT:
            self.exit_status = _EXIT[run['status']]
        return RUN_COLUMNS, tuple(found[c] for c in RUN_COLUMNS)


class RunValidations(_RunCommand):
    _description = ('Run validations (by name, or a group, categories or '
                    'products) in Mistral with ansible-playbook; the run '
                    'id is its workflow execution\'s')
    default_timeout = 600

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('names', metavar='<name>', nargs='*',
                            help='Validations to run (see "validation '
                                 'list").')
        parser.add_argument('--group', metavar='<group>',
                            help='Run every validation of this group.')
        from tripleoplanclient.osc import validation_parameters
        validation_parameters.add_run_options(parser)
        _add_plan(parser, 'add or override; the plan\'s stack gives the '
                          'servers')
        base.add_wait_options(parser, 'Wait for the run to end',
                              'Print the run id once it started.')
        validation_junit.add_option(parser)
        return parser

    def take_action(self, parsed_args):
        from osc_lib import exceptions

        from tripleoplanclient.osc import validation_parameters
        from tripleoplanclient.validations import parameters
        from tripleoplanclient.workflows import validations
        junitxml = validation_junit.target(parsed_args)
        labels = ([parsed_args.group] if parsed_args.group else [],
                  parsed_args.categories, parsed_args.products)
        if bool(parsed_args.names) == any(labels):
            raise exceptions.CommandError(
                'Give validation names or --group/--category/--product, not '
                'both nor neither; see "openstack overcloud validation '
                'list".')
        fields = validation_parameters.run_fields(parsed_args)
        workflows = self.workflows()
        swift_url = self.clients.endpoint('object-store')
        # unknown names or group: refused here, before a run starts
        listed = validations.ask(
            workflows, 'validation_list', 120, plan=parsed_args.plan,
            group=parsed_args.group, categories=fields['categories'],
            products=fields['products'], swift_url=swift_url)
        known = {v['id'] for v in listed['validations']}
        unknown = [n for n in parsed_args.names if n not in known]
        if unknown:
            raise exceptions.CommandError(
                'No validation %s%s; see "openstack overcloud validation '
                'list".' % (', '.join(unknown), ' in plan %s or installed'
                            % parsed_args.plan if parsed_args.plan else ''))
        if any(labels) and not known:
            raise exceptions.CommandError(
                'No validation in %s.' % parameters.labels(*labels))
        self.check_can_write()
        fields['extra_vars'], fields['sealed_vars'] = validations.sealed(
            workflows, fields['extra_vars'])
        execution = validations.start(
            workflows, names=parsed_args.names or None,
            group=parsed_args.group, plan=parsed_args.plan,
            timeout=parsed_args.timeout, swift_url=swift_url,
            heat_url=self.clients.endpoint('orchestration'), **fields)
        self.changed({'run': execution.id, 'plan': parsed_args.plan})
        if not parsed_args.wait:
            return self.row({'run': execution.id, 'plan': parsed_args.plan,
                             'status': 'RUNNING'})
        told = set()

        def tell(run):
            for v in run.get('validations') or []:
                if v['status'] not in ('PENDING', 'RUNNING') and \
                        v['id'] not in told:
                    told.add(v['id'])
                    self.progress('%s: %s (%.1f s)%s' % (
                        v['id'], v['status'], v.get('duration') or 0,
                        ': %s' % v['message'] if v.get('message') and
                        v['status'] != 'PASSED' else ''))

        def look():
            from tripleoplanclient.validations import results
            try:
                tell(results.load_run(store, execution.id))
            except exceptions.CommandError:
                pass        # not written yet

        store = self.plan_store(read_only=True)
        try:
            run = validations.wait(workflows, execution,
                                   parsed_args.timeout + validations.MARGIN,
                                   look=look)
        except KeyboardInterrupt:
            raise exit_status.Interrupted(
                'the run goes on in Mistral; stop it with "openstack '
                'overcloud validation stop %s"' % execution.id)
        if run is None:
            raise exceptions.CommandError(
                'Validation run %s still runs after %g s: see "openstack '
                'overcloud validation show %s".' % (
                    execution.id, parsed_args.timeout, execution.id))
        tell(run)
        if junitxml:
            validation_junit.write(self, junitxml, self.ask(
                parsed_args, 'validation_results', run=run['run']))
        return self.row(run)

    def check_can_write(self):
        """A run writes its results as the caller: a reader (no write
        role) is refused before it starts. The probe is the PUT of the
        results container a run makes anyway (idempotent)."""
        from osc_lib import exceptions

        from tripleoplanclient.validations import results
        try:
            self.plan_store().container.create_container(results.CONTAINER,
                                                         headers=results.USAGE)
        except exceptions.CommandError as exc:
            if '403' not in str(exc):
                raise
            raise exceptions.CommandError(
                'Swift refused the write of a run\'s results to %s (HTTP '
                '403): not allowed with the roles of these credentials in '
                'this project (a reader only reads). Use credentials with '
                'the member role. Nothing was run.' % results.CONTAINER)


class StopValidations(_RunCommand):
    _description = ('Stop a validation run: its ansible-playbook is killed '
                    'and the run recorded STOPPED')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _add_run(parser)
        return parser

    def take_action(self, parsed_args):
        run = self.ask(parsed_args, 'validation_stop', run=parsed_args.run)
        self.changed()
        found = self.row(run)
        # the stop did what was asked
        self.exit_status = exit_status.DONE
        return found


class ShowValidationRun(exit_status.ResultCommand, ValidationCommand,
                        command.ShowOne):
    _description = ('Show a validation run (by its id: each validation\'s '
                    'status and its failed tasks\' output), or a '
                    'validation (by name: its metadata and parameters)')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('run', metavar='<run-or-validation>',
                            help='Run id (see "validation results") or '
                                 'validation (see "validation list").')
        _add_plan(parser, 'add or override (a validation)')
        validation_junit.add_option(parser)
        return parser

    def run(self, parsed_args):
        from tripleoplanclient.osc import validation_parameters
        from tripleoplanclient.validations import results
        # a run's row, or a validation's: the same whatever the outcome
        if results.is_run_id(parsed_args.run):
            self.columns, self.reason_column = SHOW_RUN_COLUMNS, 'message'
        else:
            self.columns = validation_parameters.SHOW_COLUMNS
            self.reason_column = 'problem'
        return super().run(parsed_args)

    def known(self, parsed_args):
        found = super().known(parsed_args)
        if 'id' in self.columns:
            found['id'] = parsed_args.run
        return found

    def take_action(self, parsed_args):
        from osc_lib import exceptions

        from tripleoplanclient.osc import validation_parameters
        from tripleoplanclient.validations import results
        # what is shown ran before: its status is no outcome of this one
        self.exit_status = exit_status.DONE
        if not results.is_run_id(parsed_args.run):
            if parsed_args.junitxml is not None:
                raise exceptions.CommandError(
                    '--junitxml: only a run has JUnit XML; %s is no run id '
                    '(see "openstack overcloud validation results").'
                    % parsed_args.run)
            return validation_parameters.show_validation(self, parsed_args)
        junitxml = validation_junit.target(parsed_args)
        run = self.ask(parsed_args, 'validation_results', run=parsed_args.run)
        if junitxml:
            validation_junit.write(self, junitxml, run)
        found = _run_row(run)
        failures = ['%s: %s: %s: %s' % (r['validation'], f.get('host'),
                                        f.get('task'), f.get('msg'))
                    for r in run.get('results') or [] if r
                    for f in r.get('failures') or []]
        found.update(started=run.get('started'), ended=run.get('ended'),
                     failures=_list(failures))
        return SHOW_RUN_COLUMNS, tuple(found[c] for c in SHOW_RUN_COLUMNS)


class ListValidationResults(ValidationCommand, command.Lister):
    _description = ('List the validation runs of your project: one row per '
                    'validation run')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--plan', metavar='<plan>',
                            help='Only the runs for this plan.')
        last = parser.add_mutually_exclusive_group()
        last.add_argument('--limit', metavar='<runs>', type=base.count,
                          default=RESULTS_LIMIT,
                          help='The runs last written, at most '
                          '(default: %d).' % RESULTS_LIMIT)
        last.add_argument('--all', action='store_true',
                          help='Every run, however many.')
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient.validations import results
        limit = None if parsed_args.all else parsed_args.limit
        found = self.ask(parsed_args, 'validation_results',
                         plan=parsed_args.plan, limit=limit)
        if found.get('more'):
            self.progress('Only the %d run(s) last written; older ones: '
                          '--limit or --all.' % limit)
        rows = [r for run in found['runs'] for r in results.rows(run)]
        return RESULT_COLUMNS, [
            tuple(_list(r[c]) if c == 'failed_hosts' else r[c]
                  for c in RESULT_COLUMNS) for r in rows]
