"""What the tables of ``plan show-history`` and ``plan diff`` show: each
environment list as its changes from the step before, a diff's lists and
parameters summarized, its text as each file's counts. Every value stays
whole in ``-f json``/``-f yaml`` and with ``--long`` (formats.summary).

Loaded on every ``openstack`` run: standard library, cliff and light
osc-lib modules only at module level (see ``base``).
"""

from tripleoplanclient.osc import formats
from tripleoplanclient.osc import summaries

DIFF_LISTS = ('files_added', 'files_removed', 'files_changed')
# What show-history's table leaves out to fit a terminal: the project
# (the plan's, for every step), and the config and validations columns,
# whose statuses the outcome cell shows (--long and -c show them all).
HISTORY_LEAVES_OUT = ('project', 'config', 'validations')


def history(rows, parsed_args):
    """show-history's rows (``plan.HISTORY_COLUMNS``) of recorded
    ``rows``."""
    from osc_lib.cli import format_columns

    from tripleoplanclient.osc import hooks
    from tripleoplanclient.osc import plan_step
    from tripleoplanclient.record import configs
    from tripleoplanclient.record import log

    before = None
    for r in rows:
        whole, names = plan_step.environment_columns(
            log.heat_environments(r), r.get('names'))
        environments = names.machine_readable()
        # the date above the time: a narrower column
        when = str(r['time']).replace('T', '\n', 1)
        yield (r['step'], r['id'],
               formats.summary(r['time'], when, parsed_args),
               r['action'], r.get('user'), r.get('project'),
               r.get('templates'),
               formats.summary(whole,
                               summaries.changes(before, environments),
                               parsed_args),
               formats.summary(format_columns.DictColumn(r['outcome']),
                               summaries.outcome(r['outcome'],
                                                 r.get('config'),
                                                 r.get('validations')),
                               parsed_args),
               format_columns.DictColumn(configs.shown(r.get('config'))),
               hooks.column(r.get('validations')),
               names)
        before = environments


def diff(result, parsed_args):
    """plan diff's row (``record.diff.COLUMNS``) of ``diff.compare``'s
    ``result``."""
    from osc_lib.cli import format_columns

    from tripleoplanclient.osc import plan_step
    from tripleoplanclient.record import diff as diff_mod

    names = result['environment_names']

    def value(column):
        found = result[column]
        if column in ('environments_added', 'environments_removed'):
            whole, shown = plan_step.environment_columns(found, names)
            return formats.summary(
                whole, summaries.listed(shown.machine_readable()),
                parsed_args)
        if column == 'environment_names':
            return format_columns.DictColumn(found)
        if column in DIFF_LISTS:
            return formats.summary(format_columns.ListColumn(found),
                                   summaries.listed(found), parsed_args)
        if column == 'parameters_changed':
            return formats.summary(format_columns.DictColumn(found),
                                   summaries.parameters(found), parsed_args)
        if column in ('from', 'to'):
            return formats.summary(format_columns.DictColumn(found),
                                   summaries.step(found), parsed_args)
        if column == 'diff' and found:
            return formats.summary(found, summaries.diffstat(found),
                                   parsed_args)
        return found

    return tuple(value(c) for c in diff_mod.COLUMNS)
