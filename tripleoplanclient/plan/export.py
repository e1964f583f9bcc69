"""A plan's objects streamed into a tar.gz (``plan export``, a past
step's export), over a ``container.PlanContainer``; the same content
always the same bytes when one time is given.
"""

import concurrent.futures
import gzip
import io
import tarfile
import time

from tripleoplanclient.common import exceptions
from tripleoplanclient.plan import container as container_mod
from tripleoplanclient.plan import layout


def export(container, plan, members, fileobj, mtime=None):
    """Stream objects into ``fileobj`` as a tar.gz.

    ``members``: object names, or ``{member name: object name}``.
    ``mtime``: one time for every member and the gzip header, so that the
    same content always makes the same bytes; else each object's Swift
    timestamp.
    """
    if not isinstance(members, dict):
        members = {n: n for n in members}
    names = sorted(members)
    # Swift takes any object name (one PUT by hand); a member must still
    # land inside the directory a naive extractor writes to.
    for member in names:
        layout.check_plan_path(
            member, 'Plan %s cannot be exported: object %r' % (
                plan, members[member]), 'stored')
    container.checked(plan, members.values(), record=None)

    def fetch(member):
        name = members[member]
        try:
            headers, body = container.request('get_object', plan, name)
        except container_mod.client_exception() as exc:
            raise exceptions.CommandError(
                'Cannot read %s from plan %s: %s' % (name, plan, exc))
        return member, headers, body

    workers = container.workers
    with gzip.GzipFile(filename='', mode='wb', fileobj=fileobj,
                       mtime=time.time() if mtime is None else mtime
                       ) as gz, \
            tarfile.open(fileobj=gz, mode='w|',
                         format=tarfile.PAX_FORMAT) as tar, \
            concurrent.futures.ThreadPoolExecutor(workers) as pool:
        # A bounded window keeps memory flat on large plans.
        window = workers * 4
        for start in range(0, len(names), window):
            for member, headers, body in pool.map(
                    fetch, names[start:start + window]):
                info = tarfile.TarInfo(member)
                info.size = len(body)
                info.mode = 0o644
                info.mtime = mtime if mtime is not None else float(
                    headers.get('x-timestamp', 0) or 0)
                tar.addfile(info, io.BytesIO(body))
