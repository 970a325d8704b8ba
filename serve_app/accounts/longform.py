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

Work: a process *claims* a pending chunk for a lease (a chunk whose lease ran out,
its process gone, is pending again); only the process that holds the claim can
complete it.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from serve_app.accounts.database import Database, Row, Transaction
from serve_app.accounts.ledger import reserve, write_charge
from serve_app.accounts.records import UnknownProject
from serve_app.accounts.webhooks import add_webhook, webhook_due

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
class ClaimedChunk:
    job_id: str
    project_id: str
    index: int
    chapter: int
    text: str
    before: str
    after: str
    settings: str  # the job's request, JSON: how every chunk is spoken


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


def charge_id(job_id: str, index: int) -> str:
    """The ledger's request id of a chunk's charge: one charge per chunk, ever."""
    return f"{job_id}/{index}"


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
            return self._read_job(tx, job_id, project_id)

    def job(self, job_id: str, project_id: str) -> JobRow:
        """The project's job ``job_id``; :class:`JobNotFound` for another project's."""
        with self._db.transaction() as tx:
            return self._read_job(tx, job_id, project_id)

    def jobs(self, project_id: str, limit: int = 100) -> list[JobRow]:
        """The project's jobs, newest first."""
        with self._db.transaction() as tx:
            rows = tx.all(
                f"SELECT {_JOB_COLUMNS} FROM longform_jobs j WHERE j.project_id = ?"
                " ORDER BY j.created_at DESC LIMIT ?",
                (project_id, limit),
            )
        return [_job(row) for row in rows]

    def chunks(self, job_id: str, project_id: str) -> list[ChunkRow]:
        """A job's chunks in order; :class:`JobNotFound` for another project's job."""
        with self._db.transaction() as tx:
            self._read_job(tx, job_id, project_id)
            rows = tx.all(
                "SELECT idx, chapter, LENGTH(text), state, audio_ms, cost FROM longform_chunks"
                " WHERE job_id = ? ORDER BY idx",
                (job_id,),
            )
        return [ChunkRow(int(r[0]), int(r[1]), int(r[2]), r[3], int(r[4]), int(r[5])) for r in rows]

    def claim_chunk(self, lease_s: float, owner_lease_s: float) -> ClaimedChunk | None:
        """The first chunk of the oldest running job that no live claim holds, claimed
        by this process for ``lease_s`` seconds; None when there is none. A claim is
        live until its lease runs out, or until its process (another than this one,
        which knows itself alive) has not heartbeaten for ``owner_lease_s`` (a process
        stopped mid-chunk frees its chunks as soon as its holds are recovered)."""
        now = time.time()
        with self._db.transaction() as tx:
            row = tx.one(
                "SELECT c.job_id, j.project_id, c.idx, c.chapter, c.text, c.before_text,"
                " c.after_text, j.settings"
                " FROM longform_chunks c JOIN longform_jobs j ON j.id = c.job_id"
                " WHERE j.state = 'running' AND ((c.state = 'pending'"
                " AND (c.lease_until IS NULL OR c.lease_until < ?))"
                " OR (c.state = 'working' AND (c.lease_until < ? OR (c.owner <> ? AND NOT EXISTS ("
                "SELECT 1 FROM owners o WHERE o.id = c.owner AND o.heartbeat_at >= ?)))))"
                " ORDER BY j.created_at, c.idx LIMIT 1" + tx.claim,
                (now, now, self.owner, now - owner_lease_s),
            )
            if row is None:
                return None
            tx.execute(
                "UPDATE longform_chunks SET state = 'working', owner = ?, lease_until = ?"
                " WHERE job_id = ? AND idx = ?",
                (self.owner, now + lease_s, row[0], row[2]),
            )
        job_id, project_id, index, chapter, text, before, after, settings = row
        return ClaimedChunk(
            str(job_id), str(project_id), int(index), int(chapter), text, before, after, settings
        )

    def release_claim(self, job_id: str, index: int) -> None:
        """Give back a chunk this process claimed and will not speak (it is stopping):
        pending again for any process at once, not after its lease."""
        with self._db.transaction() as tx:
            tx.execute(
                "UPDATE longform_chunks SET state = 'pending', owner = NULL, lease_until = NULL"
                " WHERE job_id = ? AND idx = ? AND state = 'working' AND owner = ?",
                (job_id, index, self.owner),
            )

    def renew_claim(self, job_id: str, index: int, lease_s: float) -> bool:
        """Keep this process's claim on a chunk that takes long; False if it was lost."""
        with self._db.transaction() as tx:
            return bool(
                tx.execute(
                    "UPDATE longform_chunks SET lease_until = ? WHERE job_id = ? AND idx = ?"
                    " AND state = 'working' AND owner = ?",
                    (time.time() + lease_s, job_id, index, self.owner),
                )
            )

    def complete_chunk(
        self, job_id: str, index: int, characters: int, audio_ms: int, cost: int
    ) -> bool:
        """Mark a chunk this process claimed done and charge it (at most its reserve;
        ``characters``: billed, as heard), in one transaction; the job's progress grows
        by the chunk's text, and the job is done with its last chunk. False, and nothing
        charged, where the claim was lost (the lease ran out and another process took
        the chunk, or the job was cancelled)."""
        now = time.time()
        with self._db.transaction() as tx:
            job = tx.one(
                "SELECT project_id FROM longform_jobs WHERE id = ? AND state = 'running'"
                + tx.for_update,
                (job_id,),
            )
            chunk = tx.one(
                "SELECT reserve, LENGTH(text) FROM longform_chunks WHERE job_id = ? AND idx = ?"
                " AND state = 'working' AND owner = ?",
                (job_id, index, self.owner),
            )
            if job is None or chunk is None:
                return False
            project_id, reserve, length = str(job[0]), int(chunk[0]), int(chunk[1])
            charge = max(0, min(cost, reserve))
            tx.execute(
                "UPDATE longform_chunks SET state = 'done', audio_ms = ?, cost = ?"
                " WHERE job_id = ? AND idx = ?",
                (audio_ms, charge, job_id, index),
            )
            write_charge(
                tx, project_id, charge_id(job_id, index), charge, reserve, characters, audio_ms,
                now, requests=1 if index == 0 else 0,  # a job is one request: its first chunk's
            )  # fmt: skip
            tx.execute(
                "UPDATE longform_jobs SET held = held - ?, characters_done = characters_done + ?,"
                " audio_ms = audio_ms + ?, cost = cost + ?, chunks_done = chunks_done + 1,"
                " updated_at = ? WHERE id = ?",
                (reserve, length, audio_ms, charge, now, job_id),
            )
            if tx.execute(
                "UPDATE longform_jobs SET state = 'done', finished_at = ?"
                " WHERE id = ? AND chunks_done = chunks",
                (now, job_id),
            ):
                webhook_due(tx, job_id, now)
            return True

    def cancel_job(self, job_id: str, project_id: str) -> JobRow:
        """Stop a running job: its chunks not done are dropped and what they reserved
        is released; the chunks done stay charged. A job already ended is as it was."""
        with self._db.transaction() as tx:
            self._end(tx, self._read_job(tx, job_id, project_id), "cancelled", None)
            return self._read_job(tx, job_id, project_id)

    def delete_job(self, job_id: str, project_id: str) -> JobRow:
        """Delete the project's job ``job_id``, cancelled first if it runs (its chunks
        done stay charged: the ledger keeps their charges): its last state."""
        with self._db.transaction() as tx:
            self._end(tx, self._read_job(tx, job_id, project_id), "cancelled", None)
            job = self._read_job(tx, job_id, project_id)
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

    def fail_chunk(
        self, job_id: str, index: int, error: str, max_attempts: int, retry_after_s: float = 0.0
    ) -> bool:
        """A chunk this process claimed could not be spoken (``error``): pending again
        for any process to try after ``retry_after_s`` (a stage restarting has time to
        come back), or, at its ``max_attempts``-th failure, the job failed with that
        error (ended as a cancel ends it). True if the job failed."""
        with self._db.transaction() as tx:
            row = tx.one(
                "SELECT j.project_id, c.attempts FROM longform_chunks c"
                " JOIN longform_jobs j ON j.id = c.job_id WHERE c.job_id = ? AND c.idx = ?"
                " AND c.state = 'working' AND c.owner = ?",
                (job_id, index, self.owner),
            )
            if row is None:
                return False  # the claim was lost meanwhile
            attempts = int(row[1]) + 1
            tx.execute(
                "UPDATE longform_chunks SET state = 'pending', owner = NULL, attempts = ?,"
                " lease_until = ? WHERE job_id = ? AND idx = ?",
                (attempts, time.time() + retry_after_s, job_id, index),
            )
            if attempts < max_attempts:
                return False
            self._end(tx, self._read_job(tx, job_id, str(row[0])), "failed", error)
            return True

    @staticmethod
    def _end(tx: Transaction, job: JobRow, state: JobState, error: str | None) -> None:
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

    @staticmethod
    def _read_job(tx: Transaction, job_id: str, project_id: str) -> JobRow:
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
