"""The project's own flake8 checks, beside hacking's (tox.ini's
``[flake8:local-plugins]``)."""

import re

_OBJECT_BASE = re.compile(r'class\s+\w+\s*\(\s*object\s*\)\s*:')


def no_object_base(logical_line):
    """P101: a class naming ``object`` as its base: every class is
    new-style on Python 3, so the base only adds noise."""
    found = _OBJECT_BASE.match(logical_line)
    if found:
        yield found.start(), 'P101 class names object as its base: ' \
            'write "class Name:"'
