"""A running job's progress as its watchers see it: one look at the job a second in
this process, however many watch it (each event stream once looked for itself: a
thousand streams of one job were a thousand queries a second).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, field

from serve_app.accounts.longform.jobs import JobRow
from serve_app.http.errors import NotFound
from serve_app.speech.longform.vocabulary import SpeechJob

logger = logging.getLogger(__name__)
# How often a watched job's progress is looked at.
PROGRESS_INTERVAL_S = 1.0


@dataclass
class _Watched:
    """One job's progress, shared by its watchers in this process."""

    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    version: int = 0  # how many views were published
    latest: SpeechJob | None = None  # None once published: the job is gone
    watchers: int = 0
    looking: asyncio.Task[None] | None = None


class JobProgress:
    """Watches of running jobs: :meth:`watch` yields a job now and each time a chunk
    of it is done, until it ends."""

    def __init__(
        self,
        row: Callable[[str, str], Awaitable[JobRow]],
        view: Callable[[str, str], Awaitable[SpeechJob]],
        interval_s: float = PROGRESS_INTERVAL_S,
    ) -> None:
        """``row(job_id, project_id)``: the job's row (cheap, looked at each interval;
        raises :class:`NotFound`); ``view``: the job as its owner sees it (read when the
        row shows a change)."""
        self._row = row
        self._view = view
        self._interval_s = interval_s
        self._watched: dict[tuple[str, str], _Watched] = {}

    async def watch(self, job_id: str, project_id: str) -> AsyncGenerator[SpeechJob, None]:
        """The job now, then again each time a chunk is done, until it ends; raises
        :class:`NotFound` when it is not (or no longer) the project's."""
        key = (job_id, project_id)
        watched = self._watched.get(key)
        if watched is None:
            watched = self._watched[key] = _Watched()
            watched.looking = asyncio.create_task(self._look(watched, job_id, project_id))
        watched.watchers += 1
        seen = 0
        try:
            while True:
                async with watched.changed:
                    while watched.version <= seen:
                        await watched.changed.wait()
                    seen, latest = watched.version, watched.latest
                if latest is None:
                    raise NotFound("not_found", f"No job '{job_id}' in this project.", "job_id")
                yield latest
                if latest.state != "running":
                    return
        finally:
            watched.watchers -= 1
            if watched.watchers == 0:
                if self._watched.get(key) is watched:
                    del self._watched[key]
                if watched.looking is not None:
                    watched.looking.cancel()

    async def _look(self, watched: _Watched, job_id: str, project_id: str) -> None:
        """Publish the job's view when its state or chunks done change, until it ends."""
        seen: tuple[str, int] | None = None
        while True:
            try:
                row = await self._row(job_id, project_id)
                if (row.state, row.chunks_done) != seen:
                    view = await self._view(job_id, project_id)
                    seen = (view.state, view.chunks_done)
                    await self._publish(watched, view)
                    if view.state != "running":
                        return
            except NotFound:
                await self._publish(watched, None)
                return
            except Exception:  # the database away a moment: its watchers wait on
                logger.exception("looking at job %s's progress failed; retrying", job_id)
            await asyncio.sleep(self._interval_s)

    @staticmethod
    async def _publish(watched: _Watched, view: SpeechJob | None) -> None:
        async with watched.changed:
            watched.latest, watched.version = view, watched.version + 1
            watched.changed.notify_all()
