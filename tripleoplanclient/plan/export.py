"""A plan's objects streamed into a tar.gz (``plan export``, a past
step's export), the same content always the same bytes when one time is
given.

A mixin of ``store.PlanStore``: it goes through the store's one door to
Swift (``swift_door``).
"""

import concurrent.futures
import gzip
import io
import tarfile
import time

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import layout
from tripleoplanclient.plan import swift_door


class Export(object):
    """Plan objects as a tar.gz."""

    def export(self, plan, members, fileobj, mtime=None):
        """Stream objects into ``fileobj`` as a tar.gz.

        ``members``: object names, or ``{member name: object name}``.
        ``mtime``: one time for every member and the gzip header, so that
        the same content always makes the same bytes; else each object's
        Swift timestamp.
        """
        if not isinstance(members, dict):
            members = {n: n for n in members}
        names = sorted(members)
        # Swift takes any object name (one PUT by hand); a member must
        # still land inside the directory a naive extractor writes to.
        for member in names:
            layout.check_plan_path(
                member, 'Plan %s cannot be exported: object %r' % (
                    plan, members[member]), 'stored')
        self._checked(plan, members.values(), record=None)

        def fetch(member):
            name = members[member]
            try:
                headers, body = self._swift('get_object', plan, name)
            except swift_door.client_exception() as exc:
                raise exceptions.CommandError(
                    'Cannot read %s from plan %s: %s' % (name, plan, exc))
            return member, headers, body

        with gzip.GzipFile(filename='', mode='wb', fileobj=fileobj,
                           mtime=time.time() if mtime is None else mtime
                           ) as gz, \
                tarfile.open(fileobj=gz, mode='w|',
                             format=tarfile.PAX_FORMAT) as tar, \
                concurrent.futures.ThreadPoolExecutor(self._workers) as pool:
            # A bounded window keeps memory flat on large plans.
            window = self._workers * 4
            for start in range(0, len(names), window):
                for member, headers, body in pool.map(
                        fetch, names[start:start + window]):
                    info = tarfile.TarInfo(member)
                    info.size = len(body)
                    info.mode = 0o644
                    info.mtime = mtime if mtime is not None else float(
                        headers.get('x-timestamp', 0) or 0)
                    tar.addfile(info, io.BytesIO(body))
