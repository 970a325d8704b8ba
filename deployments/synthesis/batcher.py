"""Requests that arrive together, run as one call: a batching engine's forward pass.

A Ray-free stand-in for ``@serve.batch`` (so the Synthesiser runs the same way in
its own deployment and inside the ingress), with the order the segment scheduler
keeps for one-at-a-time engines: a stream's first segment goes ahead of later
segments of streams already playing, since time to first audio under load is
mostly queueing. At most ``depth`` batches run at once (1: one forward pass at a
time; more for an engine that launches a pass on a device and collects it apart,
so the next batch is prepared and queued while the device runs this one): items
that arrive while they run wait, and the next batch takes the most urgent of them
(first segments, then by arrival) as soon as one ends. An item that finds the
engine idle waits at most ``wait_s`` for others to join it. Each caller gets its
own result or the batch's error.

The policy for first audio, where ``first_size`` is given: a batch is either first
segments only, at most ``first_size`` of them (small: a new stream's first audio is
one small pass away), or later segments, at most ``max_size`` (large: playing
streams have seconds of audio in hand); without it a batch takes the ``max_size``
most urgent of either. Where ``depth`` > 1, later batches hold at most ``depth - 1`` of
the places, so a first segment never waits for a large batch to end before its
own pass starts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from deployments.synthesis.fair_queue import FIRST, FairQueue

I = TypeVar("I")  # noqa: E741 - the item type
O = TypeVar("O")  # noqa: E741 - the result type


@dataclass
class _Waiting:
    item: Any
    future: asyncio.Future[Any]


class Batcher(Generic[I, O]):
    def __init__(
        self,
        run: Callable[[list[I]], Awaitable[list[O]]],
        max_size: int,
        wait_s: float,
        depth: int = 1,
        first_size: int | None = None,
    ) -> None:
        if max_size < 1 or (first_size is not None and first_size < 1):
            raise ValueError("a batch holds at least one item")
        if depth < 1:
            raise ValueError("at least one batch must be able to run")
        self._run = run
        self._max_size = max_size
        self._first_size = first_size
        self._wait_s = wait_s
        self._depth = depth
        self._waiting: FairQueue[_Waiting] = FairQueue()  # most urgent first, tenants in turn
        self._timer: asyncio.TimerHandle | None = None
        self._running: dict[asyncio.Task[None], int] = {}  # each batch's priority

    async def submit(self, item: I, urgency: int = FIRST, tenant: str = "") -> O:
        """``item``'s result, from a batch of the items submitted with it; ``urgency``
        (:data:`.FIRST` for a stream's first segment, then :data:`.LATER`,
        :data:`.BACKGROUND`) puts it ahead of less urgent items, ``tenant`` (its
        project) takes turns with the others' for places in a batch."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[O] = loop.create_future()
        self._waiting.push(_Waiting(item, future), urgency, tenant)
        if not self._running:  # idle: gather for a moment, or go when full
            if len(self._waiting) >= self._max_size:
                self._start()
            elif self._timer is None:
                self._timer = loop.call_later(self._wait_s, self._start)
        elif self._room(urgency):  # a place is free (only while depth > 1)
            loop.call_soon(self._start)
        return await future

    @property
    def first_waiting(self) -> int:
        """First segments (:data:`.FIRST`) waiting for a forward pass."""
        return self._waiting.count(FIRST)

    def _room(self, priority: int) -> bool:
        """Whether a batch of ``priority`` may start now: a place is free, and less
        urgent batches leave one for first segments."""
        if len(self._running) >= self._depth:
            return False
        later = sum(1 for p in self._running.values() if p != FIRST)
        return priority == FIRST or self._depth == 1 or later < self._depth - 1

    def _start(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        while (priority := self._waiting.peek_class()) is not None and self._room(priority):
            apart = self._first_size is not None  # first segments in batches of their own
            size = self._max_size
            if apart and priority == FIRST:
                size = min(self._first_size or size, size)
            batch: list[_Waiting] = []
            while len(batch) < size and (
                (urgency := self._waiting.peek_class()) is not None
                # later segments and background work fill a batch together
                and (not apart or (urgency == FIRST) == (priority == FIRST))
            ):
                waiting = self._waiting.pop()
                if not waiting.future.cancelled():  # its caller went away while it waited
                    batch.append(waiting)
            if batch:
                task = asyncio.create_task(self._run_batch(batch))
                self._running[task] = priority

    async def _run_batch(self, batch: list[_Waiting]) -> None:
        try:
            results = await self._run([waiting.item for waiting in batch])
            if len(results) != len(batch):
                raise RuntimeError(f"a batch of {len(batch)} gave {len(results)} results")
        except BaseException as e:  # every caller of the batch gets the error
            for waiting in batch:
                if not waiting.future.done():
                    waiting.future.set_exception(e)
            if not isinstance(e, Exception):
                raise
        else:
            for waiting, result in zip(batch, results, strict=True):
                if not waiting.future.done():
                    waiting.future.set_result(result)
        finally:
            task = asyncio.current_task()
            if task is not None:
                self._running.pop(task, None)
            if self._waiting:  # they waited while this batch ran: no more waiting
                asyncio.get_running_loop().call_soon(self._start)
