"""The plan's store: its Swift container and its record in one object.

``plan.swift_door`` is its one door to Swift; ``plan`` reads, writes,
exports, keeps (copies inside Swift) and asks by HEAD through it;
``journal`` knows how the record is read, ``commit`` how a step is
written. Every command and action holds one PlanStore per plan call.
"""

from tripleoplanclient.plan import export
from tripleoplanclient.plan import heads
from tripleoplanclient.plan import kept
from tripleoplanclient.plan import reads
from tripleoplanclient.plan import swift_door
from tripleoplanclient.plan import writes
from tripleoplanclient.record import commit
from tripleoplanclient.record import journal


class PlanStore(commit.Commit, journal.Journal, kept.Kept, heads.Heads,
                reads.Reads, writes.Writes, export.Export,
                swift_door.SwiftDoor):
    """Swift operations on plan containers (``plan.swift_door`` and its
    mixins) and the record's (``journal.Journal``, ``commit.Commit``).

    :param connect: returns a swiftclient Connection for the calling thread
    :param progress: callable taking one line of progress (for stderr)
    """

    def __init__(self, *args, **kwargs):
        journal.Journal.__init__(self)
        swift_door.SwiftDoor.__init__(self, *args, **kwargs)
