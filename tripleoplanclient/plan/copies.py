"""Copies inside Swift, over a ``container.PlanContainer``: the content a
step is about to replace kept under its MD5 (``tree.kept_name``), and
past content put back (``restore``). No byte travels from the client for
either.
"""

import logging
from urllib import parse

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import container as container_mod
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import tree as tree_mod

LOG = logging.getLogger(__name__)


def keep(container, plan, replaced, kept=()):
    """Copy, inside Swift, the content about to be replaced or deleted to
    its kept name, so that the steps that used it stay reproducible; the
    number of copies.

    ``replaced``: ``{path: MD5 it holds}``; ``kept``: MD5s known to be
    kept already. A copy happens only while the object still holds that
    MD5 (``If-Match`` applies to the source): content changed outside a
    step is not what any step used.
    """
    # Only content an MD5 names can be kept (a kept copy's name).
    wanted = {p: m for p, m in replaced.items()
              if layout.is_md5(m) and m not in kept
              and tree_mod.in_tree(p)}

    def copy(path):
        md5 = wanted[path]
        try:
            _copy(container, plan, tree_mod.kept_name(md5), path, md5)
        except container_mod.client_exception() as exc:
            if container_mod.status(exc) not in (404, 412):
                raise exceptions.CommandError(
                    'Cannot keep the content of %s in plan %s before '
                    'replacing it (%s); nothing was changed.'
                    % (path, plan, exc))
            LOG.warning('%s of plan %s no longer holds %s: nothing to '
                        'keep', path, plan, md5)

    by_md5 = {}
    for path, md5 in sorted(wanted.items()):
        by_md5.setdefault(md5, path)     # one copy per content
    container.checked(plan, by_md5.values(), record=False)
    container.checked(plan, [tree_mod.kept_name(m) for m in by_md5])
    container.map(copy, sorted(by_md5.values()))
    return len(by_md5)


def _copy(container, plan, name, source, md5):
    """Copy ``source`` to ``name`` inside Swift, if ``source`` still holds
    ``md5`` (``If-Match`` applies to the source of a copy)."""
    container.request('put_object', plan, name, b'', headers={
        'X-Copy-From': parse.quote('/%s/%s' % (plan, source)),
        'If-Match': md5})


def copy_objects(container, plan, sources, md5s):
    """Copy, inside Swift, ``{name: source name}``; each source must still
    hold the MD5 ``md5s[name]`` (else nothing is copied from it and the
    copy fails clearly)."""
    def copy(name):
        try:
            _copy(container, plan, name, sources[name], md5s[name])
            return None
        except container_mod.client_exception() as exc:
            if container_mod.status(exc) == 412:
                return name, '%s does not hold MD5 %s, the content its ' \
                    'record names (changed or damaged since)' % (
                        sources[name], md5s[name])
            return name, '%s %s' % (exc.http_status, exc.http_reason)

    container.checked(plan, sources, record=False)
    container.checked(plan, sources.values())
    failed = [r for r in container.map(copy, sorted(sources)) if r]
    if failed:
        container.rejected(plan, sources, failed)
