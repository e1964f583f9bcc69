"""What changed in a plan between two steps: its environment list, its
files (with a unified diff of their text) and the parameters Heat gets.

Only reads, and never writes (the record's cache is not mended): one
listing, the record (the cache and the step objects it lacks), the
snapshot of each tree, then, side by side, the content of the files that
differ and, when a plan environment or an environment file (or the list)
differs, of those files. Each content is read once, by its MD5, from its
object or from its kept copy.

Secrets never leave here: a parameter is secret when its name says so
(``masking.secret_key``), the plan keeps it under ``passwords:``, or a
template of either step declares it hidden (``plan.hidden_parameters``:
every file that may be a template is read for that, once per content);
its values show as ``***``, and so do the lines of any file that set such
a key, the block under them and any known secret value (``mask_lines``).
"""

import difflib

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.common import masking
from tripleoplanclient.plan import hidden_parameters
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import passwords
from tripleoplanclient.plan import tree as tree_mod
from tripleoplanclient.record import log
from tripleoplanclient.record import past

COLUMNS = ('plan', 'from', 'to', 'environments_added',
           'environments_removed', 'environments_reordered', 'files_added',
           'files_removed', 'files_changed', 'parameters_changed', 'diff',
           'environment_names')
# Lines of context around each change, as diff -u.
CONTEXT = 3
# Secret values this long or longer are masked wherever they appear in a
# file's lines (shorter ones would mask ordinary words); whatever their
# length they are masked where a secret key sets them.
SCRUB_MIN = 8
_ABSENT = object()


def deployed(rows):
    """The newest step whose stack operation succeeded, or None."""
    for row in reversed(rows):
        if row.get('stack') and row['outcome']['status'] == 'SUCCESS':
            return row
    return None


def _steps(history, first, second, progress):
    """The history rows to compare: ``--from`` (default: the last
    deployed step, else the create) and ``--to`` (default: the newest)."""
    plan, rows = history.plan, history.rows
    new = rows[-1] if second is None else history.find(second)
    if first is not None:
        old = history.find(first)
    else:
        old = deployed(rows)
        if old is None:
            old = rows[0]
            progress('Plan %s was never deployed (no deploy, update or '
                     'upgrade succeeded): comparing from step 1 (%s).'
                     % (plan, old['action']))
        else:
            progress('Plan %s: comparing from step %d (%s %s), the last '
                     'successful stack operation.' % (
                         plan, old['step'], old['action'], old['id']))
    if old['step'] > new['step']:
        progress('Step %d comes after step %d: showing what goes back '
                 '(what "plan restore --step %d" would change).' % (
                     old['step'], new['step'], new['step']))
    return old, new


def _summary(row):
    return {'step': row['step'], 'id': row['id'], 'action': row['action'],
            'time': row['time'], 'status': row['outcome']['status']}


class _Side:
    """One of the two steps: its tree and the content read for it."""

    def __init__(self, at, full):
        self.at = at
        self.state = at.state
        self.full = full
        self.data = {}          # path -> bytes

    def parameter_paths(self):
        """The plan environments, then the environment files, that the
        tree holds (what the deploy action reads for parameters)."""
        plans = [p for p in (layout.PLAN_ENVIRONMENT,
                             self.state['inputs'].get('plan_environment'))
                 if p and p in self.full]
        return plans, [e for e in layout.parameter_environments(
            self.state['environments'], self.full) if e in self.full]

    def fingerprint(self):
        plans, envs = self.parameter_paths()
        return [(p, self.full[p]) for p in plans + envs]


def _read(store, plan, sides_paths):
    """Read each wanted content once, side by side: ``sides_paths`` is
    ``[(side, paths)]``; fills ``side.data``."""
    names = {}
    for side, paths in sides_paths:
        found = past.readable(side.at, side.full, paths)
        for path in paths:
            names.setdefault(side.full[path], found[path])
    data = store.container.get_many(plan, names.values())
    by_md5 = {}
    for md5, name in names.items():
        if content.md5(data[name]) != md5:
            raise exceptions.CommandError(
                'Plan %s: %s no longer holds the content its record names '
                '(changed meanwhile by another command or by hand); run the '
                'command again.' % (plan, name))
        by_md5[md5] = data[name]
    for side, paths in sides_paths:
        side.data.update((p, by_md5[side.full[p]]) for p in paths)


def _mapping(value, what):
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise exceptions.CommandError('%s is not a mapping; fix it with '
                                      '"openstack overcloud plan amend".'
                                      % what)
    return value


def _load(side, plan, path):
    what = 'Plan %s, %s as of step %d' % (plan, path, side.at.row['step'])
    # Not quoted: these files hold secrets.
    return _mapping(content.load_yaml(side.data[path], what, quote=False),
                    what)


