"""Engine calls on worker threads, every stream's first segment ahead of later ones,
and the tenants (projects) in turn.

Under load, time to first audio is mostly queueing: a new stream's first segment
waits behind the later segments of streams already playing. Here a job's place is
its class (a stream's first segment, or a later one), then its tenant's turn
(:class:`.fair_queue.FairQueue`: one project's many streams take their turns with
another's one), then its arrival; a stream asks for its next segment only when the
previous one is done, so a long text yields to new streams between its segments.
Later segments still flow: a stream that is playing has seconds of audio in hand
per segment.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from deployments.synthesis.fair_queue import FIRST, FairQueue

T = TypeVar("T")


@dataclass
class _Job:
    call: Callable[[], Any]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]


class SegmentScheduler:
    """A fair queue in front of ``workers`` threads (1 for a process-global engine
    such as eSpeak, more for engines that run calls in parallel)."""

    def __init__(self, workers: int = 1, name: str = "synth") -> None:
        if workers < 1:
            raise ValueError("a scheduler needs at least one worker")
        self._queue: FairQueue[_Job] = FairQueue()
        self._ready = threading.Condition()
        self._threads = [
            threading.Thread(target=self._work, name=f"{name}-{i}", daemon=True)
            for i in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    async def run(self, call: Callable[[], T], first: bool, tenant: str = "") -> T:
        """Run ``call`` on a worker, after every waiting job of a more urgent class
        and the turns of the tenants before ``tenant``'s."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        with self._ready:
            self._queue.push(_Job(call, loop, future), first, tenant)
            self._ready.notify()
        return await future

    @property
    def waiting(self) -> bool:
        """Whether any job waits for a worker (a long job may give its worker back)."""
        with self._ready:
            return len(self._queue) > 0

    @property
    def first_waiting(self) -> int:
        """Streams waiting for their first audio: first segments queued behind the
        running calls (the Synthesiser's signal that a new stream would wait too)."""
        with self._ready:
            return self._queue.count(FIRST)

    def _work(self) -> None:
        while True:
            with self._ready:
                self._ready.wait_for(lambda: len(self._queue) > 0)
                job = self._queue.pop()
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
