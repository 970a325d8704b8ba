"""Long-form chunks' claims in the accounts database: a process claims a pending
chunk for a lease, renews it while the chunk is spoken, and completes it (charged
once, in the transaction that marks it done), gives it back when stopping, or
fails it (tried again later, or the job fails). A chunk whose lease ran out, or
whose process stopped heartbeating, is anyone's again; only the process holding a
claim can complete it.
"""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass

from serve_app.accounts.database import Database
from serve_app.accounts.ledger import write_charge
from serve_app.accounts.longform.jobs import end_job, read_job
from serve_app.accounts.longform.webhooks import webhook_due


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


class Completion(enum.Enum):
    """What completing a chunk did; true where it was charged."""

    CHARGED = "charged"  # the job runs on
    JOB_DONE = "job done"  # it was the job's last chunk
    LOST = "lost"  # the claim was lost (taken by another process, the job ended)
    JOB_GONE = "job gone"  # the job was deleted

    def __bool__(self) -> bool:
        return self in (Completion.CHARGED, Completion.JOB_DONE)


# A chunk no live claim holds (its parameters: now, now, this process, the oldest
# heartbeat alive): pending and not waiting for a retry, or working under a lease that
# ran out or a process that stopped heartbeating.
_CLAIMABLE = (
    "((c.state = 'pending' AND (c.lease_until IS NULL OR c.lease_until < ?))"
    " OR (c.state = 'working' AND (c.lease_until < ? OR (c.owner <> ? AND NOT EXISTS ("
    "SELECT 1 FROM owners o WHERE o.id = c.owner AND o.heartbeat_at >= ?)))))"
)
_CLAIM = (
    "SELECT c.job_id, j.project_id, c.idx, c.chapter, c.text, c.before_text,"
    " c.after_text, j.settings FROM longform_chunks c JOIN longform_jobs j ON j.id = c.job_id"
    f" WHERE j.state = 'running' AND {_CLAIMABLE}"
)
_FIRST = " ORDER BY j.created_at, c.idx LIMIT 1"


def charge_id(job_id: str, index: int) -> str:
    """The ledger's request id of a chunk's charge: one charge per chunk, ever."""
    return f"{job_id}/{index}"


class ChunkClaims:
    """The chunk-claiming side of :class:`~serve_app.accounts.store.AccountStore`."""

    _db: Database
    owner: str

    def claim_chunk(self, lease_s: float, owner_lease_s: float) -> ClaimedChunk | None:
        """A chunk no live claim holds, claimed by this process for ``lease_s`` seconds;
        None when there is none. Projects take turns: the project with the fewest
        chunks being spoken now, of those the one whose last turn is the oldest, gives
        the first such chunk of its oldest running job. A claim is live until its lease
        runs out, or until its process (another than this one, which knows itself
        alive) has not heartbeaten for ``owner_lease_s`` (a process stopped mid-chunk
        frees its chunks as soon as its holds are recovered)."""
        now = time.time()
        claimable = (now, now, self.owner, now - owner_lease_s)
        with self._db.transaction() as tx:
            turn = tx.one(
                "SELECT j.project_id FROM longform_jobs j WHERE j.state = 'running'"
                " AND EXISTS (SELECT 1 FROM longform_chunks c WHERE c.job_id = j.id"
                f" AND {_CLAIMABLE})"
                " GROUP BY j.project_id ORDER BY (SELECT COUNT(*) FROM longform_chunks w"
                " JOIN longform_jobs wj ON wj.id = w.job_id WHERE wj.project_id = j.project_id"
                " AND wj.state = 'running' AND w.state = 'working' AND w.lease_until >= ?),"
                " COALESCE((SELECT t.claimed_at FROM longform_turns t"
                " WHERE t.project_id = j.project_id), 0), MIN(j.created_at) LIMIT 1",
                (*claimable, now),
            )
            row = None
            if turn is not None:  # its chunk, unless another process claims it this moment
                row = tx.one(
                    _CLAIM + " AND j.project_id = ?" + _FIRST + tx.claim, (*claimable, turn[0])
                )
            if row is None:
                row = tx.one(_CLAIM + _FIRST + tx.claim, claimable)
            if row is None:
                return None
            tx.execute(
                "UPDATE longform_chunks SET state = 'working', owner = ?, lease_until = ?"
                " WHERE job_id = ? AND idx = ?",
                (self.owner, now + lease_s, row[0], row[2]),
            )
            tx.execute(
                "INSERT INTO longform_turns (project_id, claimed_at) VALUES (?, ?)"
                " ON CONFLICT (project_id) DO UPDATE SET claimed_at = excluded.claimed_at",
                (row[1], now),
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

    def claim_held(self, job_id: str, index: int) -> bool:
        """Whether this process still holds its claim on a chunk (its job not cancelled
        or deleted, its lease not taken over): read only."""
        with self._db.transaction() as tx:
            row = tx.one(
                "SELECT 1 FROM longform_chunks WHERE job_id = ? AND idx = ?"
                " AND state = 'working' AND owner = ?",
                (job_id, index, self.owner),
            )
        return row is not None

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
    ) -> Completion:
        """Mark a chunk this process claimed done and charge it (at most its reserve;
        ``characters``: billed, as heard), in one transaction; the job's progress grows
        by the chunk's text, and the job is done with its last chunk. Nothing is charged
        where the claim was lost (the lease ran out and another process took the chunk,
        or the job was cancelled or deleted)."""
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
                gone = tx.one("SELECT 1 FROM longform_jobs WHERE id = ?", (job_id,)) is None
                return Completion.JOB_GONE if gone else Completion.LOST
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
                return Completion.JOB_DONE
            return Completion.CHARGED

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
            end_job(tx, read_job(tx, job_id, str(row[0])), "failed", error)
            return True
