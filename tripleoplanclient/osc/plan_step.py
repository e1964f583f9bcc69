"""``openstack overcloud plan show-step``: every file of a plan as it
stood after one step.

Its own command rather than an option of ``show-history``: a command's
columns never depend on its options (``-c`` keeps working).

Loaded on every ``openstack`` run: standard library, cliff and light
osc-lib modules only at module level (see ``base``).
"""

import argparse

from osc_lib.command import command

from tripleoplanclient.osc import base

COLUMNS = ('path', 'md5', 'environment', 'source')


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

        plan = layout.check_name(parsed_args.plan)
        store = self.plan_store()
        at = past.at(store, plan, parsed_args.step)
        files = past.files(store, at)
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
