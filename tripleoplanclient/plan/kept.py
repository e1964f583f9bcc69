"""Copies inside Swift: the content a step is about to replace kept
under its MD5, and past content put back (``restore``). No byte travels
from the client for either.

A mixin of ``store.PlanStore``: it goes through the store's one door to
Swift (``swift_door``).
"""

import logging
from urllib import parse

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import swift_door
from tripleoplanclient.plan import tree as tree_mod

LOG = logging.getLogger(__name__)


class Kept(object):
    """Server-side copies of plan objects."""

    def keep(self, plan, replaced, kept=()):
        """Copy, inside Swift, the content about to be replaced or deleted
        to its kept name, so that the steps that used it stay reproducible.

        ``replaced``: ``{path: MD5 it holds}``; ``kept``: MD5s known to be
        kept already. A copy happens only while the object still holds
        that MD5 (``If-Match`` applies to the source): content changed
        outside a step is not what any step used.
        """
        # Only content an MD5 names can be kept (a kept copy's name).
        wanted = {p: m for p, m in replaced.items()
                  if layout.is_md5(m) and m not in kept
                  and tree_mod.in_tree(p)}

        def copy(path):
            md5 = wanted[path]
            try:
                self._copy(plan, tree_mod.kept_name(md5), path, md5)
            except swift_door.client_exception() as exc:
                if self._status(exc) not in (404, 412):
                    raise exceptions.CommandError(
                        'Cannot keep the content of %s in plan %s before '
                        'replacing it (%s); nothing was changed.'
                        % (path, plan, exc))
                LOG.warning('%s of plan %s no longer holds %s: nothing to '
                            'keep', path, plan, md5)

        by_md5 = {}
        for path, md5 in sorted(wanted.items()):
            by_md5.setdefault(md5, path)     # one copy per content
        self._checked(plan, by_md5.values(), record=False)
        self._checked(plan, [tree_mod.kept_name(m) for m in by_md5])
        self.map(copy, sorted(by_md5.values()))
        return len(by_md5)

    def _copy(self, plan, name, source, md5):
        """Copy ``source`` to ``name`` inside Swift, if ``source`` still
        holds ``md5`` (``If-Match`` applies to the source of a copy)."""
        self._swift('put_object', plan, name, b'', headers={
            'X-Copy-From': parse.quote('/%s/%s' % (plan, source)),
            'If-Match': md5})

    def copy_objects(self, plan, sources, md5s):
        """Copy, inside Swift, ``{name: source name}``; each source must
        still hold the MD5 ``md5s[name]`` (else nothing is copied from it
        and the copy fails clearly)."""
        def copy(name):
            try:
                self._copy(plan, name, sources[name], md5s[name])
                return None
            except swift_door.client_exception() as exc:
                if self._status(exc) == 412:
                    return name, '%s does not hold MD5 %s, the content its ' \
                        'record names (changed or damaged since)' % (
                            sources[name], md5s[name])
                return name, '%s %s' % (exc.http_status, exc.http_reason)

        self._checked(plan, sources, record=False)
        self._checked(plan, sources.values())
        failed = [r for r in self.map(copy, sorted(sources)) if r]
        if failed:
            self._rejected(plan, sources, failed)
