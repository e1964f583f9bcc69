"""What every command and action holds per plan call: the plan's Swift
container (``plan.container``), the reader of its history (``reader``)
and the writer of its steps (``writer``), built on one another.
"""

import time

from tripleoplanclient.plan import container as container_mod
from tripleoplanclient.record import reader as reader_mod
from tripleoplanclient.record import writer as writer_mod


class PlanStore:
    """A plan's container, history reader and step writer.

    :param connect: returns a swiftclient Connection for the calling thread
    :param progress: callable taking one line of progress (for stderr)
    :param workers: requests side by side at most
    :param sleep: how to wait (tests give no real sleep)
    :param read_only: a dry run: readers mend nothing (the index, the
        parameters file, an open step) and the writer writes no outcome
    :param actor: () -> {'user', 'project'} from the caller's Keystone
        token, for the steps it writes
    """

    def __init__(self, connect, progress=None, workers=10, sleep=time.sleep,
                 read_only=False, actor=None):
        self.container = container_mod.PlanContainer(
            connect, progress=progress, workers=workers, sleep=sleep)
        self.reader = reader_mod.HistoryReader(self.container,
                                               read_only=read_only)
        self.writer = writer_mod.HistoryWriter(self.container, self.reader,
                                               actor=actor)
