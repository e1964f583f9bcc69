"""The plan's store: its Swift container and its record in one object.

``plan.container`` knows Swift; ``journal`` knows how a step is written
and read. Every command and action holds one PlanStore per plan call.
"""

from tripleoplanclient.plan import container
from tripleoplanclient.record import journal


class PlanStore(journal.Journal, container.Container):
    """Swift operations on plan containers (``container.Container``) and
    the record's (``journal.Journal``).

    :param connect: returns a swiftclient Connection for the calling thread
    :param progress: callable taking one line of progress (for stderr)
    """

    def __init__(self, *args, **kwargs):
        journal.Journal.__init__(self)
        container.Container.__init__(self, *args, **kwargs)
