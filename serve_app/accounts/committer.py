"""Ledger calls from async code, on threads of their own, committed in groups.

Every speech request makes a few small ledger transactions (key lookup, hold,
settlement). On SQLite each commit waits for a disk flush, and one writer at a
time commits, so under load requests queue for flushes. A :class:`GroupCommitter`
thread takes every call waiting when it is free and runs them in one database
group (``Database.group``): one flush for all of them, each call still
all-or-nothing on its own. A caller's result arrives only after its group has
committed, so nothing is reported that could still be lost.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from serve_app.accounts.database import Database

T = TypeVar("T")
_STOP = None


class GroupCommitter:
    """``db.connections`` threads, each committing up to ``db.max_group`` calls at once."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._queue: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]] | None] = (
            queue.SimpleQueue()
        )
        self._threads = [
            threading.Thread(target=self._work, name=f"ledger-{i}", daemon=True)
            for i in range(db.connections)
        ]
        for thread in self._threads:
            thread.start()

    async def run(self, call: Callable[[], T]) -> T:
        """The result of ``call`` (which opens its own transactions), once committed."""
        future: Future[T] = Future()
        self._queue.put((call, future))
        return await asyncio.wrap_future(future)

    def close(self) -> None:
        """Finish the calls already submitted, then stop the threads."""
        for _ in self._threads:
            self._queue.put(_STOP)
        for thread in self._threads:
            thread.join()

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            batch = [item]
            stop = False
            while len(batch) < self._db.max_group:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is _STOP:
                    stop = True
                    break
                batch.append(more)
            self._commit(batch)
            if stop:
                return

    def _commit(self, batch: list[tuple[Callable[[], Any], Future[Any]]]) -> None:
        # A call whose caller was cancelled before it ran is not run (as in an
        # executor); from here on the others cannot be cancelled.
        batch = [(call, future) for call, future in batch if future.set_running_or_notify_cancel()]
        if not batch:
            return
        outcomes: list[tuple[Any, BaseException | None]] = []
        try:
            with self._db.group():
                for call, _ in batch:
                    try:
                        outcomes.append((call(), None))
                    except Exception as e:  # this call's transaction was rolled back alone
                        outcomes.append((None, e))
        except Exception as e:  # the commit failed: nothing of the group was kept
            for _, future in batch:
                future.set_exception(e)
            return
        for (result, error), (_, future) in zip(outcomes, batch, strict=True):
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)
