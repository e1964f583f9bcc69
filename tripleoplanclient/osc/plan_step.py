"""``openstack overcloud plan show-step``: every file of a plan as it
stood after one step.

Its own command rather than an option of ``show-history``: a command's
columns never depend on its options (``-c`` keeps working).

Loaded on every ``openstack`` run: standard library, cliff and light
osc-lib modules only at module level (see ``base``).
"""

import argparse

from cliff import columns
from osc_lib.command import command

from tripleoplanclient.osc import base

# name: the file as the user gave it; source_state: whether its recorded
# source is still there as recorded (record.sources.states).
COLUMNS = ('path', 'md5', 'environment', 'source', 'name', 'source_state')


class EnvironmentsColumn(columns.FormattableColumn):
    """An environment list: as people know its files in a table (the
    names they gave), as plan paths for scripts (json, yaml, value...:
    what "plan restore" and "-e" take)."""

    def __init__(self, paths, shown):
        super().__init__(list(shown))
        self._paths = list(paths)

    def human_readable(self):
        return ', '.join(self._value)

    def machine_readable(self):
        return list(self._paths)


# A table names the files in ``environments`` as given: it leaves out
# the column that holds those names for scripts (base.Command).
NAMES_IN_TABLES = ('environment_names',)


def environment_columns(paths, names):
    """The ``environments`` and ``environment_names`` values of a list of
    plan paths, ``names`` their given names (``{path: name}``)."""
    from osc_lib.cli import format_columns

    shown = [(names or {}).get(p) or p for p in paths]
    return (EnvironmentsColumn(paths, shown),
            format_columns.ListColumn(shown))


class ShowPlanStep(base.Command, command.Lister):
    _description = ('List every file of a deployment plan as it stood '
                    'after one step: path, MD5, place in the environment '
                    'list, local source')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('plan', metavar='<plan>', help='Plan name.')
        parser.add_argument('step', metavar='<step>',
                            help='The step: its number in "overcloud plan '
                                 'show-history" or its id.')
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient.plan import layout
        from tripleoplanclient.record import configs
        from tripleoplanclient.record import hook_runs
        from tripleoplanclient.record import past
        from tripleoplanclient.record import sources

        plan = layout.check_name(parsed_args.plan)
        store = self.plan_store()
        at = past.at(store, plan, parsed_args.step)
        files = past.files(store, at)
        states, unread = sources.states(at.state, self.origin(plan))
        files = [row + ((at.state['files'].get(row[0]) or {}).get('name'),
                        states.get(row[0])) for row in files]
        self.progress('Plan %s after step %d (%s, %s): %d files, %d '
                      'environment files.' % (
                          plan, at.row['step'], at.row['id'],
                          at.row['action'], len(files),
                          len(at.state['environments'])))
        hook_runs.merge(store.container, plan, [at.row], at.listing)
        for found in at.row.get('validations') or ():
            # --run-validations, --run-post-validations
            self.progress('Validations of step %d (%s hook): %s run %s, %s.'
                          % (at.row['step'], found['hook'], found['group'],
                             found['run'], found['status']))
        shown = configs.shown(at.row.get('config'))
        if shown:
            # its own Ansible tree: "overcloud config download --step"
            self.progress('Configuration of step %d: %s' % (
                at.row['step'], ', '.join('%s=%s' % (k, shown[k])
                                          for k in sorted(shown))))
        gone = [sources.shown(at.state['files'][p].get('name') or
                              at.state['files'][p]['source'])
                for p, s in sorted(states.items()) if s == sources.GONE]
        if gone:
            self.progress('%d recorded source(s) gone from this machine '
                          '(the plan keeps its copies): %s.' % (
                              len(gone), ', '.join(gone)))
        for line in sources.told(unread, 'checked'):
            self.progress(line)
        return COLUMNS, files


class MovedToShowStep(argparse.Action):
    """``show-history --step``, kept only to say where it went (exit
    status 2, as any other usage error)."""

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(
            '%s is no longer an option of "overcloud plan show-history" '
            '(its columns are always the steps\'): the files of a step are '
            '"openstack overcloud plan show-step <plan> %s".' % (
                option_string, values))


def add_moved_step_option(parser):
    parser.add_argument('--step', metavar='<step>', action=MovedToShowStep,
                        help=argparse.SUPPRESS)
