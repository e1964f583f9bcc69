"""Text from others made safe to print on a terminal (both sides; the
CLI prints it).

A validation's task messages and host names, a Heat status reason, a
software deployment's stdout: anyone who can write a playbook or a
config writes them. Printed raw, an escape sequence in them moves the
cursor and redraws what the operator reads (``\\x1b[1A\\x1b[2KPASSED``
turns the FAILED line above into PASSED), a carriage return or a
backspace overwrites the line. ``printable`` quotes every such
character as a visible escape; machine formats (``-f json``, ``-f
yaml``) keep the exact data, since their own escaping is safe.
"""

import re

# C0, DEL, C1 (a lone 0x9b is CSI on some terminals), and the Unicode
# marks that reorder or break what follows them (bidi controls, line
# and paragraph separators)
_CONTROL = re.compile('[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029'
                      '\u202a-\u202e\u2066-\u2069]')
_NAMED = {'\t': '\\t', '\n': '\\n', '\r': '\\r'}


def _quoted(found):
    char = found.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return '\\x%02x' % code if code < 0x100 else '\\u%04x' % code


def _quoted_but_lines(found):
    char = found.group()
    return char if char in '\n\t' else _quoted(found)


def printable(text, lines=False):
    """``text`` with each control character written as its escape
    (``\\x1b``, ``\\r``, ``\\u202e``...); ``lines``: a line feed and a tab
    stay as they are (a multi-line field, a message of several lines:
    they cannot reach back into a line already printed). Anything but a
    str is returned as it is."""
    if not isinstance(text, str):
        return text
    return _CONTROL.sub(_quoted_but_lines if lines else _quoted, text)
