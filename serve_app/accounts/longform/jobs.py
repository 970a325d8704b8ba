"""Long-form jobs in the accounts database: a job, its chunks and each chunk's state,
so that a job outlives the process that took it and every process of the service
can speak its chunks.

Money: a job reserves its worst case when it is created (the project's ``held``
grows by it, refused as a request's hold is when the available balance cannot
cover it); each chunk, when its audio is stored, is charged at most its share of
that reserve and the share is released, in the transaction that marks the chunk
done. The charge is a ledger row whose request id names the job and the chunk,
which the ledger's unique index allows once: a chunk is never billed twice,
whichever process speaks it and however often. Cancelling releases what the
chunks not yet done reserved.

Work: a process *claims* a pending chunk for a lease (``claims``); only the
process that holds the claim can complete it.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from serve_app.accounts.database import Database, Row, Transaction
from serve_app.accounts.ledger import reserve
from serve_app.accounts.longform.webhooks import WebhookRow, add_webhook, read_webhooks, webhook_due
from serve_app.accounts.records import InsufficientFunds, UnknownProject

JobState = Literal["running", "done", "cancelled", "failed"]
ChunkState = Literal["pending", "working", "done", "cancelled"]


class JobNotFound(LookupError):
    """No job of that id in that project."""


@dataclass(frozen=True)
class NewChunk:
    chapter: int
    text: str
    before: str
    after: str
    reserve: int  # the most this chunk may be charged


@dataclass(frozen=True)
class ChunkRow:
    index: int
    chapter: int
    characters: int
    state: ChunkState
    audio_ms: int
    cost: int


@dataclass(frozen=True)
class JobRow:
    id: str
    project_id: str
    state: JobState
    settings: str
    chapters: str  # the chapters' titles, JSON
    characters: int  # of the whole text
    characters_done: int
    audio_ms: int
    cost: int
    held: int  # reserved for the chunks not yet done
    chunks: int
    chunks_done: int
    created_at: float
    finished_at: float | None
    error: str | None  # why a failed job failed


@dataclass(frozen=True)
class ChapterTally:
    """A job's chunks of one chapter in one state, counted."""

    chapter: int
    state: ChunkState
    chunks: int
    characters: int
    audio_ms: int


@dataclass(frozen=True)
class JobRecord:
    """A job as its views show it: its row, its chunks counted by chapter and state,
    its webhook if it has one."""

    job: JobRow
    tallies: list[ChapterTally]
    webhook: WebhookRow | None


_JOB_COLUMNS = (
    "j.id, j.project_id, j.state, j.settings, j.chapters, j.characters, j.characters_done,"
    " j.audio_ms, j.cost, j.held, j.chunks, j.chunks_done, j.created_at, j.finished_at, j.error"
)


def _job(row: Row) -> JobRow:
    characters, characters_done, audio_ms, cost, held, chunks, chunks_done = map(int, row[5:12])
    return JobRow(
        id=str(row[0]),
        project_id=str(row[1]),
        state=row[2],
        settings=str(row[3]),
        chapters=str(row[4]),
        characters=characters,
        characters_done=characters_done,
        audio_ms=audio_ms,
        cost=cost,
        held=held,
        chunks=chunks,
        chunks_done=chunks_done,
        created_at=float(row[12]),
        finished_at=None if row[13] is None else float(row[13]),
        error=row[14],
    )


