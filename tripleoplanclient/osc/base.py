"""What the commands share: stderr progress, the objects they hand to the
layers below, confirmation, and the options several commands take.

Every ``openstack`` run imports the command modules, so this one imports
only the standard library, cliff and light osc-lib modules at module level
(osc_lib.utils and format_columns pull in yaml and requests); the rest is
imported when a command runs.
"""

import argparse
import getpass
import math
import sys

from cliff import lister
from osc_lib.command import command
from osc_lib import exceptions

from tripleoplanclient.common.printable import printable
from tripleoplanclient.osc import defaults as defaults_mod
from tripleoplanclient.osc import formats


class Command(command.Command):
    """Base of every command: progress on stderr, clients built lazily."""

    # OSC authenticates before run() when this is set, and prints
    # keystoneauth's bare message when Keystone refuses; run() asks OSC to
    # do the same (one token request) where the refusal can be explained.
    auth_required = False

    def run(self, parsed_args):
        """Authenticate (one token request, the refusal explained), then
        run the command."""
        try:
            self.auth_required = True
            self.app.prepare_to_run_command(self)
            return super().run(parsed_args)
        except exceptions.CommandError as exc:
            # printed by cliff on stderr: its control characters quoted
            exc.args = tuple(printable(a, lines=True) for a in exc.args)
            raise
        except Exception as exc:
            problem = keystone_problem(self.app.client_manager, exc)
            if problem is None:
                raise
            raise exceptions.CommandError(problem) from None

    def command_line(self):
        """This run's arguments (after ``openstack``) to record, every
        secret value masked as ``openstack`` read them: by OSC's global
        option parser (abbreviations included), then this command's."""
        from tripleoplanclient.record import log

        return log.masked_argv(sys.argv[1:], (
            getattr(self.app, 'parser', None),
            self.get_parser(self.cmd_name or 'openstack')))

    def actor(self):
        """Who the steps this command writes record: the Keystone user
        and project of its token, else the local login name."""
        found = self.clients.actor()
        if found:
            return found
        try:
            return {'user': getpass.getuser()}
        except Exception:  # no login name in some containers
            return {'user': 'unknown'}

    def progress(self, line):
        """A line on stderr; -q (OSC's verbose_level 0) keeps only the
        warnings (the layers below tell them through this one callback).
        One line: every control character in it quoted, a line feed too
        (nothing in it can pose as another line, or redraw one)."""
        if getattr(self.app_args, 'verbose_level', 1) == 0 and \
                not line.startswith('Warning: '):
            return
        self.app.stderr.write(printable(line) + '\n')
        self.app.stderr.flush()

    def error(self, message):
        """A message on stderr even with -q, of one line or several: its
        control characters but line feeds and tabs quoted."""
        self.app.stderr.write(printable(message.rstrip('\n'), lines=True)
                              + '\n')
        self.app.stderr.flush()

    # Whether the command takes --long (formats.add_long_option): its
    # table summarizes long values
    has_long = False
    # Columns a table leaves out (unless --long or -c asks for them):
    # what another column of the table already shows a person.
    table_leaves_out = ()

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        if parser.get_default('max_width') is not None:
            # not given: the table follows the terminal (formats.width)
            parser.set_defaults(max_width=None)
        if self.has_long:
            formats.add_long_option(parser)
        return parser

    def produce_output(self, parsed_args, column_names, data):
        """cliff's, for the commands that print a row or a list, each
        value as its format prints it (``formats.shown``: control
        characters quoted in the human formats, a table's cells cut to
        what a person reads, plain text in the line formats); a table
        as wide as the terminal (``formats.width``)."""
        listed = isinstance(self, lister.Lister)
        if getattr(parsed_args, 'formatter', None) == 'table':
            parsed_args.max_width = formats.width(parsed_args)
            if not (parsed_args.columns or getattr(parsed_args, 'long',
                                                   False)):
                column_names, data = formats.leave_out(
                    column_names, data, self.table_leaves_out, listed)
        shown = formats.shown(parsed_args, self.has_long, formats.IN_LIST
                              if listed else formats.IN_ONE)
        if shown is not None:
            if listed:
                data = (tuple(shown(v) for v in row) for row in data)
            else:
                data = tuple(shown(v) for v in data)
        if listed and parsed_args.formatter == 'table':
            data = formats.fit(column_names, data, parsed_args.max_width)
        return super().produce_output(parsed_args, column_names, data)

    @property
    def clients(self):
        """The plugin's osc.plugin.ClientWrapper."""
        return self.app.client_manager.tripleoplan

    def plan_store(self, read_only=False):
        from tripleoplanclient.record import plan_store
        return plan_store.PlanStore(self.clients.object_store,
                                    progress=self.progress,
                                    read_only=read_only, actor=self.actor)

    def origin(self, plan):
        """Who records and reads the local sources of ``plan``'s user
        files, where: this Keystone user on this machine (plan.origin)."""
        from tripleoplanclient.record import origin
        return origin.Origin(plan, self.clients.user_id())

    def workflows(self):
        """The Mistral side (it says so on first use when none is set)."""
        from tripleoplanclient.workflows import executions
        client, url = self.clients.workflow_engine()
        return executions.Workflows(client, url, self.progress)

    def renderer(self, parsed_args, workflows=None):
        """The render hook of a plan step, or None with --no-render."""
        if parsed_args.no_render:
            return None
        from tripleoplanclient.workflows import plans
        return plans.PlanRenderer(
            workflows or self.workflows(),
            self.clients.endpoint('object-store'), parsed_args.timeout * 60)

    def recorder(self, parsed_args, workflows=None):
        """Records plan create and amend steps in Mistral, with this
        command line (masked)."""
        from tripleoplanclient.workflows import plans
        return plans.Recorder(
            workflows or self.workflows(),
            self.clients.endpoint('object-store'), parsed_args.timeout * 60,
            self.command_line())

    def heat(self):
        heat = self.clients.orchestration()
        if heat is None:
            raise exceptions.CommandError(
                'No orchestration (Heat) endpoint: add one to the catalog or '
                'set orchestration_endpoint_override in clouds.yaml.')
        return heat

    @staticmethod
    def confirm(question, yes):
        """True when the user agrees (or passed -y); never asks a script."""
        if yes:
            return True
        if not sys.stdin.isatty():
            raise exceptions.CommandError(
                'No terminal to ask "%s", and refusing without --yes: pass '
                '-y to go on. Nothing was changed.' % question)
        answer = input('%s [y/N] ' % question)
        return answer.strip().lower() in ('y', 'yes')


