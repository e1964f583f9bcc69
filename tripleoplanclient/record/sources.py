"""Recorded user files whose local source changed since the client read it.

A stack step applies the plan as stored. A user file the operator edited
since the step that last read it (an images file regenerated at the same
path for a new release, say) would otherwise reach Heat as a stale copy.
So each recorded user file whose source is still on this machine is read
again the way it was first read (an environment with the files it
references, a roles / networks / plan environment input, an upload), and
those whose stored form differs from what the client last read go into
the step like an ``-e`` (they keep their place in the list). A restore
reads nothing: the copies it put back stand until a source changes again.

The record is written by anyone who can write the plan's container, so it
never chooses a local file: a recorded source is read again only when its
plan path is the one this client gives that source
(``user-files/<source>``, no reserved path) and its mark says this
Keystone user recorded it from this account on this machine
(``plan.origin``). Any other recorded source is not opened, nor looked
for: it is told (``unread``) and its stored copy stands.
"""

import collections
import os

from tripleoplanclient.common import content
from tripleoplanclient.plan import layout

_OPTIONS = {'roles_data': '--roles-file', 'network_data': '--networks-file',
            'plan_environment': '--plan-environment-file'}


# A recorded source left alone, and why.
Unread = collections.namedtuple('Unread', 'path source reason')


def refusal(origin, path, source, entry):
    """Why the recorded ``source`` of ``path`` (its record ``entry``) is
    not read here, or None. ``origin``: plan.origin.Origin, or None."""
    from tripleoplanclient.plan import files as files_mod

    problem = layout.path_problem(path, 'user')
    if problem:
        return problem.rstrip('.')
    if not path.startswith(layout.USER_FILES):
        return 'plan path %s is not under %s' % (path, layout.USER_FILES)
    if os.path.abspath(source) != source or source.startswith('//') or \
            files_mod.user_path(source) != path:
        return 'this client stores no source %s at plan path %s' % (
            shown(source), path)
    if origin is None:
        return 'this command checks no mark'
    return origin.problem(path, entry)


def reread(state, files):
    """Add to ``files`` (``PlanFiles``) the recorded user files whose local
    source changed; returns ``(their plan paths, [Unread])``, sorted.

    Files the command names itself (``-e`` again) are left to it. A source
    missing here, or left alone, keeps its stored copy; then uploads are
    not read either, as one of them may be a file that environment
    references (stored with rewritten references, so never comparable
    with its source).
    """
    from tripleoplanclient.plan import files as files_mod

    sources, unread = {}, []
    for path, entry in sorted(state['files'].items()):
        if entry.get('source') and path not in files.objects:
            reason = refusal(files.origin, path, entry['source'], entry)
            if reason:
                unread.append(Unread(path, entry['source'], reason))
            else:
                sources[path] = entry['source']
    if not sources:
        return [], unread
    last = dict(state['files'], **(state.get('read') or {}))
    fresh = files_mod.PlanFiles(files.templates)
    # A root left alone counts as missing.
    complete = not any(u.path in state['environments'] or
                       u.path in state['inputs'].values() for u in unread)
    roots = [(p, None) for p in state['environments'] if p in sources]
    roots += [(p, k) for k, p in sorted(state['inputs'].items())
              if p in sources and k in _OPTIONS]
    for path, kind in roots:
        if not os.path.isfile(sources[path]):
            complete = False
        elif kind is None:
            fresh.add_environment(sources[path])
        else:
            fresh.add_input(kind, sources[path], _OPTIONS[kind])
    if complete:
        for path, source in sorted(sources.items()):
            if path not in fresh.objects and os.path.isfile(source):
                fresh.add_file_at(source, path)
    changed = sorted(
        p for p, data in fresh.objects.items()
        if p not in files.objects and p in fresh.sources and
        content.md5(data) != (last.get(p) or {}).get('md5'))
    for path in changed:
        files.objects[path] = fresh.objects[path]
        files.sources[path] = fresh.sources[path]
    return changed, unread


def shown(text):
    """A recorded text as a terminal may show it: any control character
    (an escape sequence a record could hold) quoted."""
    return text if text.isprintable() else ascii(text)


def told(unread):
    """Lines (for stderr) that tell the recorded sources left alone."""
    if not unread:
        return []
    return ['%d recorded source(s) not read; their stored copies stand '
            '(if a file is yours, give it again with -e, -r, -n, -p or '
            '--upload-file to send it and have it read again later):'
            % len(unread)] + [
        '  %s <- %s: %s' % (u.path, shown(u.source), u.reason)
        for u in unread]
