"""``user-environments/environments.yaml``: the plan's index, as a GUI or a
script reads it, current after every step.

Each step's writer (``writer.HistoryWriter.write_step``) writes it in the
same request as the step object, built from what it read of it (the head)
plus its own step: the environment list, the inputs, the templates
release, and the history with the new step's row last. The step log stays
the truth: two writers at once each write the index they saw, so the last
to land may lack the other's step until a reader of the log mends it
(``reader.HistoryReader.history``). ``through`` names the newest row that
reader found settled (final, and stamped by Swift long enough ago that no
write still in flight can come before it): our readers trust the rows up
to it without reading their step objects; the rows after it are
provisional.

One JSON document (so also YAML), one line per top-level key and one per
history row. Older forms still read: a version 1 record (the first
client's), and the cache of settled rows only (``paths``: environment
lists as indices into one table).
"""

import collections
import datetime
import email.utils
import json

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import schema
from tripleoplanclient.record import log

# What reading an index may raise: whatever it is, our readers can do
# without it (the log tells all).
UNREADABLE = (exceptions.CommandError, LookupError, TypeError, ValueError)

# Seconds after which no write still in flight can land before a step
# (Swift's own node and client timeouts are shorter): only rows this old
# are settled, so a settled prefix never has to be reordered.
SETTLE = 120

# What a step's writer reads of the index: the head it builds on.
INDEX = schema.Fields({'version': int, 'steps': int,
                       'state': schema.STATE, 'history': [schema.ROW]},
                      {'through': schema.TEXT})

# The index read: every history row, how many step objects they account
# for (the rows before are a version 1 record's), the state after the
# last row, and the id of the newest settled row.
Index = collections.namedtuple('Index', 'rows steps state through')


def settled(rows, entries, date):
    """How many leading rows are settled: final, and written SETTLE
    seconds before ``date`` (Swift's clock, from a listing)."""
    try:
        now = email.utils.parsedate_to_datetime(date).replace(tzinfo=None)
    except (TypeError, ValueError):
        return 0
    limit = (now - datetime.timedelta(seconds=SETTLE)).isoformat()
    count = 0
    for row, entry in zip(rows, entries):
        if entry['last_modified'] >= limit or \
                row['outcome']['status'] not in log.FINAL:
            break
        count += 1
    return count


def dump_cache(plan, rows, state, through, imported):
    """The index: ``rows`` (one per step object, in the log's order) after
    ``imported`` (a version 1 record's), ``state`` after the last of them,
    ``through`` the id of the newest settled row (None: none)."""
    fields = [('version', log.VERSION), ('plan', plan),
              ('environments', state['environments']),
              ('inputs', state['inputs']),
              ('templates', state['templates']),
              ('release', state.get('release')),
              ('steps', len(rows)), ('through', through)]
    lines = ['"%s": %s' % (k, json.dumps(v, sort_keys=True))
             for k, v in fields]
    history = [json.dumps(r, sort_keys=True)
               for r in list(imported) + list(rows)]
    lines.append('"history": [%s]' % (
        '\n  %s' % ',\n  '.join(history) if history else ''))
    lines.append('"state": %s' % json.dumps(state, sort_keys=True))
    return ('{%s}\n' % ',\n '.join(lines)).encode('utf-8')


def _parsed(data, plan):
    try:
        found = json.loads(data)        # what dump_cache writes: fast
    except (ValueError, TypeError, RecursionError):
        found = None
    if not isinstance(found, dict):
        found = log.load_object(data, 'The record %s' % log.PATH,
                                plan)
    return found


def load(data, plan):
    """The ``Index`` in ``data``, None when it is of an older form; a clear
    error when it is damaged."""
    found = _parsed(data, plan)
    if 'steps' not in found or found.get('version') != log.VERSION:
        return None
    what = 'The record %s' % log.PATH
    log.checked(found, INDEX, what, plan)
    rows, steps = found['history'], found['steps']
    ids = [r['id'] for r in rows[len(rows) - steps:]] if \
        0 <= steps <= len(rows) else None
    through = found.get('through')
    if ids is None or (through is not None and through not in ids):
        raise log.damaged(what, plan, '"steps" or "through" does not '
                          'match its history')
    return Index(rows, steps, found['state'], through)


