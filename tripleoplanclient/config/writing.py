"""How the tree's files are written: names from the plan checked before
they become paths, YAML dumped safe (no anchors, no tags, every string
quoted as it needs), and tripleo-common's template text read as YAML read
it.

tripleo-common wrote deployment and host_vars files by pasting Python
text into Jinja2 templates (a ``None`` became ``None``, a name ``true`` a
boolean). The files here are dumped from data, so no value can break the
YAML, and hold the data YAML read from tripleo-common's text
(``plain``, ``python_text``, ``literal``) wherever that text was well
formed.
"""

import re

import yaml

from tripleoplanclient.common import exceptions

MAX_NAME_BYTES = 255
MAX_DEPTH = 100
# Values, lists and mappings in one file: shared parts count each time
# they are written (the dump repeats them, it writes no aliases).
MAX_NODES = 5000000
# Control characters, the path separator: never in a name.
_BAD_NAME = re.compile(r'[\x00-\x1f\x7f/]')
# Text that YAML reads as one plain scalar whatever it holds: one line,
# not starting with an indicator, no ': ' or ' #', no trailing colon.
_PLAIN = re.compile(r'(?!-\s)[^\s!&*|>\'"%@`#{}\[\],?:]'
                    r'(?:(?!:\s| #)[^\n\r])*(?<![\s:])\Z')


def name(kind, value):
    """``value`` when it can name a file or folder of the tree, else a
    CommandError naming it (``kind``: what it is)."""
    text = value if isinstance(value, str) else None
    if (not text or text.startswith('.') or _BAD_NAME.search(text) or
            len(text.encode('utf-8', 'surrogatepass')) > MAX_NAME_BYTES):
        raise exceptions.CommandError(
            'The %s %r cannot name a file of the configuration tree (empty, '
            'a leading dot, a slash, a control character or more than %d '
            'bytes): rename it in the templates.' % (
                kind, value if not isinstance(value, str) else value[:80],
                MAX_NAME_BYTES))
    return text


_RESOLVER = yaml.resolver.Resolver()
_STR = 'tag:yaml.org,2002:str'


class _Dumper(getattr(yaml, 'CSafeDumper', yaml.SafeDumper)):
    def ignore_aliases(self, data):
        return True


def _text(dumper, value):
    # Lines as lines (a literal block) where YAML can keep them exactly;
    # the emitter quotes whatever a block cannot hold.
    style = '|' if '\n' in value else None
    return dumper.represent_scalar(_STR, value, style)


_Dumper.add_representer(str, _text)


def _depth(value):
    todo = [(value, 1)]
    nodes = 0
    while todo:
        item, depth = todo.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise exceptions.CommandError(
                'A stack output holds more than %d values: check the '
                'templates\' outputs.' % MAX_NODES)
        if depth > MAX_DEPTH:
            raise exceptions.CommandError(
                'A stack output nests deeper than %d levels: check the '
                'templates\' outputs.' % MAX_DEPTH)
        if isinstance(item, dict):
            todo.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, (list, tuple)):
            todo.extend((v, depth + 1) for v in item)


def dump(value):
    """YAML bytes of ``value``, block style and sorted keys as
    tripleo-common's ``safe_dump``, never an anchor or alias."""
    _depth(value)
    try:
        return yaml.dump(value, Dumper=_Dumper,
                         default_flow_style=False).encode('utf-8')
    except UnicodeEncodeError:
        raise exceptions.CommandError(
            'A stack output holds text that is not valid (a lone '
            'surrogate): check the templates\' outputs.')


def plain(text):
    """What YAML reads from ``text`` pasted as a plain scalar: a number,
    a boolean, None or a date where it looks like one; the text itself
    where YAML would have read no single scalar."""
    # a plain scalar drops the blanks around it
    bare = text.strip(' \t')
    if bare == '':
        return None
    if not _PLAIN.match(bare):
        return text
    # YAML's own resolver says which text is not a string; only those
    # are loaded (most are strings: no parsing)
    if _RESOLVER.resolve(yaml.ScalarNode, bare, (True, False)) == _STR:
        return bare
    try:
        value = yaml.safe_load(bare)
    except yaml.YAMLError:
        return text
    return value if not isinstance(value, (dict, list)) else text


def python_text(value):
    """What YAML reads from Python's ``str(value)`` pasted inline (a dict
    is a flow mapping, None the string 'None')."""
    if isinstance(value, str):
        return plain(value)
    if isinstance(value, (dict, list)):
        _depth(value)
        try:
            return yaml.safe_load(str(value))
        except yaml.YAMLError:
            return value
    return plain(str(value))


def literal(text, keep_end):
    """What YAML reads from ``text`` pasted as a literal block: its
    trailing line breaks dropped, one kept with ``keep_end`` ('|', not
    '|-'), line breaks as '\\n'."""
    text = text.replace('\r\n', '\n').replace('\r', '\n').rstrip('\n')
    return text + '\n' if keep_end and text else text
