"""Object content: its MD5 (what Swift's listings carry) and YAML parsing.

Every module that compares content with Swift or parses a user's YAML goes
through here, so a digest or a parse error reads the same everywhere.
"""

import hashlib

import yaml

from tripleoplanclient.common import exceptions

# The C parser is several times faster on a THT-sized tree.
Loader = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)


def md5(data):
    return hashlib.md5(data, usedforsecurity=False).hexdigest()


def load_yaml(data, name, quote=True):
    """Parse YAML bytes; a parse error names the file and the line.

    ``quote=False`` leaves the parser's problem out of the message: it can
    quote the file's text, and some files hold secrets.
    """
    try:
        return yaml.load(data, Loader=Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, 'problem_mark', None)
        line = ' (line %d)' % (mark.line + 1) if mark is not None else ''
        problem = (': ' + (getattr(exc, 'problem', None) or str(exc))
                   if quote else '')
        raise exceptions.CommandError(
            '%s is not valid YAML%s%s. Fix the file and run the command '
            'again.' % (name, line, problem))


def dump_yaml(data):
    """Block-style YAML bytes, keys in the order given."""
    return yaml.safe_dump(data, default_flow_style=False, sort_keys=False,
                          encoding='utf-8')