def keystone_problem(client_manager, exc):
    """What to tell the user when ``exc`` is Keystone refusing the
    credentials or not answering (None: another failure). Authentication
    comes before any write, so nothing was changed."""
    from keystoneauth1 import exceptions as ks_exceptions

    if not isinstance(exc, ks_exceptions.ClientException):
        return None
    options = getattr(client_manager, '_cli_options', None)
    auth = dict(getattr(options, 'config', {}).get('auth') or {})
    auth_url = (auth.get('auth_url') or '').rstrip('/')
    where = str(getattr(exc, 'url', None) or exc)
    if not auth_url or auth_url.rsplit('/v3', 1)[0] not in where:
        return None
    cloud = 'cloud "%s" (user %s, project %s)' % (
        getattr(options, 'name', None) or 'from the environment',
        auth.get('username') or auth.get('user_id') or 'of the token',
        auth.get('project_name') or auth.get('project_id') or '-')
    if isinstance(exc, ks_exceptions.ConnectionError):
        return ('Keystone is unreachable at %s for %s: check auth_url and '
                'that Keystone runs. Nothing was changed.' % (
                    auth_url, cloud))
    status = getattr(exc, 'http_status', None)
    if status == 404 and (auth.get('token') or 'token' in str(
            getattr(options, 'config', {}).get('auth_type'))):
        return ('Keystone at %s does not accept the token of %s: it '
                'expired or was revoked. Get a new one (openstack token '
                'issue) or use a password. Nothing was changed.' % (
                    auth_url, cloud))
    if status in (401, 404):
        return ('Keystone at %s refused the credentials of %s (HTTP %s). '
                'Check the user name, password, project and domains '
                '(clouds.yaml, OS_* variables or --os-* options). Nothing '
                'was changed.' % (auth_url, cloud, status))
    return None


