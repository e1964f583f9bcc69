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
"""

import os

from tripleoplanclient.common import content

_OPTIONS = {'roles_data': '--roles-file', 'network_data': '--networks-file',
            'plan_environment': '--plan-environment-file'}


def reread(state, files):
    """Add to ``files`` (``PlanFiles``) the recorded user files whose local
    source changed; returns their plan paths, sorted.

    Files the command names itself (``-e`` again) are left to it. A source
    missing here keeps its stored copy; then uploads are not read either,
    as one of them may be a file that environment references (stored with
    rewritten references, so never comparable with its source).
    """
    from tripleoplanclient.plan import files as files_mod

    sources = {p: e['source'] for p, e in state['files'].items()
               if e.get('source') and p not in files.objects}
    if not sources:
        return []
    last = dict(state['files'], **(state.get('read') or {}))
    fresh = files_mod.PlanFiles(files.templates)
    complete = True
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
    return changed