def _plan_environments(side, plan):
    """The plan environments of a step, parsed (sections checked)."""
    loaded = []
    for path in side.parameter_paths()[0]:
        data = _load(side, plan, path)
        for section in ('passwords', 'parameter_defaults'):
            _mapping(data.get(section), 'Plan %s, "%s" in %s as of step %d'
                     % (plan, section, path, side.at.row['step']))
        loaded.append(data)
    return loaded


def _parameters(side, plan, loaded, progress):
    """The parameters as the deploy action merges them for this step:
    passwords < the plan environments' (``loaded``) parameter_defaults <
    each environment file's, in order."""
    merged = passwords.parameter_defaults(loaded)
    for path in layout.parameter_environments(side.state['environments'],
                                              side.full):
        if path not in side.full:
            progress('Plan %s, step %d: environment file %s is not in the '
                     'plan; its parameters are not compared.'
                     % (plan, side.at.row['step'], path))
            continue
        merged.update(_mapping(
            _load(side, plan, path).get('parameter_defaults'),
            'Plan %s, "parameter_defaults" in %s as of step %d' % (
                plan, path, side.at.row['step'])))
    return merged


def _leaves(value, secret, out, inside=False):
    """Collect into ``out`` the strings held under a secret key (each
    line of a multi-line one too)."""
    if isinstance(value, dict):
        for key, item in value.items():
            _leaves(item, secret, out, inside or secret(key))
    elif isinstance(value, list):
        for item in value:
            _leaves(item, secret, out, inside)
    elif inside and isinstance(value, str):
        for text in [value] + value.splitlines():
            if len(text.strip()) >= SCRUB_MIN:
                out.add(text.strip())


def _shown(value, secret, values):
    """A parameter value with what is secret in it masked, made of what
    JSON holds (YAML's dates, binary and sets as text and lists)."""
    if isinstance(value, dict):
        return {k if isinstance(k, str) else str(k):
                masking.MASK if secret(k) else _shown(v, secret, values)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_shown(v, secret, values) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_shown(v, secret, values) for v in value), key=str)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    text = value.isoformat() if hasattr(value, 'isoformat') else \
        value if isinstance(value, str) else repr(value)
    return masking.MASK if any(v in text for v in values) else text


def _changes(old, new, secret, values):
    """``{name: {'change', 'old', 'new'}}`` of the parameters that differ
    (``old``/``new`` left out when absent)."""
    out = {}
    for name in sorted(set(old) | set(new), key=str):
        before, after = old.get(name, _ABSENT), new.get(name, _ABSENT)
        if before == after:
            continue
        entry = {'change': 'added' if before is _ABSENT else 'removed'
                 if after is _ABSENT else 'changed'}
        for key, value in (('old', before), ('new', after)):
            if value is not _ABSENT:
                entry[key] = masking.MASK if secret(name) else _shown(
                    value, secret, values)
        out[str(name)] = entry
    return out


def _text(data):
    """The lines of ``data`` and whether the last one ends, or None for
    content that is not text (binary, not UTF-8 or UTF-16)."""
    try:
        text = content.text(data, '')
    except exceptions.CommandError:
        return None
    if '\0' in text:
        return None
    lines = text.split('\n')
    ends = lines[-1] == ''
    if ends:
        lines.pop()
    return lines, ends


def _range(start, stop):
    """A hunk range as unified diffs write it (``start,length``)."""
    length = stop - start
    if length == 1:
        return '%d' % (start + 1)
    return '%d,%d' % (start + 1 if length else start, length)


def unified(path, old, new, mask):
    """Unified diff lines of one file: ``old``/``new`` are its bytes, None
    where it is absent; ``mask`` turns a file's lines into the lines
    shown. Binary content is one line with both MD5s."""
    names = ['/dev/null' if old is None else 'a/' + path,
             '/dev/null' if new is None else 'b/' + path]
    sides = [([], True) if d is None else _text(d) for d in (old, new)]
    if None in sides:
        return ['Binary files %s and %s differ (MD5 %s -> %s)' % (
            names[0], names[1], content.md5(old) if old is not None else
            'none', content.md5(new) if new is not None else 'none')]
    (a, a_ends), (b, b_ends) = sides
    shown_a, shown_b = mask(a), mask(b)
    out = ['--- ' + names[0], '+++ ' + names[1]]

    def emit(sign, lines, shown, i, ends, other=None):
        line = shown[i]
        if other is not None and line == lines[i]:
            line = other        # masked on one side only: keep it masked
        out.append(sign + line)
        if i == len(lines) - 1 and not ends:
            out.append('\\ No newline at end of file')

    # A last line without its line end differs from the same text with
    # one (NUL is in no text line).
    def compared(lines, ends):
        return lines if ends else lines[:-1] + [x + '\0' for x in lines[-1:]]

    matcher = difflib.SequenceMatcher(None, compared(a, a_ends),
                                      compared(b, b_ends), autojunk=False)
    for group in matcher.get_grouped_opcodes(CONTEXT):
        first, last = group[0], group[-1]
        out.append('@@ -%s +%s @@' % (_range(first[1], last[2]),
                                      _range(first[3], last[4])))
        for tag, i1, i2, j1, j2 in group:
            if tag == 'equal':
                for i, j in zip(range(i1, i2), range(j1, j2)):
                    emit(' ', a, shown_a, i, a_ends, shown_b[j])
                continue
            for i in range(i1, i2):
                emit('-', a, shown_a, i, a_ends)
            for j in range(j1, j2):
                emit('+', b, shown_b, j, b_ends)
    return out