def add_yes_option(parser):
    parser.add_argument('-y', '--yes', action='store_true',
                        help='Do not ask for confirmation.')


def add_wait_options(parser, waits_for, otherwise):
    """``--wait`` (the default: ``waits_for``) or ``--no-wait``
    (``otherwise``: what the command does instead), one excluding the
    other."""
    wait = parser.add_mutually_exclusive_group()
    wait.add_argument('--wait', dest='wait', action='store_true',
                      default=True, help='%s (default).' % waits_for)
    wait.add_argument('--no-wait', dest='wait', action='store_false',
                      help=otherwise)


def add_stack_option(parser):
    """``--stack``, or python-tripleoclient's ``--plan``: one name for the
    stack and its plan."""
    parser.add_argument('--stack', '--plan', dest='stack',
                        metavar='<name>', default='overcloud',
                        help='Stack (and plan) name (default overcloud).')


def add_environment_options(parser):
    parser.add_argument(
        '-e', '--environment-file', metavar='<file>', action='append',
        dest='environment_files', default=[],
        help='Environment file, in the order Heat merges them; may be '
             'repeated. Files outside --templates and what they reference '
             'are stored in the plan under user-files/.')
    parser.add_argument(
        '--upload-file', metavar='<local>[=<plan-path>]', action='append',
        dest='upload_files', default=[],
        help='Store any other file in the plan (default plan path: '
             'user-files/<absolute local path>); may be repeated.')


def add_remove_option(parser):
    parser.add_argument(
        '--remove-environment', metavar='<file>', action='append',
        dest='remove_environments', default=[],
        help='Drop an environment file from the list (local path or plan '
             'path); the stored file stays in the plan. May be repeated.')


def add_input_options(parser, directory=True, defaults=False):
    """``--environment-directory`` (unless ``directory`` is False; with
    ``defaults``, tripleoclient's directories too: see ``defaults``),
    ``-r``, ``-n``, ``-p``."""
    if directory:
        defaults_mod.add_environment_directory_option(parser, defaults)
    parser.add_argument('-r', '--roles-file', metavar='<file>',
                        help='Roles data file (default: roles_data.yaml '
                             'of --templates).')
    parser.add_argument('-n', '--networks-file', metavar='<file>',
                        help='Networks data file (default: network_data.yaml '
                             'of --templates).')
    parser.add_argument('-p', '--plan-environment-file', metavar='<file>',
                        help='Plan environment file (default: '
                             'plan-environment.yaml of --templates).')


