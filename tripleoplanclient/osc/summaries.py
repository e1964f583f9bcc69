"""What a table shows of a long value: a list's changes from the row
before, a diff's files with their counts, a parameter's change in one
line (``formats.Summary`` carries the whole value to the other formats).

Imported when a command runs: standard library only.
"""

import json
import re

# The items of a list a summary shows before "... and N more": with
# its count, within a list's cell (formats.IN_LIST)
MOST_ITEMS = 6
_HUNK = re.compile(r'@@ -\d+(,(\d+))? \+\d+(,(\d+))? @@')


def items(values):
    """The lines of a list: its first ``MOST_ITEMS`` items, then how many
    more."""
    values = [str(v) for v in values]
    shown = values[:MOST_ITEMS]
    if len(values) > MOST_ITEMS:
        shown.append('... and %d more' % (len(values) - MOST_ITEMS))
    return shown


def changes(before, after):
    """A list against the one before it, as a cell shows it: what was
    added (+) and removed (-), whether the rest moved, and the count.
    ``before`` None: the first list (all of it added)."""
    after = list(after or [])
    old = list(before or [])
    added = [v for v in after if v not in old]
    removed = [v for v in old if v not in after]
    kept_old = [v for v in old if v in after]
    kept_new = [v for v in after if v in old]
    head = '%d in all' % len(after)
    if before is not None and not added and not removed:
        return head + (', reordered' if kept_old != kept_new
                       else ', unchanged')
    if kept_old != kept_new:
        head += ', reordered'
    return '\n'.join([head] + items(['+ %s' % v for v in added] +
                                    ['- %s' % v for v in removed]))


def listed(values):
    """A list as a cell shows it: one item a line, at most
    ``MOST_ITEMS``."""
    return '\n'.join(items(values or []))


def value_change(old, new):
    """How a value changed, in one short line: for lists the items added
    and removed, for mappings the keys added, removed and changed (~),
    else old -> new (each cut)."""
    if isinstance(old, list) and isinstance(new, list):
        return _some(['+ %s' % _short(v) for v in new if v not in old],
                     ['- %s' % _short(v) for v in old if v not in new]) \
            or 'reordered'
    if isinstance(old, dict) and isinstance(new, dict):
        return _some(['+ %s' % k for k in new if k not in old],
                     ['- %s' % k for k in old if k not in new],
                     ['~ %s' % k for k in new
                      if k in old and old[k] != new[k]])
    return '%s -> %s' % (_short(old), _short(new))


def _some(*kinds, most=3):
    """The first ``most`` of each kind of change, then how many more."""
    shown = [line for kind in kinds for line in kind[:most]]
    more = sum(len(kind) for kind in kinds) - len(shown)
    return '; '.join(shown + (['%d more' % more] if more else []))


def mapping(value, most=60):
    """A mapping as a cell shows it: ``key: value`` a line, in its order,
    at most ``MOST_ITEMS`` keys, each value cut to ``most`` characters
    (None: whole)."""
    return '\n'.join(items(
        '%s: %s' % (k, _short(v, most) if most else _text(v))
        for k, v in (value or {}).items()))


def step(found):
    """A step's summary (``{step, id, action, time, status}``) in a
    line."""
    return 'step %s: %s %s at %s (%s)' % tuple(
        found.get(k) for k in ('step', 'action', 'status', 'time', 'id'))


def outcome(found, config=None, validations=()):
    """A step's outcome as a cell shows it: its status, the stack's, and
    why when it did not succeed; the servers' configuration's status
    (``config``: the config part) and each validation run's
    (``{hook, group, status}``)."""
    found = found or {}
    lines = [str(found[k]) for k in ('status', 'stack_status')
             if found.get(k)]
    if found.get('reason') and found.get('status') != 'SUCCESS':
        lines.append(_short(found['reason'], 60))
    if (config or {}).get('status'):
        lines.append('config %s' % config['status'] + (
            ' (%d failures)' % len(config['failures'])
            if config.get('failures') else ''))
    lines.extend('%s %s %s' % (v.get('hook'), v.get('group'),
                               v.get('status'))
                 for v in validations or ())
    return '\n'.join(lines)


def _text(value):
    return value if isinstance(value, str) else json.dumps(
        value, default=str, sort_keys=True)


def _short(value, most=40):
    text = _text(value)
    return text if len(text) <= most else text[:most - 3] + '...'


def parameters(changed):
    """A diff's ``parameters_changed`` (``{name: {change, old, new}}``) as
    a cell shows it: one line a parameter, a list's or mapping's change
    as its items."""
    lines = []
    for name, entry in changed.items():
        if entry.get('change') == 'changed':
            what = value_change(entry.get('old'), entry.get('new'))
        elif 'new' in entry:
            what = 'added (%s)' % _short(entry['new'])
        else:
            what = 'removed (was %s)' % _short(entry.get('old'))
        lines.append('%s: %s' % (name, what))
    return '\n'.join(items(lines))


def diffstat(text):
    """A unified diff as a cell shows it: per file, the lines added and
    removed (``+3 -1 path``), at most ``MOST_ITEMS`` files."""
    shown = []
    lines = iter(text.split('\n'))
    for line in lines:
        if line.startswith('Binary files '):
            shown.append(line)
        elif line.startswith('--- '):
            old, new = line[4:], next(lines, '+++ ')[4:]
            shown.append([new if new != '/dev/null' else old, 0, 0])
        else:
            hunk = _HUNK.match(line)
            if hunk is None or not shown or isinstance(shown[-1], str):
                continue
            # the hunk's own counts: a removed "-- x" is no file header
            left = [int(hunk.group(2) or 1), int(hunk.group(4) or 1)]
            while left[0] > 0 or left[1] > 0:
                body = next(lines, None)
                if body is None:
                    break
                sign = body[:1]
                if sign in ('-', ' '):
                    left[0] -= 1
                if sign in ('+', ' '):
                    left[1] -= 1
                if sign in ('+', '-'):
                    shown[-1][1 if sign == '+' else 2] += 1
    return '\n'.join(items(
        found if isinstance(found, str) else '+%d -%d %s' % (
            found[1], found[2], found[0].split('/', 1)[-1])
        for found in shown))