def _sides(store, history, rows):
    """A ``_Side`` of each history row, the snapshots they share read
    once."""
    snapshots = {}

    def load(md5):
        if md5 not in snapshots:
            snapshots[md5] = store.container.get(history.plan,
                                                 tree_mod.snapshot_name(md5))
        return snapshots[md5]

    return [_Side(at, tree_mod.View(at.state.get('tree'), load,
                                    history.plan).full())
            for at in (history.at(row=row) for row in rows)]


def _wanted(side, paths, plans_too, params, templates=()):
    """What to read of one side: ``paths`` (its files that differ), its
    plan environments (they name the passwords to mask in any diff) when
    ``plans_too``, its environment files when the parameters may differ
    (``params``), and ``templates``."""
    plans, envs = side.parameter_paths()
    paths = set(paths) | set(templates)
    if plans_too or params:
        paths.update(plans)
    if params:
        paths.update(envs)
    return side, sorted(paths)


def _hidden(plan, sides, templates, known, progress):
    """The parameters any template of either side declares hidden; None
    (every value hidden) when some file that may be one is unreadable."""
    missing = sorted({p for _, gone in templates for p in gone})
    if missing:
        progress(hidden_parameters.unknown(plan, missing))
        return None
    return hidden_parameters.in_trees([s.full for s in sides], {
        side.full[p]: (p, side.data[p])
        for side, (paths, _) in zip(sides, templates) for p in paths}, known)


def compare(store, plan, first=None, second=None, with_diff=True,
            progress=None, known=None):
    """What changed in ``plan`` from step ``first`` to step ``second``
    (numbers or ids; see ``_steps`` for the defaults), as ``{column:
    value}`` (``COLUMNS``). ``with_diff``: false reads no file content
    but that of the files parameters come from (``diff`` is empty).
    ``known``: a ``hidden_parameters.Known`` (None: one for this call)."""
    progress = progress or (lambda line: None)
    history = past.History(store, plan)
    old_row, new_row = _steps(history, first, second, progress)
    old, new = _sides(store, history, (old_row, new_row))
    added = sorted(set(new.full) - set(old.full))
    removed = sorted(set(old.full) - set(new.full))
    changed = sorted(p for p in set(old.full) & set(new.full)
                     if old.full[p] != new.full[p])
    shown = with_diff and bool(added or removed or changed)
    params = old.fingerprint() != new.fingerprint()
    # Something to show: the templates say what is hidden.
    known = known or hidden_parameters.Known()
    templates = [hidden_parameters.readable(side.full, side.at.listing, known)
                 if shown or params else ((), ()) for side in (old, new)]
    _read(store, plan, [
        _wanted(old, changed + removed if shown else (), shown, params,
                templates[0][0]),
        _wanted(new, changed + added if shown else (), shown, params,
                templates[1][0])])
    loaded = [_plan_environments(side, plan) if shown or params else []
              for side in (old, new)]
    kept = [data.get('passwords') for data in loaded[0] + loaded[1]]
    names = {name for section in kept for name in section or ()}
    hidden = _hidden(plan, (old, new), templates, known, progress)

    def secret(key):
        return hidden is None or masking.secret_key(key) or \
            key in names or key in hidden

    values = set()
    _leaves(kept, secret, values, inside=True)
    changes = {}
    if params:
        merged = [_parameters(side, plan, plans, progress)
                  for side, plans in zip((old, new), loaded)]
        for parameters in merged:
            _leaves(parameters, secret, values)
        changes = _changes(merged[0], merged[1], secret, values)
    lines = []
    if shown:
        def mask(text_lines):
            return masking.mask_lines(text_lines, secret, values)

        for path in sorted(added + removed + changed):
            lines.extend(unified(path, old.data.get(path),
                                 new.data.get(path), mask))
    before, after = old.state['environments'], new.state['environments']
    gained = [e for e in after if e not in before]
    lost = [e for e in before if e not in after]
    return {
        'plan': plan,
        'from': _summary(old_row),
        'to': _summary(new_row),
        'environments_added': gained,
        'environments_removed': lost,
        'environments_reordered': [e for e in before if e in after]
        != [e for e in after if e in before],
        'files_added': added,
        'files_removed': removed,
        'files_changed': changed,
        'parameters_changed': changes,
        'diff': ''.join(line + '\n' for line in lines),
        # {plan path: name as given} of those added or removed
        'environment_names': dict(log.given_names(old.state, lost),
                                  **log.given_names(new.state, gained)),
    }
