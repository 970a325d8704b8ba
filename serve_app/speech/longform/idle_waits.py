"""How long a poller of the accounts database rests when it finds no work.

Every ingress replica looks for long-form chunks to speak and for jobs' webhooks to
send, and a replica with none would ask the database again and again (a write
transaction each time: SQLite's one writer, the ledger's too). A poller that finds
nothing rests longer each time, doubling up to a bound; work made in its own process
(a job submitted here, a job ended here) wakes it at once, and work made elsewhere is
found within the bound.
"""

from __future__ import annotations

import asyncio
import contextlib

# A poller that finds nothing looks again after 1 s, then 2, then every 4 s.
FIRST_S = 1.0
MOST_S = 4.0


class Wakeup:
    """Wakes every poller of a process that rests in :meth:`rest` at once."""

    def __init__(self) -> None:
        self._woken = asyncio.Event()

    def wake(self) -> None:
        """Every poller resting now looks again at once (later ones rest as usual)."""
        self._woken.set()
        self._woken = asyncio.Event()

    async def rest(self, seconds: float) -> bool:
        """Up to ``seconds``, or until :meth:`wake`; True if woken."""
        woken = self._woken
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(woken.wait(), seconds)
        return woken.is_set()


class IdleWait:
    """One poller's rest: ``first_s`` after a look that found nothing, doubled after
    each one more up to ``most_s``, and ``first_s`` again once work is found or it is
    woken."""

    def __init__(self, wakeup: Wakeup, first_s: float = FIRST_S, most_s: float = MOST_S) -> None:
        self._wakeup = wakeup
        self._first_s = first_s
        self._most_s = max(first_s, most_s)
        self._next_s = first_s

    @property
    def next_s(self) -> float:
        """How long the next rest would be."""
        return self._next_s

    def found(self) -> None:
        """The last look found work: the next rest, if any, is short again."""
        self._next_s = self._first_s

    async def rest(self) -> None:
        """Rest after a look that found nothing."""
        if await self._wakeup.rest(self._next_s):
            self._next_s = self._first_s
        else:
            self._next_s = min(self._next_s * 2, self._most_s)
