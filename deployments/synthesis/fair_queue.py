"""Jobs in order of urgency, and between tenants (projects) in turn.

A stream's first segment goes ahead of later segments (its listener is waiting for
any audio at all), and within each of those two classes the tenants take turns: a
tenant with six long streams gets one segment for every one of a tenant with one,
not six. Without the turns, one project's streams would queue ahead of another's
first audio by their number alone. Ray-free and lock-free: its owner serialises
access (the scheduler holds a condition, the batcher runs on one event loop).
"""

from __future__ import annotations

from collections import OrderedDict, deque
from typing import Generic, TypeVar

J = TypeVar("J")
FIRST, LATER = 0, 1


class FairQueue(Generic[J]):
    """Per class of urgency (:data:`FIRST`, :data:`LATER`), a queue per tenant, and the
    tenants in turn: :meth:`pop` takes the next tenant's oldest job of the most
    urgent class that has any, then sends that tenant to the back of the line."""

    def __init__(self) -> None:
        # class -> tenant -> its jobs, oldest first; the tenants in the order of turns
        self._classes: tuple[OrderedDict[str, deque[J]], ...] = (OrderedDict(), OrderedDict())
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def push(self, job: J, first: bool, tenant: str = "") -> None:
        tenants = self._classes[FIRST if first else LATER]
        if tenant not in tenants:
            tenants[tenant] = deque()  # a new tenant: last in line
        tenants[tenant].append(job)
        self._size += 1

    def peek_class(self) -> int | None:
        """The class :meth:`pop` would take from (None: empty)."""
        return next((c for c, tenants in enumerate(self._classes) if tenants), None)

    def pop(self, only: int | None = None) -> J:
        """The next job: of the most urgent class (or of class ``only``), the tenant in
        turn's oldest. Raises IndexError where there is none."""
        for urgency, tenants in enumerate(self._classes):
            if not tenants or (only is not None and urgency != only):
                continue
            tenant, jobs = next(iter(tenants.items()))
            job = jobs.popleft()
            if jobs:
                tenants.move_to_end(tenant)  # its turn is over: to the back of the line
            else:
                del tenants[tenant]
            self._size -= 1
            return job
        raise IndexError("no job waits")

    def count(self, urgency: int) -> int:
        """Jobs waiting in class ``urgency``."""
        return sum(len(jobs) for jobs in self._classes[urgency].values())