class LongFormTables:
    """The long-form side of :class:`~serve_app.accounts.store.AccountStore`."""

    _db: Database
    owner: str

    def create_job(
        self,
        project_id: str,
        settings: str,
        chapters: str,
        chunks: Sequence[NewChunk],
        max_running: int,
        webhook_url: str | None = None,
    ) -> JobRow:
        """A new running job of ``chunks``, its worst case reserved (with its webhook,
        waiting for its end, where ``webhook_url`` is given). Raises
        :class:`InsufficientFunds` when the project's available balance cannot cover
        it, :class:`TooManyJobs` when the project has ``max_running`` jobs running."""
        job_id = "job_" + secrets.token_hex(10)
        worst = sum(c.reserve for c in chunks)
        characters = sum(len(c.text) for c in chunks)
        now = time.time()
        with self._db.transaction() as tx:
            # the project's row locked first: its jobs are counted one create at a time
            project = tx.one("SELECT id FROM projects WHERE id = ?" + tx.for_update, (project_id,))
            if project is None:
                raise UnknownProject(project_id)
            running = tx.one(
                "SELECT COUNT(*) FROM longform_jobs WHERE project_id = ? AND state = 'running'",
                (project_id,),
            )
            if running is not None and int(running[0]) >= max_running:
                raise TooManyJobs(max_running)
            reserve(tx, project_id, worst)
            tx.execute(
                "INSERT INTO longform_jobs (id, project_id, state, settings, chapters,"
                " characters, held, chunks, created_at, updated_at)"
                " VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?)",
                (
                    job_id,
                    project_id,
                    settings,
                    chapters,
                    characters,
                    worst,
                    len(chunks),
                    now,
                    now,
                ),
            )
            for index, chunk in enumerate(chunks):
                tx.execute(
                    "INSERT INTO longform_chunks (job_id, idx, chapter, text, before_text,"
                    " after_text, reserve, state) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending')",
                    (job_id, index, chunk.chapter, chunk.text, chunk.before, chunk.after,
                     chunk.reserve),
                )  # fmt: skip
            if webhook_url is not None:
                add_webhook(tx, job_id, project_id, webhook_url, now)
            return read_job(tx, job_id, project_id)

    def check_room(self, project_id: str, max_running: int, least: int) -> None:
        """Whether the project may start a job now, asked before its text is read (the
        reading is the work): :class:`TooManyJobs` when it runs ``max_running``,
        :class:`InsufficientFunds` when its available balance is below ``least`` (the
        least any job costs). :meth:`create_job` asks again, exactly, as it creates."""
        with self._db.transaction() as tx:
            project = tx.one("SELECT balance - held FROM projects WHERE id = ?", (project_id,))
            if project is None:
                raise UnknownProject(project_id)
            running = tx.one(
                "SELECT COUNT(*) FROM longform_jobs WHERE project_id = ? AND state = 'running'",
                (project_id,),
            )
        if running is not None and int(running[0]) >= max_running:
            raise TooManyJobs(max_running)
        if int(project[0]) < least:
            raise InsufficientFunds(int(project[0]), least)

    def job(self, job_id: str, project_id: str) -> JobRow:
        """The project's job ``job_id``; :class:`JobNotFound` for another project's."""
        with self._db.transaction() as tx:
            return read_job(tx, job_id, project_id)

    def record(self, job_id: str, project_id: str) -> JobRecord:
        """The project's job ``job_id`` as its view shows it (one transaction);
        :class:`JobNotFound` for another project's."""
        with self._db.transaction() as tx:
            return _records(tx, [read_job(tx, job_id, project_id)])[0]

    def records(
        self, project_id: str, limit: int = 100, after: str | None = None
    ) -> list[JobRecord]:
        """The project's jobs, newest first (older than its job ``after`` where given;
        :class:`JobNotFound` where that is not one of its jobs), as their views show
        them: three queries however many there are."""
        with self._db.transaction() as tx:
            if after is None:
                rows = tx.all(
                    f"SELECT {_JOB_COLUMNS} FROM longform_jobs j WHERE j.project_id = ?"
                    " ORDER BY j.created_at DESC, j.id DESC LIMIT ?",
                    (project_id, limit),
                )
            else:
                since = read_job(tx, after, project_id)
                rows = tx.all(
                    f"SELECT {_JOB_COLUMNS} FROM longform_jobs j WHERE j.project_id = ?"
                    " AND (j.created_at < ? OR (j.created_at = ? AND j.id < ?))"
                    " ORDER BY j.created_at DESC, j.id DESC LIMIT ?",
                    (project_id, since.created_at, since.created_at, since.id, limit),
                )
            return _records(tx, [_job(row) for row in rows])

    def chunks(self, job_id: str, project_id: str) -> list[ChunkRow]:
        """A job's chunks in order; :class:`JobNotFound` for another project's job."""
        with self._db.transaction() as tx:
            read_job(tx, job_id, project_id)
            rows = tx.all(
                "SELECT idx, chapter, LENGTH(text), state, audio_ms, cost FROM longform_chunks"
                " WHERE job_id = ? ORDER BY idx",
                (job_id,),
            )
        return [ChunkRow(int(r[0]), int(r[1]), int(r[2]), r[3], int(r[4]), int(r[5])) for r in rows]

    def cancel_job(self, job_id: str, project_id: str) -> JobRow:
        """Stop a running job: its chunks not done are dropped and what they reserved
        is released; the chunks done stay charged. A job already ended is as it was."""
        with self._db.transaction() as tx:
            end_job(tx, read_job(tx, job_id, project_id), "cancelled", None)
            return read_job(tx, job_id, project_id)

    def delete_job(self, job_id: str, project_id: str) -> JobRow:
        """Delete the project's job ``job_id``, cancelled first if it runs (its chunks
        done stay charged: the ledger keeps their charges): its last state."""
        with self._db.transaction() as tx:
            end_job(tx, read_job(tx, job_id, project_id), "cancelled", None)
            job = read_job(tx, job_id, project_id)
            tx.execute("DELETE FROM job_webhooks WHERE job_id = ?", (job_id,))
            tx.execute("DELETE FROM longform_chunks WHERE job_id = ?", (job_id,))
            tx.execute("DELETE FROM longform_jobs WHERE id = ?", (job_id,))
            return job

    def job_state(self, job_id: str) -> JobState | None:
        """The state of job ``job_id`` of any project; None if there is none (deleted)."""
        with self._db.transaction() as tx:
            row = tx.one("SELECT state FROM longform_jobs WHERE id = ?", (job_id,))
        return None if row is None else row[0]

    def ended_jobs(self, before: float, limit: int = 100) -> list[tuple[str, str]]:
        """(job id, project id) of jobs that ended before ``before``: past their keeping."""
        with self._db.transaction() as tx:
            rows = tx.all(
                "SELECT id, project_id FROM longform_jobs WHERE state <> 'running'"
                " AND finished_at < ? ORDER BY finished_at LIMIT ?",
                (before, limit),
            )
        return [(str(r[0]), str(r[1])) for r in rows]


