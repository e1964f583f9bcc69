"""The defaults an operator coming from python-tripleoclient counts on:
the installed templates tree behind a bare ``--templates``, and the
directories whose environment files a deploy reads without being told.

Loaded on every ``openstack`` run: standard library and osc-lib's
exceptions only.
"""

import os

from osc_lib import exceptions

# Where the openstack-tripleo-heat-templates package puts the tree on an
# undercloud: what tripleoclient's bare --templates means.
INSTALLED_TEMPLATES = '/usr/share/openstack-tripleo-heat-templates'
# tripleoclient reads this directory on every deploy when it exists...
ENVIRONMENT_DIRECTORY = os.path.join('~', '.tripleo', 'environments')
# ...and, after the --environment-directory ones, this variable's.
ENVIRONMENT_DIRECTORY_VARIABLE = 'TRIPLEO_ENVIRONMENT_DIRECTORY'


def add_templates_option(parser, help, default=None):
    parser.add_argument(
        '--templates', metavar='<dir>', nargs='?', default=default,
        const=INSTALLED_TEMPLATES,
        help='%s "--templates" alone means the installed tree, %s.' % (
            help, INSTALLED_TEMPLATES))


def check_templates(templates):
    """Refuse the installed tree where it is not installed, with what to
    do (before any file is read)."""
    if templates == INSTALLED_TEMPLATES and not os.path.isdir(templates):
        raise exceptions.CommandError(
            '--templates: the installed templates tree %s does not exist '
            'on this machine. Install openstack-tripleo-heat-templates, or '
            'give the tree\'s path: --templates <dir>. Nothing was changed.'
            % INSTALLED_TEMPLATES)


def add_environment_directory_option(parser, defaults):
    """``--environment-directory``; with ``defaults`` the command also
    reads tripleoclient's default directories (``environment_directories``).
    """
    text = ('Add every *.yaml of this directory, sorted by name, before '
            'the -e files of this command; may be repeated.')
    if defaults:
        text += (' Read without asking, as tripleoclient does: %s first '
                 '(when it exists), $%s last (when set).' % (
                     ENVIRONMENT_DIRECTORY, ENVIRONMENT_DIRECTORY_VARIABLE))
    parser.add_argument(
        '--environment-directory', metavar='<dir>', action='append',
        dest='environment_directories', default=[], help=text)
    parser.set_defaults(default_environment_directories=defaults)


def environment_directories(parsed_args):
    """``[(directory, what named it)]`` in tripleoclient's order: the
    default directory when it exists (a missing one is no error: most
    operators have none), the ``--environment-directory`` ones, then the
    variable's (named on purpose: missing is an error, as for the option).
    """
    named = [(d, '--environment-directory')
             for d in getattr(parsed_args, 'environment_directories', [])]
    if not getattr(parsed_args, 'default_environment_directories', False):
        return named
    found = []
    home = os.path.expanduser(ENVIRONMENT_DIRECTORY)
    if os.path.isdir(home):
        found.append((home, 'the default'))
    found.extend(named)
    variable = os.environ.get(ENVIRONMENT_DIRECTORY_VARIABLE)
    if variable:
        if not os.path.isdir(variable):
            raise exceptions.CommandError(
                '$%s=%s is not a directory: create it or unset the '
                'variable. Nothing was changed.' % (
                    ENVIRONMENT_DIRECTORY_VARIABLE, variable))
        found.append((variable, '$' + ENVIRONMENT_DIRECTORY_VARIABLE))
    # A directory named twice is read once, where it first comes.
    result, seen = [], set()
    for directory, why in found:
        real = os.path.realpath(directory)
        if real not in seen:
            seen.add(real)
            result.append((directory, why))
    return result
