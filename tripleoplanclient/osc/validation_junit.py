"""``--junitxml FILE`` of ``overcloud validation run`` and ``validation
show <run>``: the file checked before anything runs, then written
(``validations.junit`` builds the XML).

Loaded on every ``openstack`` run: standard library only at module
level (see ``base``).
"""


def add_option(parser):
    parser.add_argument(
        '--junitxml', metavar='<file>',
        help='Also write the run as JUnit XML to this file (replaced if '
             'it exists): one testcase per validation and host, for CI.')


def target(parsed_args):
    """``--junitxml``'s file as an absolute path, refused before anything
    is done when it cannot be written (None without the option)."""
    import os

    from osc_lib import exceptions
    if parsed_args.junitxml is None:
        return None
    path = os.path.abspath(parsed_args.junitxml)
    if getattr(parsed_args, 'wait', True) is False:
        raise exceptions.CommandError(
            '--junitxml needs the run\'s end: drop --no-wait, or write it '
            'later with "openstack overcloud validation show <run> '
            '--junitxml %s".' % parsed_args.junitxml)
    if parsed_args.junitxml == '-':
        raise exceptions.CommandError(
            '--junitxml -: stdout is the run\'s row; give a file.')
    folder = os.path.dirname(path)
    if os.path.isdir(path) or not os.path.isdir(folder) or \
            not os.access(folder, os.W_OK | os.X_OK):
        raise exceptions.CommandError(
            '--junitxml %s: give a file in a directory you may write to.'
            % parsed_args.junitxml)
    return path


def write(cmd, path, run):
    """Write ``run`` (with its results) as JUnit XML to ``path``: beside
    it, then renamed; the path said on stderr."""
    from osc_lib import exceptions

    from tripleoplanclient.osc import plan
    from tripleoplanclient.validations import junit
    data = junit.build(run)
    try:
        plan.write_atomically(path, lambda f: f.write(data))
    except OSError as exc:
        raise exceptions.CommandError(
            'Validation run %s ended %s but its JUnit XML could not be '
            'written to %s: %s. Write it with "openstack overcloud '
            'validation show %s --junitxml <file>".' % (
                run['run'], run.get('status'), path, exc, run['run']))
    cmd.progress('JUnit XML of validation run %s written to %s.'
                 % (run['run'], path))