def end_job(tx: Transaction, job: JobRow, state: JobState, error: str | None) -> None:
    """End a running job as ``state``: what its chunks not done reserved released."""
    if job.state != "running":
        return
    now = time.time()
    tx.one("SELECT id FROM projects WHERE id = ?" + tx.for_update, (job.project_id,))
    tx.execute(
        "UPDATE longform_chunks SET state = 'cancelled'"
        " WHERE job_id = ? AND state IN ('pending', 'working')",
        (job.id,),
    )
    tx.execute("UPDATE projects SET held = held - ? WHERE id = ?", (job.held, job.project_id))
    tx.execute(
        "UPDATE longform_jobs SET state = ?, error = ?, held = 0, finished_at = ?,"
        " updated_at = ? WHERE id = ?",
        (state, error, now, now, job.id),
    )
    webhook_due(tx, job.id, now)


def _records(tx: Transaction, jobs: list[JobRow]) -> list[JobRecord]:
    """``jobs`` with their chunks' tallies and their webhooks, in the same order."""
    if not jobs:
        return []
    ids = [job.id for job in jobs]
    rows = tx.all(
        "SELECT job_id, chapter, state, COUNT(*), SUM(LENGTH(text)), SUM(audio_ms)"
        f" FROM longform_chunks WHERE job_id IN ({', '.join('?' * len(ids))})"
        " GROUP BY job_id, chapter, state ORDER BY job_id, chapter, state",
        tuple(ids),
    )
    tallies: dict[str, list[ChapterTally]] = {job_id: [] for job_id in ids}
    for r in rows:
        tally = ChapterTally(int(r[1]), r[2], int(r[3]), int(r[4]), int(r[5]))
        tallies[str(r[0])].append(tally)
    webhooks = read_webhooks(tx, ids)
    return [JobRecord(job, tallies[job.id], webhooks.get(job.id)) for job in jobs]


def read_job(tx: Transaction, job_id: str, project_id: str) -> JobRow:
    row = tx.one(
        f"SELECT {_JOB_COLUMNS} FROM longform_jobs j WHERE j.id = ? AND j.project_id = ?",
        (job_id, project_id),
    )
    if row is None:
        raise JobNotFound(job_id)
    return _job(row)


class TooManyJobs(Exception):
    """The project has its limit of running jobs."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"a project runs at most {limit} long-form jobs at once")
        self.limit = limit
