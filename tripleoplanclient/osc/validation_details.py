"""``openstack overcloud validation show parameter`` and ``validation
group list``: a validation's parameters (a vars file of them), the
groups and how many validations each holds.

Loaded on every ``openstack`` run: standard library, cliff and light
osc-lib modules only at module level (see ``base``).
"""

import os

from osc_lib.command import command

from tripleoplanclient.osc import validation
from tripleoplanclient.osc import validation_parameters

PARAMETER_COLUMNS = ('validation', 'parameter', 'default')
GROUP_COLUMNS = ('group', 'description', 'validations')


class ShowValidationParameters(validation.ValidationCommand, command.Lister):
    _description = ('Show the parameters of validations (their first '
                    'play\'s vars and their roles\' defaults), or write '
                    'them as a vars file for --extra-vars-file')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('names', metavar='<name>', nargs='+',
                            help='Validations (see "validation list").')
        parser.add_argument(
            '--download', metavar='<file>',
            help='Write their parameters and defaults to this new file '
                 '(YAML, one mapping; refused if it exists), for '
                 '"validation run --extra-vars-file".')
        validation_parameters.add_plan(parser)
        return parser

    def take_action(self, parsed_args):
        from osc_lib import exceptions
        if parsed_args.download and os.path.lexists(parsed_args.download):
            raise exceptions.CommandError(
                '%s exists: remove it or give another --download file; '
                'nothing was written.' % parsed_args.download)
        found = validation_parameters.described(self, parsed_args,
                                                parsed_args.names)
        if parsed_args.download:
            merged = {}
            for v in found:
                for name, value in v['parameters'].items():
                    merged.setdefault(name, value)
            _write(parsed_args.download, merged)
            self.progress('Wrote %d parameter(s) of %s to %s.' % (
                len(merged), ', '.join(v['id'] for v in found),
                parsed_args.download))
        return PARAMETER_COLUMNS, [
            (v['id'], name, value) for v in found
            for name, value in sorted(validation_parameters.shown(
                v['parameters']).items())]


def _write(path, data):
    """``data`` as YAML in a new file only its owner reads (defaults may
    be secrets)."""
    from osc_lib import exceptions
    import yaml
    text = yaml.safe_dump(data, default_flow_style=False, sort_keys=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise exceptions.CommandError('--download %s: %s; nothing was '
                                      'written.' % (path, exc.strerror))
    with os.fdopen(fd, 'w') as f:
        f.write(text)


class ListValidationGroups(validation.ValidationCommand, command.Lister):
    _description = ('List the validation groups: each one\'s description '
                    'and how many validations it has')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        validation_parameters.add_plan(parser)
        return parser

    def take_action(self, parsed_args):
        found = self.ask(parsed_args, 'validation_list',
                         plan=parsed_args.plan)
        counts = {}
        for v in found['validations']:
            for group in v['groups']:
                counts[group] = counts.get(group, 0) + 1
        return GROUP_COLUMNS, [
            (name, text, counts.get(name, 0))
            for name, text in sorted(found['groups'].items())]
