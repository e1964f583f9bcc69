"""How a command's values print in each format: tables for people, the
line formats for shell scripts, JSON and YAML whole.

A table is as wide as the terminal and each cell is cut to what a person
reads (``cell``); a command that summarizes long values (``Summary``:
show-history, plan diff...) takes ``--long`` to print them whole. Scripts
read ``-f json`` or ``-f yaml``: every value whole, as the command made
it; ``value``, ``shell`` and ``csv`` print each whole too, as plain text
(``plain``).

Loaded on every ``openstack`` run: standard library and cliff only.
"""

import os
import shutil

from cliff import columns

from tripleoplanclient.common.printable import printable

# the formats whose own escaping keeps a value's exact data safe
MACHINE_FORMATS = ('json', 'yaml')
# read by shell scripts: values as plain text (``plain``)
LINE_FORMATS = ('value', 'shell', 'csv')
# The width of a table without a terminal (a pipe, a log file), where
# cliff's would be as wide as its longest value
WIDTH = 120
# The most a table's cell shows of one value, in lines and characters:
# longer ones are cut. A list's row shares the width with its neighbours.
IN_ONE = (20, 1600)
IN_LIST = (8, 400)


def add_long_option(parser):
    parser.add_argument(
        '--long', action='store_true',
        help='Show every value whole in the table (by default long lists '
             'and texts are summarized; -f json and -f yaml always carry '
             'them whole).')


def shown(parsed_args, has_long, most=IN_ONE):
    """The function that makes each value what ``parsed_args``'s format
    prints (None: the value as it is). ``has_long``: whether the
    command takes ``--long`` (a cut says what shows it whole); ``most``:
    a table cell's most lines and characters."""
    formatter = getattr(parsed_args, 'formatter', None)
    if formatter in MACHINE_FORMATS:
        return None
    if formatter in LINE_FORMATS:
        return plain_value
    if formatter != 'table' or getattr(parsed_args, 'long', False):
        return printable_value
    whole = '--long' if has_long else '-f json'
    return lambda value: cell(printable_value(value), whole, most)


def width(parsed_args):
    """The width a table fits in: cliff's ``--max-width`` or
    CLIFF_MAX_TERM_WIDTH when given (below 1: no limit), else COLUMNS or
    the terminal's, else ``WIDTH``."""
    given = parsed_args.max_width
    if given is None:
        given = os.environ.get('CLIFF_MAX_TERM_WIDTH')
    if given is not None:
        return int(given)
    return shutil.get_terminal_size((WIDTH, 24)).columns


def leave_out(names, data, left_out, listed):
    """``names`` and ``data`` (a list's rows, or one row) without the
    columns ``left_out``."""
    kept = [i for i, name in enumerate(names) if name not in left_out]
    if len(kept) == len(names):
        return names, data
    if listed:
        return (tuple(names[i] for i in kept),
                (tuple(row[i] for i in kept) for row in data))
    data = tuple(data)
    return tuple(names[i] for i in kept), tuple(data[i] for i in kept)


