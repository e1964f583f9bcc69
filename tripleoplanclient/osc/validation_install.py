"""``openstack overcloud validation install``: the validations written
into the tripleo-validations container of the caller's project, in
tripleo-validations' layout (``validations.catalog``).

Loaded on every ``openstack`` run: standard library, cliff and light
osc-lib modules only at module level (see ``base``).
"""

from osc_lib.command import command

from tripleoplanclient.osc import exit_status

INSTALL_COLUMNS = ('container', 'written', 'unchanged', 'removed', 'kept',
                   'validations', 'sources', 'status', 'message')


def _list(value):
    from osc_lib.cli import format_columns
    return format_columns.ListColumn(value or [])


class InstallValidations(exit_status.ResultCommand, command.ShowOne):
    _description = ('Install validations into the tripleo-validations '
                    'container of your project, in tripleo-validations\' '
                    'layout: the shipped ones, then each --from directory '
                    'and --from-package distribution in the order given (a '
                    'later one overrides an earlier one\'s objects; the '
                    'groups.yaml files are merged). One listing, then only '
                    'the new or changed objects, in one bulk request')
    columns = INSTALL_COLUMNS
    reason_column = 'message'

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--from', metavar='<directory>', dest='sources',
            action='append', type=lambda v: ('directory', v),
            help='A directory in tripleo-validations\' layout (groups.yaml, '
                 'validation-playbooks/, roles/, library/, ...: a checkout, '
                 'or <venv>/share/ansible). Repeatable.')
        parser.add_argument(
            '--from-package', metavar='<distribution>', dest='sources',
            action='append', type=lambda v: ('package', v),
            help='An installed distribution whose data files under '
                 'share/ansible are in that layout (tripleo-validations, '
                 'validations-common). Repeatable.')
        return parser

    def known(self, parsed_args):
        from tripleoplanclient.validations import catalog
        return {'container': catalog.CONTAINER}

    def take_action(self, parsed_args):
        from tripleoplanclient.validations import catalog
        from tripleoplanclient.validations import sources
        trees = [('the shipped validations', sources.ours())]
        for kind, value in parsed_args.sources or ():
            trees.append(('--from %s' % value, sources.directory(value))
                         if kind == 'directory' else
                         ('--from-package %s' % value,
                          sources.package(value)))
        files = sources.merge(trees)
        # from here on, objects may be written: a failure is no refusal
        self.changed({'sources': [what for what, _ in trees]})
        result = catalog.install(self.plan_store(), files)
        self.progress('Validations: %d written, %d unchanged%s; %d '
                      'validations.' % (
                          len(result['written']), result['unchanged'],
                          ', %d removed (installed at the top by an older '
                          'version)' % len(result['removed'])
                          if result['removed'] else '',
                          result['validations']))
        if result['kept']:
            self.progress(
                '%d object(s) no source holds stay in %s (delete them '
                'with "openstack object delete"): %s%s' % (
                    len(result['kept']), catalog.CONTAINER,
                    ', '.join(result['kept'][:10]),
                    ', ...' if len(result['kept']) > 10 else ''))
        return INSTALL_COLUMNS, (
            catalog.CONTAINER, _list(result['written']), result['unchanged'],
            _list(result['removed']), _list(result['kept']),
            result['validations'], [what for what, _ in trees], 'SUCCESS',
            None)
