"""Engine calls on worker threads, every stream's first segment ahead of later ones,
and the tenants (projects) in turn.

Under load, time to first audio is mostly queueing: a new stream's first segment
waits behind the later segments of streams already playing. Here a call's place is
its class (a stream's first segment, or a later one), then its tenant's turn
(:class:`.fair_queue.FairQueue`: one project's many streams take their turns with
another's one), then its arrival; a stream asks for its next segment only when the
previous one is done, so a long text yields to new streams between its segments.
Later segments still flow: a stream that is playing has seconds of audio in hand
per segment.

An engine whose calls may run at once (Kokoro on a CPU: a call per core) has a lane
per class, each of as many workers: first segments take workers of their own, so a
new stream never waits for a later segment's call to end (a long passage on two cores
runs for seconds); later segments run on workers below the process's other threads
in the OS's scheduling (:mod:`.priority`), so that while both run the first segment
has the cores and the later ones the time it leaves; background work (a long-form
job's chunks) runs on workers of its own at the OS's idle priority, so a stream's
later segment never waits for a chunk's call to end either, and takes the cores from
it. An engine of one worker (eSpeak NG, one per process) runs a chunk's call on that
worker lowered to the idle priority for the call, and put back at once when a
stream's segment comes to wait for it (:class:`.priority.Lowering`). Nothing idles
for it: with no first segment waiting, later ones have every core, and with no
stream speaking, a long-form job has them all. And two shares keep a worker of the first lane
for a new stream that would otherwise wait for a long call to end: a tenant runs at
most all but one of the first lane's workers at once, and so do long first segments
(over :data:`LONG_FIRST` characters: an unpunctuated text's first segment is seconds
of calls) whoever sends them, so that a short first segment (a voice agent's turn)
finds one free beside six projects' long texts as beside one's.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from deployments.priority import Lowering, run_at_idle, run_in_background
from deployments.synthesis.fair_queue import BACKGROUND, FIRST, LATER, FairQueue

T = TypeVar("T")
# A first segment longer than this (characters) is a long one: seconds of model calls
# (a sentence is ~100), and long ones share the first lane's workers but one.
LONG_FIRST = 160


@dataclass
class _QueuedCall:
    call: Callable[[], Any]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]
    tenant: str = ""
    size: int = 0
    urgency: int = FIRST


class SegmentScheduler:
    """A fair queue in front of ``workers`` threads (1 for a process-global engine
    such as eSpeak, more for engines that run calls in parallel)."""

    def __init__(self, workers: int = 1, name: str = "synth", lanes: bool = False) -> None:
        """``workers`` threads that take any call, most urgent first; with ``lanes`` (an
        engine whose calls may run at once), ``workers`` for each class of urgency, the
        less urgent at lower priorities (the module's docstring)."""
        if workers < 1:
            raise ValueError("a scheduler needs at least one worker")
        self._queue: FairQueue[_QueuedCall] = FairQueue()
        self._ready = threading.Condition()
        self.lanes = lanes
        # a first segment may be one of 400 characters, seconds of calls
        self._first_share = max(1, workers - 1) if lanes else workers
        self._first_running: Counter[str] = Counter()  # tenant: its first segments running
        self._long_running = 0  # long first segments running (over LONG_FIRST characters)
        self._running = 0  # calls on a worker now
        # without lanes, workers take every class: lowered to the idle one for background calls
        self._lowering = Lowering()
        takes: list[int | None] = [FIRST, LATER, BACKGROUND] if lanes else [None]
        self._threads = [
            threading.Thread(
                target=self._work, args=(only,), name=f"{name}{_LANE[only]}-{i}", daemon=True
            )
            for only in takes
            for i in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    async def run(self, call: Callable[[], T], urgency: int, tenant: str = "", size: int = 0) -> T:
        """Run ``call`` on a worker, after every waiting call of a more urgent class
        (``urgency``: :data:`.FIRST`, :data:`.LATER` or :data:`.BACKGROUND`), the turns of
        the tenants before ``tenant``'s, and ``tenant``'s smaller calls (``size``: the
        characters it speaks)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        with self._ready:
            entry = _QueuedCall(call, loop, future, tenant, size, urgency)
            self._queue.push(entry, urgency, tenant, size)
            self._ready.notify_all()  # with lanes, a worker of the call's own lane
        if not self.lanes and urgency != BACKGROUND:
            self._lowering.restore()  # a background call running ends at our priority
        return await future

    def waiting(self, urgency: int) -> bool:
        """Whether a call waits for the worker a call of class ``urgency`` holds: with
        lanes, one of its own class; else any (a long call may give its worker back)."""
        with self._ready:
            if not self.lanes:
                return len(self._queue) > 0
            return self._queue.count(urgency) > 0

    @property
    def busy(self) -> bool:
        """Whether a call waits or runs (a call whose stream went away runs to its end)."""
        with self._ready:
            return self._running > 0 or len(self._queue) > 0

    @property
    def first_waiting(self) -> int:
        """Streams waiting for their first audio: first segments queued behind the
        running calls (the Synthesiser's signal that a new stream would wait too)."""
        with self._ready:
            return self._queue.count(FIRST)

    def _urgent_waiting(self) -> bool:
        with self._ready:
            return self._queue.count(FIRST) + self._queue.count(LATER) > 0

    def _shares(self) -> tuple[set[str], int | None]:
        """The first lane's shares (under the lock): the tenants that hold theirs, and
        the largest first segment that may start (None: any; LONG_FIRST while long
        ones hold theirs)."""
        share = self._first_share
        barred = {t for t, n in self._first_running.items() if n >= share}
        return barred, LONG_FIRST if self._long_running >= share else None

    def _work(self, only: int | None) -> None:
        """Run calls of class ``only`` (None: any, most urgent first) as they come."""
        if only == LATER:
            run_in_background()
        elif only == BACKGROUND:
            run_at_idle()
        counted = only == FIRST  # the first lane keeps tenants and long calls to their shares

        def queued() -> int:
            if only is None:
                return len(self._queue)
            return self._queue.count(only, *(self._shares() if counted else ()))

        while True:
            with self._ready:
                self._ready.wait_for(lambda: queued() > 0)
                entry = self._queue.pop(only, *(self._shares() if counted else ()))
                long = counted and entry.size > LONG_FIRST
                if counted:
                    self._first_running[entry.tenant] += 1
                    self._long_running += long
                self._running += 1
            if entry.future.cancelled():  # its stream went away while it waited
                pass
            elif only is None and entry.urgency == BACKGROUND:
                with self._lowering.idle():
                    if self._urgent_waiting():  # came as it was lowered
                        self._lowering.restore()
                    _run(entry)
            else:
                _run(entry)
            with self._ready:
                self._running -= 1
                if counted:
                    self._first_running -= Counter({entry.tenant: 1})  # drops a tenant at 0
                    self._long_running -= long
                    self._ready.notify_all()  # a call held back by a share may run now


def _run(entry: _QueuedCall) -> None:
    """``entry``'s call, its result or failure handed to the task awaiting it."""
    try:
        result, error = entry.call(), None
    except BaseException as e:  # handed to the awaiting task, not lost here
        result, error = None, e
    # its caller's loop may have closed meanwhile (a server shut down): no one waits
    with contextlib.suppress(RuntimeError):
        entry.loop.call_soon_threadsafe(_settle, entry.future, result, error)


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


_LANE = {None: "", FIRST: "-first", LATER: "-later", BACKGROUND: "-background"}