def head(data, plan):
    """What a step builds on (``log.Head``), from the index alone; None
    when it is of an older form."""
    found = load(data, plan)
    if found is None:
        return None
    imported = found.rows[:len(found.rows) - found.steps]
    return log.Head(
        found.state, found.steps,
        found.rows[-1]['id'] if found.steps else None,
        [] if found.steps else imported, found.rows, found.through)


def after(plan, head, step):
    """The index once ``step`` is committed on ``head`` (which must know
    its rows), and the head it makes."""
    rows = list(head.rows) + [log.row(step, len(head.rows) + 1)]
    imported = len(head.rows) - head.count
    data = dump_cache(plan, rows[imported:], step['state'], head.through,
                      rows[:imported])
    return data, log.Head(step['state'], head.count + 1, step['id'],
                          [], rows, head.through)


def load_cache(data, plan):
    """The index (any form) as ``(rows, the state after them, through,
    imported)``: the rows of step objects, up to ``through`` settled
    (the previous form holds settled rows only), and a version 1
    record's."""
    cache = _parsed(data, plan)
    what = 'The record %s' % log.PATH
    if cache.get('version') == 1:
        rows, state = from_v1(log.checked(cache, schema.V1, what,
                                          plan), plan)
        return [], state, None, log.checked(rows, [schema.ROW], what,
                                            plan)
    if cache.get('version') != log.VERSION:
        raise exceptions.CommandError(
            'The record of plan %s (%s) has version %r; this client reads '
            'versions 1 and %d. Upgrade tripleoplanclient.' % (
                plan, log.PATH, cache.get('version'),
                log.VERSION))
    found = load(data, plan)
    if found is not None:
        imported = len(found.rows) - found.steps
        return (found.rows[imported:], found.state, found.through,
                found.rows[:imported])
    log.checked(cache, schema.CACHE, what, plan)
    paths = cache.get('paths')
    rows = cache.get('history') or []

    def lookup(ids):
        if not isinstance(ids, list) or not all(
                type(i) is int and 0 <= i < len(paths) for i in ids):
            raise log.damaged(what, plan, 'an environment list is '
                              'not indices into "paths"')
        return [paths[i] for i in ids]

    if paths is not None:
        rows = [_lists(row, lookup) for row in rows]
    return (log.checked(rows, [schema.ROW], what, plan),
            cache.get('state') or log.new_state(),
            cache.get('through'), cache.get('imported') or [])


def _lists(row, convert):
    """``row`` with its environment lists passed through ``convert``."""
    row = dict(row, environments=convert(row['environments']))
    if 'environments' in (row.get('stack') or {}):
        row['stack'] = dict(row['stack'], environments=convert(
            row['stack']['environments']))
    return row


def from_v1(record, plan):
    """``(rows, state)`` of a version 1 record (this client's first)."""
    state = log.new_state(record.get('templates'))
    state.update(environments=list(record.get('environments') or []),
                 files=dict(record.get('files') or {}),
                 inputs=dict(record.get('inputs') or {}))
    rows = []
    for number, old in enumerate(record.get('history') or [], 1):
        step = dict(old, id=str(old.get('id', number)), step=number)
        step.setdefault('outcome', {'status': 'UNKNOWN'})
        step.setdefault('time', None)
        step.setdefault('user', None)
        if step.get('render'):
            state['render'] = step['render'].get('state')
        if step.get('stack'):
            state['stack'] = step['id']
            if 'environments' in step:
                # What Heat got from the first client, which put the
                # lifecycle file last (layout.stack_environments now puts
                # it first): the step as it happened.
                step['stack'] = dict(step['stack'], environments=list(
                    step['environments']) + ([step['lifecycle']]
                                             if step.get('lifecycle') else []))
        if step.get('action') == 'create' and \
                step['outcome']['status'] == 'SUCCESS':
            state['created'] = True
        step.setdefault('environments', [])
        rows.append(step)
    return rows, state
