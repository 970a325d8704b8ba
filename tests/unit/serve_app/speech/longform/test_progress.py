"""A job's progress watched by many at once: one look at the job each interval in a
process, however many watch it; every watcher sees each change and the end."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from serve_app.accounts.longform.jobs import JobNotFound, JobRow, NewChunk
from serve_app.http.errors import NotFound
from serve_app.speech.longform.progress import JobProgress
from tests.unit.serve_app.conftest import make_state
from tests.unit.serve_app.speech.longform.test_webhooks import until
from tests.unit.serve_app.speech.longform.test_work import SETTINGS

WATCHERS = 50
INTERVAL_S = 0.05


async def test_fifty_watchers_of_a_job_cost_one_look_an_interval(tmp_path: Path) -> None:
    state = make_state(tmp_path)
    store = state.store
    project = store.create_project("books", 10**9)
    chunks = [NewChunk(0, "एक।", "", "", 100), NewChunk(0, "दो।", "", "", 100)]
    job = store.create_job(project, SETTINGS, json.dumps(["एक"]), chunks, 10)
    looks: list[float] = []

    async def row(job_id: str, project_id: str) -> JobRow:
        looks.append(time.monotonic())
        return store.job(job_id, project_id)

    progress = JobProgress(row, state.jobs.job, INTERVAL_S)
    seen: list[list[tuple[str, int]]] = [[] for _ in range(WATCHERS)]

    async def watcher(i: int) -> None:
        async for view in progress.watch(job.id, project):
            seen[i].append((view.state, view.chunks_done))

    started = time.monotonic()
    watching = [asyncio.create_task(watcher(i)) for i in range(WATCHERS)]
    await until(lambda: all(seen), "every watcher sees the job")
    for _ in chunks:
        claimed = store.claim_chunk(60, 30)
        assert claimed is not None
        store.complete_chunk(claimed.job_id, claimed.index, 3, 100, 10)
        done = claimed.index + 1
        await until(lambda d=done: all(s[-1][1] == d for s in seen), "the chunk seen")
    await asyncio.wait_for(asyncio.gather(*watching), 60)  # each ends with the job
    elapsed = time.monotonic() - started
    assert all(s == [("running", 0), ("running", 1), ("done", 2)] for s in seen)
    # a look, then a rest of the interval: never more looks than intervals passed
    assert len(looks) <= elapsed / INTERVAL_S + 1, (len(looks), elapsed)
    looked = len(looks)
    await asyncio.sleep(5 * INTERVAL_S)
    assert len(looks) == looked  # the last watcher gone, nobody looks


async def test_watchers_of_a_deleted_job_are_told_it_is_gone(tmp_path: Path) -> None:
    state = make_state(tmp_path)
    store = state.store
    project = store.create_project("books", 10**9)
    job = store.create_job(
        project, SETTINGS, json.dumps(["एक"]), [NewChunk(0, "एक।", "", "", 1)], 1
    )

    async def row(job_id: str, project_id: str) -> JobRow:
        try:
            return store.job(job_id, project_id)
        except JobNotFound:
            raise NotFound("not_found", "gone", "job_id") from None

    progress = JobProgress(row, state.jobs.job, INTERVAL_S)
    firsts: list[object] = []

    async def watcher() -> None:
        async for view in progress.watch(job.id, project):
            firsts.append(view)

    watching = [asyncio.create_task(watcher()) for _ in range(3)]
    await until(lambda: len(firsts) == 3, "each watcher sees the job")
    store.delete_job(job.id, project)
    for task in watching:
        with pytest.raises(NotFound):
            await asyncio.wait_for(task, 60)
    other = store.create_project("other", 1)
    with pytest.raises(NotFound):  # another project's watch of it: not found, as ever
        await anext(progress.watch(job.id, other))
