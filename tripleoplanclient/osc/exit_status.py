"""A result row whatever the outcome, and an exit status that tells it.

Scripts run ``... -f json > result.json`` under ``set -e``: a command
that changes or waits prints its row even when it failed, timed out, was
interrupted or refused, so the file always parses, and its exit status
says which (doc/source/guide/scripting.rst, "Exit status"). Loaded on
every ``openstack`` run: standard library, cliff and osc-lib only.
"""

from cliff import lister
from osc_lib import exceptions

from tripleoplanclient.osc import base

DONE, FAILED, REFUSED, TIMEOUT, INTERRUPTED = 0, 1, 3, 4, 130
# The row's status -> exit status; any other status (SUCCESS, UNCHANGED,
# IN_PROGRESS with --no-wait...) is done.
EXIT_STATUS = {'FAILED': FAILED, 'UNKNOWN': FAILED, 'REFUSED': REFUSED,
               'TIMEOUT': TIMEOUT, 'INTERRUPTED': INTERRUPTED}
# The longest ``reason`` a row carries: a table cell, not a report
REASON_MAX = 500


def reason(text, most=REASON_MAX):
    """``text`` as a row's ``reason``: one line of at most ``most``
    characters (its lines and runs of white space joined by one space),
    secrets masked by masking's rule for lines (a key that names a secret
    shows ``***``, so does a URL's user-info). None for no text."""
    from tripleoplanclient.common import masking

    if not text:
        return None
    line = ' '.join(' '.join(masking.mask_lines(
        str(text).splitlines())).split())
    return line if len(line) <= most else line[:most - 3] + '...'


class Interrupted(KeyboardInterrupt):
    """Ctrl-C, with what the user should know (what goes on, where to
    follow it)."""


class ResultCommand(base.Command):
    """Base of the commands that change or wait (before cliff's ShowOne).

    ``columns``: the row, the same in every case. A CommandError before
    ``changed()`` is a refusal (nothing done): exit 3, status REFUSED;
    after it, or an error of another kind, a failure: exit 1, status
    FAILED; Ctrl-C: exit 130, status INTERRUPTED. Every other column is
    what the command knew then, else null; its ``reason_column`` says why
    (the error's message, ``reason()``). A Lister prints that row as its
    only one (its rows' statuses are its own: ``self.status`` stays
    None unless it sets it).
    """

    columns = ()
    reason_column = 'reason'
    # the action column, when the command line does not give it
    action = None
    # None: told by the row's status (EXIT_STATUS); a command sets it when
    # its status column does not tell (a software deployment still
    # IN_PROGRESS at --timeout, one cancelled, so FAILED on purpose).
    exit_status = None

    def known(self, parsed_args):
        """The columns the command line gives: its arguments of the same
        name (``plan``, a deployment's ``action``...), and ``action``."""
        found = {c: getattr(parsed_args, c) for c in self.columns
                 if getattr(parsed_args, c, None) is not None}
        if self.action is not None:
            found.setdefault('action', self.action)
        return found

    def changed(self, fields=None):
        """The command changed something or asked a service to (a step on
        record, a stack or deployment started): a failure from now on is
        no refusal. ``fields``: columns known now."""
        self.started = True
        self.fields.update(fields or {})

    def produce_output(self, parsed_args, column_names, data):
        if not isinstance(self, lister.Lister):
            self.status = dict(zip(column_names, data)).get('status')
        return super().produce_output(parsed_args, column_names, data)

    def run(self, parsed_args):
        self.started, self.status, self.why = False, None, None
        self.fields = dict(self.known(parsed_args))
        try:
            code = super().run(parsed_args)
        except KeyboardInterrupt as exc:
            self.error('Interrupted%s' % (': %s' % exc if str(exc) else '.'))
            self.why = 'Interrupted%s' % (': %s' % exc if str(exc) else '')
            return self._early(parsed_args, 'INTERRUPTED')
        except exceptions.CommandError as exc:
            from tripleoplanclient.workflows import executions
            self.error(str(exc))
            self.why = str(exc)
            if isinstance(exc, executions.StillRunning):
                return self._early(parsed_args, 'TIMEOUT')
            # Lost sight of Mistral: the operation may go on there.
            return self._early(parsed_args, 'FAILED' if self.started or
                               isinstance(exc, executions.Unobserved)
                               else 'REFUSED')
        except Exception as exc:
            # Unforeseen: the row, then cliff's report of it (exit 1).
            self.why = '%s: %s' % (type(exc).__name__, exc)
            self._early(parsed_args, 'FAILED')
            raise
        if code:
            return code
        if self.exit_status is not None:
            return self.exit_status
        return EXIT_STATUS.get(self.status, DONE)

    def _early(self, parsed_args, status):
        row = dict(dict.fromkeys(self.columns), **self.fields)
        row['status'] = status
        if self.reason_column in row:
            row[self.reason_column] = reason(self.why)
        values = tuple(row[c] for c in self.columns)
        super().produce_output(parsed_args, self.columns, [values] if
                               isinstance(self, lister.Lister) else values)
        return EXIT_STATUS[status]
