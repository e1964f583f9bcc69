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
for: it is told (``unread``) and its stored copy stands. So is a source
gone from this machine (``GONE``). ``states`` tells what each recorded
source is now (show-step).
"""

import collections
import os

from tripleoplanclient.common import content
from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import layout

_OPTIONS = {'roles_data': '--roles-file', 'network_data': '--networks-file',
            'plan_environment': '--plan-environment-file'}


# A recorded source left alone, and why (GONE: no file there now); name:
# as the user gave it (None: not recorded).
Unread = collections.namedtuple('Unread', 'path source reason name')

# What a recorded source is now (``states``): there and read as recorded,
# read otherwise, no file there, not looked at (``refusal``).
PRESENT, CHANGED, GONE, UNCHECKED = 'present', 'changed', 'gone', \
    'not checked'


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
    missing here (told as GONE), or left alone, keeps its stored copy;
    then uploads are not read either, as one of them may be a file that
    environment references (stored with rewritten references, so never
    comparable with its source).
    """
    from tripleoplanclient.plan import files as files_mod

    sources, unread = {}, []
    for path, entry in sorted(state['files'].items()):
        if entry.get('source') and path not in files.objects:
            reason = refusal(files.origin, path, entry['source'], entry)
            if reason:
                unread.append(Unread(path, entry['source'], reason,
                                     entry.get('name')))
            else:
                sources[path] = entry['source']
    unread.extend(Unread(p, sources.pop(p), GONE,
                         state['files'][p].get('name')) for p in [
        p for p, source in sorted(sources.items())
        if not os.path.isfile(source)])
    last = dict(state['files'], **(state.get('read') or {}))
    fresh = files_mod.PlanFiles(files.templates)
    # A root left alone counts as missing.
    complete = not any(u.path in state['environments'] or
                       u.path in state['inputs'].values() for u in unread)
    for path, kind in _roots(state, sources):
        _read_root(fresh, sources[path], kind)
    if complete:
        for path, source in sorted(sources.items()):
            if path not in fresh.objects:
                fresh.add_file_at(source, path)
    changed = sorted(
        p for p, data in fresh.objects.items()
        if p not in files.objects and p in fresh.sources and
        content.md5(data) != (last.get(p) or {}).get('md5'))
    for path in changed:
        files.objects[path] = fresh.objects[path]
        files.sources[path] = fresh.sources[path]
        # read from its absolute path: the name it was given stands
        name = (state['files'].get(path) or {}).get('name')
        if name:
            files.names[path] = name
    return changed, unread


def _roots(state, sources):
    """``[(plan path, input kind or None)]``: the environments and inputs
    among ``sources``, in the plan's order."""
    roots = [(p, None) for p in state['environments'] if p in sources]
    return roots + [(p, k) for k, p in sorted(state['inputs'].items())
                    if p in sources and k in _OPTIONS]


def _read_root(fresh, source, kind):
    if kind is None:
        fresh.add_environment(source)
    else:
        fresh.add_input(kind, source, _OPTIONS[kind])


def states(state, origin):
    """``({plan path: PRESENT, CHANGED, GONE or UNCHECKED}, [Unread])`` of
    the recorded user files of ``state`` (a step's), read as ``reread``
    reads them (an environment with what it references): CHANGED when
    what is read differs from the record, or no longer reads; PRESENT
    when it is the same, or only there (an upload or a referenced file
    whose environment is gone: not comparable). UNCHECKED ones are not
    opened (``refusal``): the list tells why."""
    from tripleoplanclient.plan import files as files_mod

    found, unread, sources = {}, [], {}
    for path, entry in sorted(state['files'].items()):
        if not entry.get('source'):
            continue
        reason = refusal(origin, path, entry['source'], entry)
        if reason:
            unread.append(Unread(path, entry['source'], reason,
                                 entry.get('name')))
            found[path] = UNCHECKED
        elif not os.path.isfile(entry['source']):
            found[path] = GONE
        else:
            sources[path] = entry['source']
    fresh = files_mod.PlanFiles(state.get('templates'))
    complete = not any(found.get(p) for p in state['environments']) and \
        not any(found.get(p) for p in state['inputs'].values())
    for path, kind in _roots(state, sources):
        try:
            _read_root(fresh, sources[path], kind)
        except exceptions.CommandError:
            found[path] = CHANGED
            complete = False
    for path, source in sorted(sources.items()):
        if path in found:
            continue
        try:
            if path not in fresh.objects and complete:
                fresh.add_file_at(source, path)
        except exceptions.CommandError:
            found[path] = CHANGED       # no longer readable
            continue
        data = fresh.objects.get(path)
        found[path] = PRESENT if data is None or content.md5(data) == \
            state['files'][path]['md5'] else CHANGED
    return found, unread


def shown(text):
    """A recorded text as a terminal may show it: any control character
    (an escape sequence a record could hold) quoted."""
    return text if text.isprintable() else ascii(text)


def told(unread, verb='read'):
    """Lines (for stderr) that tell the recorded sources left alone
    (not ``verb``), those gone first."""
    gone = [u for u in unread if u.reason == GONE]
    unread = [u for u in unread if u.reason != GONE]
    lines = []
    if gone:
        lines += ['%d recorded source(s) gone from this machine; the plan\'s '
                  'stored copies are used:' % len(gone)] + [
            '  %s (%s)' % (shown(u.name or u.source), u.path)
            for u in gone]
    if unread:
        lines += ['%d recorded source(s) not %s; their stored copies stand '
                  '(if a file is yours, give it again with -e, -r, -n, -p '
                  'or --upload-file to send it and have it read again '
                  'later):' % (len(unread), verb)] + [
            '  %s <- %s: %s' % (u.path, shown(u.source), u.reason)
            for u in unread]
    return lines
