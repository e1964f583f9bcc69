"""``openstack overcloud config download``: the Ansible tree
(config-download) of a stack step, made by Mistral and kept with the
step, written into a local directory.

Loaded on every ``openstack`` run: standard library, cliff and osc-lib
only at module level (see ``base``).
"""

import os

from osc_lib.command import command
from osc_lib import exceptions

from tripleoplanclient.osc import base
from tripleoplanclient.osc import exit_status

COLUMNS = ('plan', 'step', 'id', 'config_dir', 'object', 'files', 'bytes',
           'built', 'status')
# Seconds to wait for Mistral to make the tree (a THT 18 stack: seconds).
MISTRAL_WAIT = 900


def default_dir():
    """tripleoclient's: ``tripleo-config`` in the home of the user who
    runs it (under sudo, the user who called sudo)."""
    return os.path.join(os.path.expanduser(
        '~' + os.environ.get('SUDO_USER', '')), 'tripleo-config')


def config_types(values):
    """``--config-type`` values, each given whole or comma-separated (never
    split into characters), in order, once each."""
    found = []
    for value in values or ():
        for item in value.split(','):
            if item.strip() and item.strip() not in found:
                found.append(item.strip())
    return found


class DownloadConfig(exit_status.ResultCommand, base.Command,
                     command.ShowOne):
    _description = ('Write the Ansible tree (config-download) of the plan\'s '
                    'stack, or of a past stack step, into a directory: '
                    'made by Mistral and kept with the step')

    columns = COLUMNS

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--name', '--plan', '--stack', dest='plan', metavar='<name>',
            default='overcloud',
            help='Plan (and stack) name (default overcloud).')
        parser.add_argument(
            '--config-dir', metavar='<directory>', default=None,
            help='Where to write the tree (default: tripleo-config in the '
                 'home directory, as tripleoclient). Files the tree does '
                 'not name are kept there (see --no-preserve-config).')
        parser.add_argument(
            '--config-type', metavar='<type>', action='append',
            help='Only these RoleData keys (e.g. deploy_steps_tasks); '
                 'repeat the option or separate them with commas. Default: '
                 'all.')
        parser.add_argument(
            '--no-preserve-config', dest='preserve', action='store_false',
            default=True,
            help='Delete --config-dir first, then write the tree (default: '
                 'write into it, replacing the files the tree names).')
        parser.add_argument(
            '--step', metavar='<step>',
            help='A past stack step (its number in "overcloud plan '
                 'show-history" or its id): the tree kept with it. '
                 'Default: the newest stack step.')
        return parser

    def take_action(self, parsed_args):
        from tripleoplanclient.plan import layout
        from tripleoplanclient.record import configs
        from tripleoplanclient.workflows import config

        plan = layout.check_name(parsed_args.plan)
        where = os.path.abspath(parsed_args.config_dir or default_dir())
        _check_target(where, parsed_args.preserve)
        result = config.download(self.workflows(), config.download_request(
            plan, self.clients.endpoint('object-store'),
            self.clients.endpoint('orchestration'), parsed_args.step,
            config_types(parsed_args.config_type)), MISTRAL_WAIT)
        self.progress('Configuration of step %s (%s) of plan %s: %s, %s '
                      'bytes (%s).' % (
                          result.get('number'), result['step'], plan,
                          result['object'], result['bytes'],
                          'made from the stack with %s Heat requests'
                          % result.get('heat_requests') if result.get(
                              'built') else 'kept with the step'))
        # One GET: the archive, as Mistral kept it.
        data = self.plan_store(read_only=True).container.get(
            plan, result['object'])
        if data is None:
            raise exceptions.CommandError(
                'Plan %s: %s vanished (the plan was changed meanwhile); run '
                'the command again.' % (plan, result['object']))
        if not parsed_args.preserve and os.path.isdir(where):
            import shutil
            self.progress('Removing %s first (--no-preserve-config).'
                          % where)
            shutil.rmtree(where)
        files, size = configs.unpack(data, where, 'The configuration %s of '
                                     'plan %s' % (result['object'], plan))
        self.progress('The configuration has been written into %s (%d '
                      'files, %d bytes).' % (where, files, size))
        return COLUMNS, (plan, result.get('number'), result['step'], where,
                         result['object'], files, size,
                         bool(result.get('built')), 'SUCCESS')

    def known(self, parsed_args):
        return dict(super().known(parsed_args), plan=parsed_args.plan)


def _check_target(where, preserve):
    """Refuse a directory that is a file, or one --no-preserve-config
    would delete along with more than a tree (a root, a home)."""
    if os.path.exists(where) and not os.path.isdir(where):
        raise exceptions.CommandError(
            '--config-dir %s is not a directory. Nothing was written.'
            % where)
    if not preserve and (os.path.dirname(where) == where or where in (
            os.path.expanduser('~'), os.path.abspath(os.curdir))):
        raise exceptions.CommandError(
            '--no-preserve-config would delete %s, which holds more than a '
            'configuration tree: give a directory of its own with '
            '--config-dir. Nothing was written.' % where)