def fit(names, rows, width):
    """A list's ``rows`` (values as ``shown`` made them) with their texts
    wrapped so that the table is at most ``width`` wide: each column as
    wide as its header at least, the narrow ones whole, the widest
    sharing what is left (cliff would give every wide column the same
    share). Unchanged when the table fits, or cannot (cliff then does
    what it can)."""
    rows = [list(row) for row in rows]
    texts = [[_text(v) for v in row] for row in rows]
    natural = [max([len(name)] + [len(line) for row in texts
                                  for line in row[i].split('\n')])
               for i, name in enumerate(names)]
    usable = width - 1 - 3 * len(names)
    floors = [min(n, max(len(name), 4)) for n, name in zip(natural, names)]
    if width < 1 or sum(natural) <= usable or sum(floors) > usable:
        return rows
    given = list(floors)
    left = usable - sum(floors)
    wanting = sorted(range(len(names)), key=lambda i: natural[i])
    for place, i in enumerate(wanting):
        share = left // (len(wanting) - place)
        need = natural[i] - floors[i]
        # a little over its share: whole (an MD5 cut by one character
        # helps nobody), the wider ones give it
        more = min(need if need <= share * 5 // 4 else share, left)
        given[i] += more
        left -= more
    for row, text in zip(rows, texts):
        for i, value in enumerate(row):
            if isinstance(value, (str, columns.FormattableColumn)):
                lines = text[i].split('\n')
                wrapped = '\n'.join(_wrap(line, given[i]) for line in lines)
                if wrapped != text[i]:
                    row[i] = Summary(value, wrapped)
    return rows


def _text(value):
    if isinstance(value, columns.FormattableColumn):
        value = value.human_readable()
    return '' if value is None else str(value)


def _wrap(line, width):
    """``line`` in pieces of at most ``width``, broken after a path's
    ``/``, a space, ``-``, ``_`` or ``,`` where one is near the end."""
    pieces = []
    while len(line) > width:
        cut_at = max(line.rfind(c, 0, width) for c in '/ -_,') + 1
        if cut_at < width // 2:
            cut_at = width
        pieces.append(line[:cut_at].rstrip(' '))
        line = line[cut_at:]
    return '\n'.join(pieces + [line])


class Summary(columns.FormattableColumn):
    """``whole`` (a value, or a FormattableColumn) that a table shows as
    ``text``; every other format gets the whole value."""

    def __init__(self, whole, text):
        super().__init__(text)
        self._whole = whole

    def human_readable(self):
        return self._value

    def machine_readable(self):
        if isinstance(self._whole, columns.FormattableColumn):
            return self._whole.machine_readable()
        return self._whole


def summary(whole, text, parsed_args):
    """``whole`` shown as ``text`` in a table, unless ``--long``."""
    return whole if parsed_args.long else Summary(whole, text)


def cut(text, whole, most=IN_ONE):
    """``text`` as a cell shows it: at most ``most`` lines and
    characters, then what was left out and that ``whole`` (an option)
    shows it."""
    lines = text.split('\n')
    kept = '\n'.join(lines[:most[0]])[:most[1]]
    if kept == text:
        return text
    left = text[len(kept):]
    more = left.count('\n') if len(lines) > most[0] else 0
    return '%s\n[... %d more %s; %s shows all]' % (
        kept.rstrip('\n'), more or len(left),
        'lines' if more else 'characters', whole)


def cell(value, whole, most=IN_ONE):
    """``value`` (a text or FormattableColumn) cut to what a cell shows
    (``cut``); anything else (a number) as it is."""
    if isinstance(value, columns.FormattableColumn):
        text = value.human_readable()
        kept = cut(text, whole, most) if isinstance(text, str) else text
        return value if kept == text else Summary(value, kept)
    if isinstance(value, str):
        return cut(value, whole, most)
    return value


class PrintableColumn(columns.FormattableColumn):
    """A formatted column (osc-lib's ListColumn, DictColumn...) as the
    human formats print it, its control characters quoted."""

    def __init__(self, column):
        super().__init__(column._value)
        self._column = column

    def human_readable(self):
        value = self._column._value
        if isinstance(value, (list, tuple)) and all(
                isinstance(v, str) for v in value):
            # in its order: osc-lib's ListColumn sorts, and the order of
            # a plan's environments (Heat's merge order) is the point
            return printable(', '.join(value), lines=True)
        return printable(self._column.human_readable(), lines=True)

    def machine_readable(self):
        # value, csv and shell print str() of it: a list's or dict's
        # repr quotes its strings' control characters, a str does not
        return printable(self._column.machine_readable(), lines=True)


def printable_value(value):
    import json
    if isinstance(value, columns.FormattableColumn):
        return PrintableColumn(value)
    if isinstance(value, (list, dict)):
        # JSON, not Python's repr (its escapes quote control characters)
        return json.dumps(value, default=str)
    return printable(value, lines=True)


def plain_value(value):
    if isinstance(value, columns.FormattableColumn):
        value = value.machine_readable()
    return printable(plain(value), lines=True)


def plain(value):
    """A value as a script reads it: nothing for None, a list's items
    separated by spaces (``for f in $(... -f value -c environments)``), a
    mapping as compact JSON, anything else as text. A list or a mapping
    is one line (an item of several lines as a JSON string)."""
    import json
    if value is None:
        return ''
    if isinstance(value, (list, tuple)):
        return ' '.join(
            json.dumps(v, separators=(',', ':'), default=str)
            if isinstance(v, dict) or (isinstance(v, str) and '\n' in v)
            else plain(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, separators=(',', ':'), default=str)
    return str(value)
