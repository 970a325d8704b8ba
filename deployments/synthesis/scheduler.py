"""Engine calls on worker threads, every stream's first segment ahead of later ones.

Under load, time to first audio is mostly queueing: a new stream's first segment
waits behind the later segments of streams already playing. Here a job's place
is (priority, arrival): a stream's first segment has priority 0, the rest 1, and
a stream asks for its next segment only when the previous one is done, so a long
text yields to new streams between its segments. Later segments still flow: a
stream that is playing has seconds of audio in hand per segment.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")
FIRST, LATER = 0, 1


@dataclass(order=True)
class _Job:
    priority: int
    seq: int
    call: Callable[[], Any] = field(compare=False)
    loop: asyncio.AbstractEventLoop = field(compare=False)
    future: asyncio.Future[Any] = field(compare=False)


class SegmentScheduler:
    """A priority queue in front of ``workers`` threads (1 for a process-global
    engine such as eSpeak, more for engines that run calls in parallel)."""

    def __init__(self, workers: int = 1, name: str = "synth") -> None:
        if workers < 1:
            raise ValueError("a scheduler needs at least one worker")
        self._queue: queue.PriorityQueue[_Job] = queue.PriorityQueue()
        self._seq = itertools.count()
        self._first_waiting = 0  # first segments queued, not yet on a worker
        self._count_lock = threading.Lock()
        self._threads = [
            threading.Thread(target=self._work, name=f"{name}-{i}", daemon=True)
            for i in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    async def run(self, call: Callable[[], T], first: bool) -> T:
        """Run ``call`` on a worker, after every waiting job of higher priority."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        priority = FIRST if first else LATER
        if first:
            with self._count_lock:
                self._first_waiting += 1
        self._queue.put(_Job(priority, next(self._seq), call, loop, future))
        return await future

    @property
    def first_waiting(self) -> int:
        """Streams waiting for their first audio: first segments queued behind the
        running calls (the Synthesiser's signal that a new stream would wait too)."""
        return self._first_waiting

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            if job.priority == FIRST:
                with self._count_lock:
                    self._first_waiting -= 1
            if job.future.cancelled():
                continue  # its stream went away while it waited
            try:
                result, error = job.call(), None
            except BaseException as e:  # handed to the awaiting task, not lost here
                result, error = None, e
            # its caller's loop may have closed meanwhile (a server shut down): no one waits
            with contextlib.suppress(RuntimeError):
                job.loop.call_soon_threadsafe(_settle, job.future, result, error)


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
