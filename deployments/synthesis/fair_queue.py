"""Jobs in order of urgency, and between tenants (projects) in turn.

A stream's first segment goes ahead of later segments (its listener is waiting for
any audio at all), and those ahead of background work (a long-form job's chunks: no
listener waits for them); within each of those three classes the tenants take turns: a
tenant with six long streams gets one segment for every one of a tenant with one,
not six. Without the turns, one project's streams would queue ahead of another's
first audio by their number alone. Within a tenant, a job may say its size (the
characters it speaks): the smallest goes first, then the oldest, so a project's
short new stream does not wait behind its own long texts' first segments (a first
segment may be 400 characters of seconds of calls). Ray-free and lock-free: its
owner serialises access (the scheduler holds a condition, the batcher runs on one
event loop).
"""

from __future__ import annotations

import heapq
import itertools
from collections import OrderedDict
from collections.abc import Container
from typing import Generic, TypeVar

J = TypeVar("J")
# the classes of urgency, most urgent first
FIRST, LATER, BACKGROUND = 0, 1, 2


class FairQueue(Generic[J]):
    """Per class of urgency (:data:`FIRST`, :data:`LATER`, :data:`BACKGROUND`), a queue
    per tenant, and the tenants in turn: :meth:`pop` takes the next tenant's smallest
    (then oldest) job of the most urgent class that has any, then sends that tenant to
    the back of the line."""

    def __init__(self) -> None:
        # class -> tenant -> its jobs as a heap of (size, arrival, job); tenants in turn
        self._classes: tuple[OrderedDict[str, list[tuple[int, int, J]]], ...] = (
            OrderedDict(),
            OrderedDict(),
            OrderedDict(),
        )
        self._arrivals = itertools.count()
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def push(self, job: J, urgency: int, tenant: str = "", size: int = 0) -> None:
        tenants = self._classes[urgency]
        if tenant not in tenants:
            tenants[tenant] = []  # a new tenant: last in line
        heapq.heappush(tenants[tenant], (size, next(self._arrivals), job))
        self._size += 1

    def peek_class(self) -> int | None:
        """The class :meth:`pop` would take from (None: empty)."""
        return next((c for c, tenants in enumerate(self._classes) if tenants), None)

    def pop(
        self, only: int | None = None, barred: Container[str] = (), largest: int | None = None
    ) -> J:
        """The next job: of the most urgent class (or of class ``only``), the smallest
        (then oldest) of the tenant in turn, passing over the ``barred`` tenants (those
        that hold their share of workers already) and, given ``largest``, the tenants
        whose smallest job is larger. Raises IndexError where there is none."""
        for urgency, tenants in enumerate(self._classes):
            if only is not None and urgency != only:
                continue
            tenant = next((t for t in tenants if _takes(t, tenants[t], barred, largest)), None)
            if tenant is None:
                continue
            jobs = tenants[tenant]
            job = heapq.heappop(jobs)[-1]
            if jobs:
                tenants.move_to_end(tenant)  # its turn is over: to the back of the line
            else:
                del tenants[tenant]
            self._size -= 1
            return job
        raise IndexError("no job waits")

    def count(self, urgency: int, barred: Container[str] = (), largest: int | None = None) -> int:
        """Jobs waiting in class ``urgency`` (of tenants not ``barred``; given ``largest``,
        of at most that size)."""
        return sum(
            sum(1 for size, _, _ in jobs if largest is None or size <= largest)
            if t not in barred
            else 0
            for t, jobs in self._classes[urgency].items()
        )


def _takes(
    tenant: str, jobs: list[tuple[int, int, J]], barred: Container[str], largest: int | None
) -> bool:
    """Whether :meth:`FairQueue.pop` may take ``tenant``'s next job (its smallest)."""
    return tenant not in barred and (largest is None or jobs[0][0] <= largest)