def bounded_number(text, unit, least, most, example, note=''):
    """``text`` as a float from ``least`` (excluded when 0) to ``most``,
    else argparse's error: usage, the option and this message; exit 2."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (least <= value <= most and value > 0):   # nan compares False
        raise argparse.ArgumentTypeError(
            '%r: give a number of %s %s %g and at most %g%s, e.g. %s.' % (
                text, unit, 'of at least' if least else 'above', least,
                most, note, example))
    return value


# The longest a stack's follow task looks (protocol.FOLLOW_ROUNDS rounds
# of FOLLOW_DELAY seconds: ~416 minutes), less a margin: a stack timeout
# beyond it would outlive the record of its end
STACK_TIMEOUT_MAX = 400


def stack_minutes(text):
    """An argparse type: a stack operation's minutes, from above zero up
    to what its follow task can wait (``STACK_TIMEOUT_MAX``)."""
    return bounded_number(text, 'minutes', 0, STACK_TIMEOUT_MAX, '240',
                          ' (what Mistral\'s follow of the stack can wait)')


def minutes(text):
    """An argparse type: a number of minutes above zero, up to a year
    (``nan``, ``inf``, ``0`` are refused before anything is written)."""
    return bounded_number(text, 'minutes', 0, 525600, '30', ' (a year)')


def seconds(text):
    """An argparse type for the pause between two looks: at least 0.1 s
    (shorter would only hammer the services), at most an hour."""
    return bounded_number(text, 'seconds', 0.1, 3600, '2')


def count(text):
    """An argparse type: a whole number of at least 1."""
    value = bounded_number(text, 'items', 1, 10 ** 6, '50', ', whole')
    if value != int(value):
        raise argparse.ArgumentTypeError(
            '%r: give a whole number of at least 1, e.g. 50.' % text)
    return int(value)


def comma_list(text):
    """An argparse type: comma-separated words (Ansible tags), in their
    order, none empty."""
    items = [t.strip() for t in text.split(',')]
    if not text.strip() or not all(items):
        raise argparse.ArgumentTypeError(
            '%r: give comma-separated names, e.g. step1,step2.' % text)
    return items


# The longest a node operation's follow task looks (protocol.FOLLOW_ROUNDS
# rounds of NODE_FOLLOW_DELAY seconds), less a margin
NODE_TIMEOUT_MAX = 4800


def node_seconds(text):
    """An argparse type: the seconds a node operation may take, from 1
    up to what its follow task can wait (``NODE_TIMEOUT_MAX``)."""
    return int(bounded_number(text, 'seconds', 1, NODE_TIMEOUT_MAX, '3600'))


def read_file(path, nothing):
    """The bytes of the file the user named; else a CommandError naming
    it, why, and ``nothing`` (what was not done)."""
    try:
        with open(path, 'rb') as f:
            return f.read()
    except OSError as exc:
        raise exceptions.CommandError('Cannot read %s (%s). %s' % (
            path, exc.strerror, nothing))


def add_render_options(parser):
    parser.add_argument(
        '--no-render', action='store_true',
        help='Do not render the jinja2 templates now; the next command '
             'that can render will.')
    parser.add_argument(
        '--timeout', metavar='<minutes>', type=minutes, default=10,
        help='How long to wait for the render in Mistral, in minutes '
             '(default 10).')


def plan_files(parsed_args, templates, with_tree=False, origin=None,
               progress=None):
    """A plan.files.PlanFiles of everything the options name.

    ``with_tree``: the whole templates tree too (create, deploy
    --templates). ``origin``: who reads the sources where
    (``Command.origin``). ``progress``: told each environment directory
    read and its files. Any input error surfaces here, before the first
    request.
    """
    from tripleoplanclient.plan import files as files_mod

    files = files_mod.PlanFiles(templates)
    files.origin = origin
    if with_tree:
        defaults_mod.check_templates(templates)
        files.add_templates()
    for directory, why in defaults_mod.environment_directories(parsed_args):
        found = files.add_environment_directory(directory)
        if progress is not None:
            progress('Environment directory %s (%s): %s.' % (
                directory, why, ', '.join(found) or 'no *.yaml file'))
    for path in parsed_args.environment_files:
        files.add_environment(path)
    for kind, option in (('roles_data', 'roles_file'),
                         ('network_data', 'networks_file'),
                         ('plan_environment', 'plan_environment_file')):
        path = getattr(parsed_args, option, None)
        if path:
            files.add_input(kind, path, '--' + option.replace('_', '-'))
    for spec in parsed_args.upload_files:
        files.add_upload(spec)
    return files
