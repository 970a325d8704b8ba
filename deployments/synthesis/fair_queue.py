"""Items in order of urgency, and between tenants (projects) in turn.

A stream's first segment goes ahead of later segments (its listener is waiting for
any audio at all), and those ahead of background work (a long-form job's chunks: no
listener waits for them); within each of those three classes the tenants take turns: a
tenant with six long streams gets one segment for every one of a tenant with one,
not six. Without the turns, one project's streams would queue ahead of another's
first audio by their number alone. Within a tenant, an item may say its size (the
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
    (then oldest) item of the most urgent class that has any, then sends that tenant to
    the back of the line."""

    def __init__(self) -> None:
        # class -> tenant -> its items as a heap of (size, arrival, item); tenants in turn
        self._classes: tuple[OrderedDict[str, list[tuple[int, int, J]]], ...] = (
            OrderedDict(),
            OrderedDict(),
            OrderedDict(),
        )
        self._arrivals = itertools.count()
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def push(self, item: J, urgency: int, tenant: str = "", size: int = 0) -> None:
        tenants = self._classes[urgency]
        if tenant not in tenants:
            tenants[tenant] = []  # a new tenant: last in line
        heapq.heappush(tenants[tenant], (size, next(self._arrivals), item))
        self._size += 1

    def peek_class(self) -> int | None:
        """The class :meth:`pop` would take from (None: empty)."""
        return next((c for c, tenants in enumerate(self._classes) if tenants), None)

    def pop(
        self, only: int | None = None, barred: Container[str] = (), largest: int | None = None
    ) -> J:
        """The next item: of the most urgent class (or of class ``only``), the smallest
        (then oldest) of the tenant in turn, passing over the ``barred`` tenants (those
        that hold their share of workers already) and, given ``largest``, the tenants
        whose smallest item is larger. Raises IndexError where there is none."""
        for urgency, tenants in enumerate(self._classes):
            if only is not None and urgency != only:
                continue
            tenant = next((t for t in tenants if _takes(t, tenants[t], barred, largest)), None)
            if tenant is None:
                continue
            items = tenants[tenant]
            item = heapq.heappop(items)[-1]
            if items:
                tenants.move_to_end(tenant)  # its turn is over: to the back of the line
            else:
                del tenants[tenant]
            self._size -= 1
            return item
        raise IndexError("no item waits")

    def count(self, urgency: int, barred: Container[str] = (), largest: int | None = None) -> int:
        """Items waiting in class ``urgency`` (of tenants not ``barred``; given ``largest``,
        of at most that size)."""
        return sum(
            sum(1 for size, _, _ in items if largest is None or size <= largest)
            if t not in barred
            else 0
            for t, items in self._classes[urgency].items()
        )


def _takes(
    tenant: str, items: list[tuple[int, int, J]], barred: Container[str], largest: int | None
) -> bool:
    """Whether :meth:`FairQueue.pop` may take ``tenant``'s next item (its smallest)."""
    return tenant not in barred and (largest is None or items[0][0] <= largest)
