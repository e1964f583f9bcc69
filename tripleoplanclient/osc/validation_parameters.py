"""What ``validation run`` is given beside its validations (extra vars,
a host limit, categories, products, a skiplist: validations-libs'
options), and ``validation show <validation>``; the commands that show
a validation's parameters and the groups are ``validation_details``'.

Loaded on every ``openstack`` run: standard library, cliff and light
osc-lib modules only at module level (see ``base``).
"""

# ``status``: READY, or MALFORMED (``problem`` says why)
SHOW_COLUMNS = ('id', 'name', 'description', 'groups', 'categories',
                'products', 'source', 'problem', 'parameters', 'status')
# how much of a local file (--extra-vars-file, --skiplist) is read
_MAX_FILE = 1024 * 1024


def add_run_options(parser):
    """``validation run``'s options of validations-libs."""
    parser.add_argument(
        '--category', metavar='<category>', action='append', default=[],
        dest='categories',
        help='Run every validation of this category (repeatable; with '
             '--group and --product: those in any of them).')
    parser.add_argument(
        '--product', metavar='<product>', action='append', default=[],
        dest='products',
        help='Run every validation of this product (repeatable).')
    parser.add_argument(
        '--extra-vars', metavar='<key=value>', action='append', default=[],
        help='A variable for the playbooks, as text (repeatable; beats '
             '--extra-vars-file). Secrets (a name with password, secret, '
             'token, key...) are masked in the results.')
    parser.add_argument(
        '--extra-vars-file', metavar='<file>',
        help='A YAML or JSON file mapping variables to values (e.g. '
             'written by "validation show parameter --download").')
    parser.add_argument(
        '--limit', metavar='<hosts>',
        help='Run on these hosts only: an Ansible pattern of host and '
             'group names ("h1,h2", "overcloud:!h3").')
    parser.add_argument(
        '--skiplist', metavar='<file>',
        help='validations-libs\' skiplist: {validation: {hosts: all or '
             '"h1,h2", reason: ..., lp: ...}}; skipped on all hosts: '
             'SKIPPED with the reason, on some: run without them.')


def _read(path, what):
    from osc_lib import exceptions
    try:
        with open(path, 'rb') as f:
            data = f.read(_MAX_FILE + 1)
    except OSError as exc:
        raise exceptions.CommandError('%s %s: %s.' % (
            what, path, exc.strerror or exc))
    if len(data) > _MAX_FILE:
        raise exceptions.CommandError('%s %s: more than %d bytes.' % (
            what, path, _MAX_FILE))
    return data


def run_fields(parsed_args):
    """The run request's fields of these options, checked (nothing has
    run when one is refused)."""
    from tripleoplanclient.validations import parameters
    extra = {}
    if parsed_args.extra_vars_file:
        extra = parameters.read_vars_file(_read(
            parsed_args.extra_vars_file, '--extra-vars-file'),
            parsed_args.extra_vars_file)
    extra.update(parameters.from_pairs(parsed_args.extra_vars))
    skiplist = parameters.read_skiplist(_read(
        parsed_args.skiplist, '--skiplist'), parsed_args.skiplist) \
        if parsed_args.skiplist else None
    return {'extra_vars': parameters.check_extra_vars(
        extra, '--extra-vars') or None,
        'limit': parameters.check_limit(parsed_args.limit),
        'categories': parsed_args.categories or None,
        'products': parsed_args.products or None,
        'skiplist': skiplist or None}


def _list(value):
    from osc_lib.cli import format_columns
    return format_columns.ListColumn(value or [])


def add_plan(parser):
    parser.add_argument('--plan', metavar='<plan>',
                        help='Plan whose custom-validations/ add or '
                             'override.')


def shown(params):
    """Parameters as they are printed: secrets masked."""
    from tripleoplanclient.validations import parameters
    return parameters.masked(params)


def described(cmd, parsed_args, names):
    """The rows of validations ``names`` with their parameters."""
    return cmd.ask(parsed_args, 'validation_list', plan=parsed_args.plan,
                   names=names)['validations']


def ready(validation):
    """A listed validation's ``status``: MALFORMED when it has a
    ``problem`` (it never runs), else READY."""
    return 'MALFORMED' if validation.get('problem') else 'READY'


def show_validation(cmd, parsed_args):
    """``validation show <name>``: its metadata and parameters."""
    found = described(cmd, parsed_args, [parsed_args.run])[0]
    found['parameters'] = shown(found['parameters'])
    found['status'] = ready(found)
    return SHOW_COLUMNS, tuple(
        _list(found[c]) if c in ('groups', 'categories', 'products')
        else found[c]
        for c in SHOW_COLUMNS)
