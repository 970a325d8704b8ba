"""Webhooks in the accounts database: a project's signing secret, and each job's
webhook, from the job's creation to its delivery.

A job given a ``webhook_url`` has a row here, ``waiting``, made in the transaction
that creates the job; the transaction that ends the job (its last chunk done, a
cancel, a failure) makes it ``pending``. Any process of the service then *claims* a
pending webhook for a lease and sends it; it is ``delivered`` on the receiver's 2xx,
or pending again for a later try, or ``failed`` after its last. Nothing is lost when
a process stops between the job's end and the delivery: the row waits for another.
"""

from __future__ import annotations

import base64
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from serve_app.accounts.database import Database, Transaction

WebhookState = Literal["waiting", "pending", "delivered", "failed"]
# A signing secret as Standard Webhooks writes one: 32 random bytes, base64.
SECRET_PREFIX = "whsec_"


@dataclass(frozen=True)
class WebhookRow:
    job_id: str
    url: str
    state: WebhookState
    attempts: int
    last_status: int | None  # the receiver's last HTTP status; None: no answer
    last_error: str | None


@dataclass(frozen=True)
class DueWebhook:
    """A webhook claimed by this process to send: its job has ended."""

    job_id: str
    project_id: str
    url: str
    attempts: int  # before this one
    event_id: str  # the same on every try: receivers drop what they have seen
    secret: str  # the project's, to sign with


def add_webhook(tx: Transaction, job_id: str, project_id: str, url: str, now: float) -> None:
    """A job's webhook, waiting for the job to end (in the job's transaction)."""
    tx.execute(
        "INSERT INTO job_webhooks (job_id, project_id, url, state, event_id, next_at,"
        " created_at) VALUES (?, ?, ?, 'waiting', ?, ?, ?)",
        (job_id, project_id, url, "evt_" + secrets.token_hex(12), now, now),
    )


def read_webhooks(tx: Transaction, job_ids: Sequence[str]) -> dict[str, WebhookRow]:
    """The webhooks of those of ``job_ids`` that have one, by job id."""
    if not job_ids:
        return {}
    rows = tx.all(
        "SELECT job_id, url, state, attempts, last_status, last_error FROM job_webhooks"
        f" WHERE job_id IN ({', '.join('?' * len(job_ids))})",
        tuple(job_ids),
    )
    return {
        str(r[0]): WebhookRow(
            str(r[0]), str(r[1]), r[2], int(r[3]), None if r[4] is None else int(r[4]), r[5]
        )
        for r in rows
    }


def webhook_due(tx: Transaction, job_id: str, now: float) -> None:
    """The job ``job_id`` has ended (in the transaction that ended it): its webhook,
    if it has one, is due now."""
    tx.execute(
        "UPDATE job_webhooks SET state = 'pending', next_at = ? WHERE job_id = ?"
        " AND state = 'waiting'",
        (now, job_id),
    )


class WebhookTables:
    """The webhook side of :class:`~serve_app.accounts.store.AccountStore`."""

    _db: Database
    owner: str

    def webhook_secret(self, project_id: str) -> str:
        """The project's signing secret, made on first asking."""
        made = SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()
        with self._db.transaction() as tx:
            tx.execute(
                "INSERT INTO webhook_secrets (project_id, secret, created_at) VALUES (?, ?, ?)"
                " ON CONFLICT (project_id) DO NOTHING",
                (project_id, made, time.time()),
            )
            row = tx.one("SELECT secret FROM webhook_secrets WHERE project_id = ?", (project_id,))
        assert row is not None
        return str(row[0])

    def job_webhook(self, job_id: str) -> WebhookRow | None:
        with self._db.transaction() as tx:
            return read_webhooks(tx, [job_id]).get(job_id)

    def claim_webhook(self, lease_s: float) -> DueWebhook | None:
        """A due webhook, claimed by this process for ``lease_s`` seconds (a process
        stopped mid-send frees it when the lease runs out); None if none. Projects take
        turns: of the one with the fewest tries on their way (claimed, the lease not
        run out), the webhook due the longest."""
        now = time.time()
        with self._db.transaction() as tx:
            row = tx.one(  # "c": the table whose rows tx.claim skips when others hold them
                "SELECT c.job_id, c.project_id, c.url, c.attempts, c.event_id"
                " FROM job_webhooks c WHERE c.state = 'pending' AND c.next_at <= ?"
                " ORDER BY (SELECT COUNT(*) FROM job_webhooks o WHERE o.project_id ="
                " c.project_id AND o.state = 'pending' AND o.owner IS NOT NULL"
                " AND o.next_at > ?), c.next_at LIMIT 1" + tx.claim,
                (now, now),
            )
            if row is None:
                return None
            tx.execute(
                "UPDATE job_webhooks SET next_at = ?, owner = ? WHERE job_id = ?",
                (now + lease_s, self.owner, row[0]),
            )
        secret = self.webhook_secret(str(row[1]))
        return DueWebhook(str(row[0]), str(row[1]), str(row[2]), int(row[3]), str(row[4]), secret)

    def webhook_sent(
        self,
        job_id: str,
        status: int | None,
        error: str | None,
        retry_at: float | None,
    ) -> None:
        """The outcome of one try of a claimed webhook: delivered (a 2xx ``status``),
        pending again until ``retry_at``, or failed for good (``retry_at`` None)."""
        delivered = status is not None and 200 <= status < 300
        state = "delivered" if delivered else "pending" if retry_at is not None else "failed"
        with self._db.transaction() as tx:
            tx.execute(
                "UPDATE job_webhooks SET state = ?, attempts = attempts + 1, last_status = ?,"
                " last_error = ?, next_at = ?, owner = NULL, sent_at = ?"
                " WHERE job_id = ? AND state = 'pending' AND owner = ?",
                (
                    state,
                    status,
                    None if delivered else error,
                    retry_at or time.time(),
                    time.time(),
                    job_id,
                    self.owner,
                ),
            )
