"""The balance ledger: holds, progress, settlement, and the recovery of holds whose
process stopped. Every change of a balance is a ledger row written in the same
transaction as the change, so the sum of a project's ledger equals its balance."""

from __future__ import annotations

import math
import time

from serve_app.accounts.database import Database, Row, Transaction
from serve_app.accounts.records import (
    InsufficientFunds,
    KeyRevoked,
    RateExceeded,
    RateLimit,
    UnknownProject,
    Usage,
)


class Ledger:
    """The money side of :class:`~serve_app.accounts.store.AccountStore`."""

    _db: Database
    owner: str

    def top_up(self, project_id: str, amount: int, note: str = "top-up") -> None:
        if amount <= 0:
            raise ValueError("a top-up must be positive")
        with self._db.transaction() as tx:
            if (
                tx.one("SELECT id FROM projects WHERE id = ?" + tx.for_update, (project_id,))
                is None
            ):
                raise UnknownProject(project_id)
            self._credit(tx, project_id, amount, note)

    def _credit(self, tx: Transaction, project_id: str, amount: int, note: str) -> None:
        tx.execute(
            "INSERT INTO ledger (project_id, kind, amount, note, created_at)"
            " VALUES (?, 'credit', ?, ?, ?)",
            (project_id, amount, note, time.time()),
        )
        tx.execute("UPDATE projects SET balance = balance + ? WHERE id = ?", (amount, project_id))

    def hold(
        self, project_id: str, request_id: str, amount: int, rate: RateLimit | None = None
    ) -> None:
        """Reserve ``amount`` for ``request_id``, counting it against ``rate``; raises
        :class:`RateExceeded` or :class:`InsufficientFunds` (and then counts nothing)."""
        now = time.time()
        with self._db.transaction() as tx:
            if rate is not None:
                self._count_request(tx, rate, now)
            reserve(tx, project_id, amount)
            tx.execute(
                "INSERT INTO holds (request_id, project_id, amount, owner, state, created_at,"
                " updated_at) VALUES (?, ?, ?, ?, 'open', ?, ?)",
                (request_id, project_id, amount, self.owner, now, now),
            )

    def count_request(self, rate: RateLimit) -> None:
        """Count a request that holds nothing yet against ``rate`` (a long-form job, before
        its text is read); raises :class:`RateExceeded` past it."""
        with self._db.transaction() as tx:
            self._count_request(tx, rate, time.time())

    def extend_hold(self, request_id: str, extra: int, key_id: str | None = None) -> None:
        """Grow an open hold by ``extra`` (a stream whose text arrives as it goes);
        raises :class:`InsufficientFunds` if the available balance cannot cover it,
        :class:`KeyRevoked` if ``key_id`` (the key the stream was opened with) has
        been revoked since."""
        with self._db.transaction() as tx:
            if key_id is not None:
                key = tx.one("SELECT revoked_at FROM api_keys WHERE id = ?", (key_id,))
                if key is None or key[0] is not None:
                    raise KeyRevoked(key_id)
            hold = self._open_hold(tx, request_id)
            if hold is None:
                raise LookupError(f"no open hold {request_id}")
            reserve(tx, hold[0], extra)
            tx.execute(
                "UPDATE holds SET amount = amount + ?, updated_at = ? WHERE request_id = ?",
                (extra, time.time(), request_id),
            )

    def shrink_hold(self, request_id: str, less: int) -> None:
        """Take ``less`` off an open hold (text it was grown for that will not be said:
        a WebSocket context cleared), down to nothing at most; an open hold only."""
        with self._db.transaction() as tx:
            hold = self._open_hold(tx, request_id)
            if hold is None:
                return
            cut = max(0, min(less, int(hold[1])))
            tx.execute(
                "UPDATE holds SET amount = amount - ?, updated_at = ? WHERE request_id = ?",
                (cut, time.time(), request_id),
            )
            tx.execute("UPDATE projects SET held = held - ? WHERE id = ?", (cut, hold[0]))

    @staticmethod
    def _count_request(tx: Transaction, rate: RateLimit, now: float) -> None:
        """One more request of ``rate.key_id`` this minute, or :class:`RateExceeded`
        (past the count, or with the key's unproductive synthesis over its budget)."""
        budget = rate.unproductive_ms_per_minute
        if budget:
            row = tx.one(
                "SELECT debt_ms, updated_at FROM unproductive_time WHERE key_id = ?",
                (rate.key_id,),
            )
            debt = _drained(row, budget, now)
            if debt > budget:  # a minute's worth may be spent at once, no more
                wait_s = (debt - budget) / budget * 60
                raise RateExceeded(max(1, math.ceil(wait_s)), unproductive=True)
        if not rate.per_minute:
            return
        row = tx.one(
            "INSERT INTO request_counts (key_id, minute, count) VALUES (?, ?, 1)"
            " ON CONFLICT (key_id, minute) DO UPDATE SET count = request_counts.count + 1"
            " RETURNING count",
            (rate.key_id, int(now // 60)),
        )
        if row is not None and int(row[0]) > rate.per_minute:
            raise RateExceeded(retry_after_s=max(1, math.ceil(60 - now % 60)))

    @staticmethod
    def _open_hold(tx: Transaction, request_id: str) -> tuple[str, int] | None:
        """``(project_id, amount)`` of an open hold, locked for this transaction."""
        row = tx.one(
            "SELECT project_id, amount FROM holds WHERE request_id = ? AND state = 'open'"
            + tx.for_update,
            (request_id,),
        )
        return (str(row[0]), int(row[1])) if row else None

    def record_progress(self, request_id: str, characters: int, audio_ms: int, cost: int) -> None:
        """Checkpoint what an open hold's request has delivered so far."""
        with self._db.transaction() as tx:
            tx.execute(
                "UPDATE holds SET characters = ?, audio_ms = ?, cost = ?, updated_at = ?"
                " WHERE request_id = ? AND state = 'open'",
                (characters, audio_ms, cost, time.time(), request_id),
            )

    def settle(self, request_id: str, characters: int, audio_ms: int, cost: int) -> bool:
        """Charge an open hold for what was delivered and release the rest.

        Exactly once: returns False (and changes nothing) if the hold is not open.
        The charge never exceeds the hold.
        """
        with self._db.transaction() as tx:
            return self._settle(tx, request_id, characters, audio_ms, cost)

    def _settle(
        self, tx: Transaction, request_id: str, characters: int, audio_ms: int, cost: int
    ) -> bool:
        hold = self._open_hold(tx, request_id)
        if hold is None:
            return False
        project_id, amount = hold
        project = tx.one("SELECT id FROM projects WHERE id = ?" + tx.for_update, (project_id,))
        assert project is not None
        charge = max(0, min(cost, amount))
        now = time.time()
        tx.execute(
            "UPDATE holds SET state = 'settled', characters = ?, audio_ms = ?, cost = ?,"
            " updated_at = ? WHERE request_id = ?",
            (characters, audio_ms, charge, now, request_id),
        )
        write_charge(tx, project_id, request_id, charge, amount, characters, audio_ms, now)
        return True

    def release(self, request_id: str) -> bool:
        """Drop an open hold without charging (the request delivered nothing)."""
        with self._db.transaction() as tx:
            hold = self._open_hold(tx, request_id)
            if hold is None:
                return False
            tx.execute(
                "UPDATE holds SET state = 'released', updated_at = ? WHERE request_id = ?",
                (time.time(), request_id),
            )
            tx.execute("UPDATE projects SET held = held - ? WHERE id = ?", (hold[1], hold[0]))
            return True

    def spend_unproductive(self, key_id: str, ms: float, budget_ms_per_minute: int) -> None:
        """Add ``ms`` of synthesis that made no audio to ``key_id``'s debt, which drains
        at ``budget_ms_per_minute`` (:meth:`hold` refuses the key while it is over one
        minute's worth)."""
        if ms <= 0 or budget_ms_per_minute <= 0:
            return
        now = time.time()
        with self._db.transaction() as tx:
            tx.execute(  # the row exists, so that another replica's spending waits for this
                "INSERT INTO unproductive_time (key_id, debt_ms, updated_at) VALUES (?, 0, ?)"
                " ON CONFLICT (key_id) DO NOTHING",
                (key_id, now),
            )
            row = tx.one(
                "SELECT debt_ms, updated_at FROM unproductive_time WHERE key_id = ?"
                + tx.for_update,
                (key_id,),
            )
            debt = _drained(row, budget_ms_per_minute, now) + ms
            tx.execute(
                "UPDATE unproductive_time SET debt_ms = ?, updated_at = ? WHERE key_id = ?",
                (debt, now, key_id),
            )

    def usage(self, project_id: str) -> Usage:
        with self._db.transaction() as tx:
            row = tx.one(
                "SELECT balance, held, requests, characters, audio_ms, spent FROM projects"
                " WHERE id = ?",
                (project_id,),
            )
        if row is None:
            raise UnknownProject(project_id)
        return Usage(*(int(v) for v in row))

    def ledger_sum(self, project_id: str) -> int:
        """Credits minus charges: equals the project's balance (the ledger's invariant)."""
        with self._db.transaction() as tx:
            row = tx.one(
                "SELECT COALESCE(SUM(CASE WHEN kind = 'credit' THEN amount ELSE -amount END), 0)"
                " FROM ledger WHERE project_id = ?",
                (project_id,),
            )
        return int(row[0]) if row else 0

    def heartbeat(self) -> None:
        """Tell other processes this one is alive (its holds are not to be recovered)."""
        with self._db.transaction() as tx:
            now = time.time()
            if not tx.execute("UPDATE owners SET heartbeat_at = ? WHERE id = ?", (now, self.owner)):
                tx.execute("INSERT INTO owners (id, heartbeat_at) VALUES (?, ?)", (self.owner, now))
            # Counts of past minutes are never read again.
            tx.execute("DELETE FROM request_counts WHERE minute < ?", (int(now // 60) - 1,))
            # and unproductive debts untouched for a day are forgiven
            tx.execute("DELETE FROM unproductive_time WHERE updated_at < ?", (now - 86_400,))

    def settle_orphans(self, live: frozenset[str], older_than_s: float) -> int:
        """Settle this process's open holds that no request of it owns any more
        (``live``: the hold ids its requests still own) and that are older than
        ``older_than_s`` (a hold being written as ``live`` was read is new), each
        for the progress it last recorded. Returns how many were settled."""
        cutoff = time.time() - older_than_s
        with self._db.transaction() as tx:
            rows = tx.all(
                "SELECT request_id, characters, audio_ms, cost FROM holds"
                " WHERE state = 'open' AND owner = ? AND created_at < ?",
                (self.owner, cutoff),
            )
        return self._settle_each([row for row in rows if row[0] not in live])

    def _settle_each(self, holds: list[Row]) -> int:
        settled = 0
        for request_id, characters, audio_ms, cost in holds:
            with self._db.transaction() as tx:
                settled += self._settle(tx, request_id, int(characters), int(audio_ms), int(cost))
        return settled

    def recover(self, lease_s: float) -> int:
        """Settle open holds whose owner has not heartbeaten for ``lease_s`` seconds,
        each for the progress it last recorded. Returns how many were settled."""
        cutoff = time.time() - lease_s
        with self._db.transaction() as tx:
            stale = tx.all(
                "SELECT h.request_id, h.characters, h.audio_ms, h.cost FROM holds h"
                " LEFT JOIN owners o ON o.id = h.owner"
                " WHERE h.state = 'open' AND h.owner <> ?"
                " AND (o.heartbeat_at IS NULL OR o.heartbeat_at < ?)",
                (self.owner, cutoff),
            )
        settled = self._settle_each(stale)
        with self._db.transaction() as tx:
            tx.execute(
                "DELETE FROM owners WHERE heartbeat_at < ? AND id NOT IN"
                " (SELECT owner FROM holds WHERE state = 'open')",
                (cutoff,),
            )
        return settled


def reserve(tx: Transaction, project_id: str, amount: int) -> None:
    """Add ``amount`` to the project's held total if its available balance allows (the
    project's row locked for the rest of ``tx``); :class:`InsufficientFunds` if not."""
    row = tx.one("SELECT balance, held FROM projects WHERE id = ?" + tx.for_update, (project_id,))
    if row is None:
        raise UnknownProject(project_id)
    available = int(row[0]) - int(row[1])
    if available < amount:
        raise InsufficientFunds(available, amount)
    tx.execute("UPDATE projects SET held = held + ? WHERE id = ?", (amount, project_id))


def write_charge(
    tx: Transaction,
    project_id: str,
    request_id: str,
    charge: int,
    released: int,
    characters: int,
    audio_ms: int,
    now: float,
    requests: int = 1,
) -> None:
    """Charge ``charge`` for ``request_id`` (a ledger row: once per request id, the
    ledger's unique index) and release ``released`` of the project's held total."""
    tx.execute(
        "INSERT INTO ledger (project_id, kind, amount, characters, audio_ms, request_id,"
        " created_at) VALUES (?, 'charge', ?, ?, ?, ?, ?)",
        (project_id, charge, characters, audio_ms, request_id, now),
    )
    tx.execute(
        "UPDATE projects SET balance = balance - ?, held = held - ?, requests = requests + ?,"
        " characters = characters + ?, audio_ms = audio_ms + ?, spent = spent + ?"
        " WHERE id = ?",
        (charge, released, requests, characters, audio_ms, charge, project_id),
    )


def _drained(row: Row | None, budget_ms_per_minute: int, now: float) -> float:
    """A key's unproductive debt (``row``: its debt and when it was written) as it
    stands ``now``, drained at the budget's rate."""
    if row is None:
        return 0.0
    debt, updated_at = float(row[0]), float(row[1])
    return max(0.0, debt - budget_ms_per_minute * max(0.0, now - updated_at) / 60)
