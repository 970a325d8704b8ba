"""Requests that arrive together, run as one call: a batching engine's forward pass.

A Ray-free stand-in for ``@serve.batch`` (so the Synthesiser runs the same way in
its own deployment and inside the ingress): an item waits at most ``wait_s`` for
others to join it, a batch holds at most ``max_size`` items, and each caller gets
its own result or the batch's error.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

I = TypeVar("I")  # noqa: E741 - the item type
O = TypeVar("O")  # noqa: E741 - the result type


class Batcher(Generic[I, O]):
    def __init__(
        self, run: Callable[[list[I]], Awaitable[list[O]]], max_size: int, wait_s: float
    ) -> None:
        if max_size < 1:
            raise ValueError("a batch holds at least one item")
        self._run = run
        self._max_size = max_size
        self._wait_s = wait_s
        self._waiting: list[tuple[I, asyncio.Future[O]]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._running: set[asyncio.Task[None]] = set()

    async def submit(self, item: I) -> O:
        """``item``'s result, from a batch of the items submitted with it."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[O] = loop.create_future()
        self._waiting.append((item, future))
        if len(self._waiting) >= self._max_size:
            self._start()
        elif self._timer is None:
            self._timer = loop.call_later(self._wait_s, self._start)
        return await future

    def _start(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        while self._waiting:
            batch = [(i, f) for i, f in self._waiting[: self._max_size] if not f.cancelled()]
            del self._waiting[: self._max_size]
            if batch:
                task = asyncio.create_task(self._run_batch(batch))
                self._running.add(task)  # held until done: the loop keeps only weak refs
                task.add_done_callback(self._running.discard)

    async def _run_batch(self, batch: list[tuple[I, asyncio.Future[O]]]) -> None:
        try:
            results = await self._run([item for item, _ in batch])
            if len(results) != len(batch):
                raise RuntimeError(f"a batch of {len(batch)} gave {len(results)} results")
        except BaseException as e:  # every caller of the batch gets the error
            for _, future in batch:
                if not future.done():
                    future.set_exception(e)
            if not isinstance(e, Exception):
                raise
            return
        for (_, future), result in zip(batch, results, strict=True):
            if not future.done():
                future.set_result(result)
