"""Projects, keys and the balance ledger, on either database backend.

Money is integer deci-micro-USD (10,000,000 = USD 1.00). Every change of a
balance is a ledger row written in the same transaction as the change, so the
sum of a project's ledger equals its balance. A request first places a *hold*
for its worst-case cost (refused if the available balance, balance minus open
holds, cannot cover it), records its delivered progress now and then, and is
*settled* exactly once for what was delivered. Holds whose owning process stops
heartbeating are settled by any other process at their last recorded progress.
"""

from __future__ import annotations

import functools
import math
import secrets
import time
import uuid
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from serve_app.accounts.committer import GroupCommitter
from serve_app.accounts.database import Database, Transaction, open_database
from serve_app.accounts.keys import (
    DUMMY_DIGEST,
    SCOPES,
    check_scopes,
    digest,
    new_key,
    secret_matches,
    split_key,
)
from serve_app.accounts.records import (
    ApiKey,
    InsufficientFunds,
    KeyRecord,
    Project,
    RateExceeded,
    RateLimit,
    UnknownProject,
    Usage,
)
from serve_app.accounts.schema import SCHEMA_VERSION, schema_statements

P = ParamSpec("P")


T = TypeVar("T")


class AccountStore:
    """The accounts database. Safe to share between threads; many processes may
    open the same database (each gets its own ``owner`` id for its holds)."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self.owner = f"{uuid.uuid4().hex[:12]}"
        self._committer = GroupCommitter(db)
        with db.transaction() as tx:
            for statement in schema_statements(db.serial_key):
                tx.execute(statement)
            row = tx.one("SELECT value FROM meta WHERE key = 'schema_version'")
            if row is None:
                tx.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema_version', ?)", (SCHEMA_VERSION,)
                )
            elif row[0] != SCHEMA_VERSION:
                raise RuntimeError(
                    f"database schema {row[0]} is not {SCHEMA_VERSION}; migrate it first"
                )
        self.heartbeat()

    @classmethod
    def open(cls, url: str) -> AccountStore:
        return cls(open_database(url))

    async def call(self, method: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run a blocking method of this store from async code, on the store's own
        threads (as many as the database runs transactions at once), committed
        together with the other calls waiting at that moment (``GroupCommitter``):
        ledger work waits for the database, not behind other blocking work of the
        process, and concurrent requests share the database's disk flushes."""
        return await self._committer.run(functools.partial(method, *args, **kwargs))

    def close(self) -> None:
        self._committer.close()
        self._db.close()

    # -- projects and keys -------------------------------------------------------

    def create_project(self, name: str, starting_balance: int = 0) -> str:
        """A new project; raises ``ValueError`` if the name is taken."""
        with self._db.transaction() as tx:
            project_id = self._insert_project(tx, name, starting_balance)
        if project_id is None:
            raise ValueError(f"a project named {name!r} exists")
        return project_id

    def ensure_project(self, name: str, starting_balance: int = 0) -> str:
        """The id of project ``name``, created with ``starting_balance`` if it is new."""
        with self._db.transaction() as tx:
            project_id = self._insert_project(tx, name, starting_balance)
            if project_id is None:
                row = tx.one("SELECT id FROM projects WHERE name = ?", (name,))
                assert row is not None
                project_id = str(row[0])
            return project_id

    def _insert_project(self, tx: Transaction, name: str, starting_balance: int) -> str | None:
        """Insert a project unless the name is taken (then None): safe against a race."""
        project_id = "proj_" + secrets.token_hex(8)
        inserted = tx.execute(
            "INSERT INTO projects (id, name, created_at) VALUES (?, ?, ?)"
            " ON CONFLICT (name) DO NOTHING",
            (project_id, name, time.time()),
        )
        if not inserted:
            return None
        if starting_balance:
            self._credit(tx, project_id, starting_balance, "starting balance")
        return project_id

    def find_project(self, name_or_id: str) -> str:
        with self._db.transaction() as tx:
            row = tx.one("SELECT id FROM projects WHERE id = ? OR name = ?", (name_or_id,) * 2)
        if row is None:
            raise UnknownProject(name_or_id)
        return str(row[0])

    def projects(self) -> list[Project]:
        with self._db.transaction() as tx:
            rows = tx.all(
                "SELECT id, name, balance, held, requests, characters, audio_ms, spent"
                " FROM projects ORDER BY created_at"
            )
        return [Project(r[0], r[1], Usage(*(int(v) for v in r[2:]))) for r in rows]

    def create_key(self, project_id: str, scopes: tuple[str, ...] = SCOPES) -> str:
        """A new key for ``project_id``; the returned token is the only copy of its secret."""
        token = new_key()
        self.add_key(token, project_id, scopes)
        return token

    def add_key(self, token: str, project_id: str, scopes: tuple[str, ...] = SCOPES) -> str:
        """Register ``token`` for ``project_id`` (idempotent); returns its key id."""
        scopes = check_scopes(scopes)
        key_id, secret = split_key(token)
        with self._db.transaction() as tx:
            if tx.one("SELECT id FROM projects WHERE id = ?", (project_id,)) is None:
                raise UnknownProject(project_id)
            tx.execute(
                "INSERT INTO api_keys (id, project_id, secret_sha256, scopes, created_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                (key_id, project_id, digest(secret), ",".join(scopes), time.time()),
            )
            row = tx.one("SELECT project_id FROM api_keys WHERE id = ?", (key_id,))
        if row is None or row[0] != project_id:
            raise ValueError("that key belongs to another project")
        return key_id

    def keys(self, project_id: str) -> list[KeyRecord]:
        with self._db.transaction() as tx:
            rows = tx.all(
                "SELECT id, project_id, scopes, created_at, revoked_at FROM api_keys"
                " WHERE project_id = ? ORDER BY created_at",
                (project_id,),
            )
        return [KeyRecord(r[0], r[1], tuple(r[2].split(",")), r[3], r[4]) for r in rows]

    def revoke_key(self, key_id: str) -> bool:
        """Revoke a key by id; False if there is no such live key."""
        with self._db.transaction() as tx:
            changed = tx.execute(
                "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                (time.time(), key_id),
            )
        return changed == 1

    # -- a project's own voices --------------------------------------------------

    def save_voice(self, project_id: str, voice_id: str, definition: str, limit: int) -> bool:
        """Store (or replace) ``voice_id`` for ``project_id``; False if the project
        already has ``limit`` voices and this one is new."""
        with self._db.transaction() as tx:
            replaced = tx.execute(
                "UPDATE custom_voices SET definition = ?, created_at = ?"
                " WHERE project_id = ? AND voice_id = ?",
                (definition, time.time(), project_id, voice_id),
            )
            if replaced:
                return True
            row = tx.one("SELECT COUNT(*) FROM custom_voices WHERE project_id = ?", (project_id,))
            if row is not None and int(row[0]) >= limit:
                return False
            tx.execute(
                "INSERT INTO custom_voices (project_id, voice_id, definition, created_at)"
                " VALUES (?, ?, ?, ?)",
                (project_id, voice_id, definition, time.time()),
            )
        return True

    def project_voices(self, project_id: str) -> list[tuple[str, str]]:
        """``(voice_id, definition)`` of the project's own voices, oldest first."""
        with self._db.transaction() as tx:
            rows = tx.all(
                "SELECT voice_id, definition FROM custom_voices WHERE project_id = ?"
                " ORDER BY created_at, voice_id",
                (project_id,),
            )
        return [(str(r[0]), str(r[1])) for r in rows]

    def project_voice(self, project_id: str, voice_id: str) -> str | None:
        with self._db.transaction() as tx:
            row = tx.one(
                "SELECT definition FROM custom_voices WHERE project_id = ? AND voice_id = ?",
                (project_id, voice_id),
            )
        return str(row[0]) if row is not None else None

    def delete_voice(self, project_id: str, voice_id: str) -> bool:
        with self._db.transaction() as tx:
            deleted = tx.execute(
                "DELETE FROM custom_voices WHERE project_id = ? AND voice_id = ?",
                (project_id, voice_id),
            )
        return deleted == 1

    def authenticate(self, token: str) -> ApiKey | None:
        """The live key ``token`` stands for, or None.

        Unknown ids, wrong secrets and revoked keys take the same path: one query
        and one constant-time digest comparison.
        """
        key_id, secret = split_key(token)
        with self._db.transaction() as tx:
            row = tx.one(
                "SELECT project_id, secret_sha256, scopes, revoked_at FROM api_keys WHERE id = ?",
                (key_id,),
            )
        matches = secret_matches(row[1] if row else DUMMY_DIGEST, secret)
        if row is None or not matches or row[3] is not None:
            return None
        return ApiKey(key_id, row[0], tuple(row[2].split(",")))

    # -- money ---------------------------------------------------------------------

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
            self._reserve(tx, project_id, amount)
            tx.execute(
                "INSERT INTO holds (request_id, project_id, amount, owner, state, created_at,"
                " updated_at) VALUES (?, ?, ?, ?, 'open', ?, ?)",
                (request_id, project_id, amount, self.owner, now, now),
            )

    def extend_hold(self, request_id: str, extra: int) -> None:
        """Grow an open hold by ``extra`` (a stream whose text arrives as it goes);
        raises :class:`InsufficientFunds` if the available balance cannot cover it."""
        with self._db.transaction() as tx:
            hold = self._open_hold(tx, request_id)
            if hold is None:
                raise LookupError(f"no open hold {request_id}")
            self._reserve(tx, hold[0], extra)
            tx.execute(
                "UPDATE holds SET amount = amount + ?, updated_at = ? WHERE request_id = ?",
                (extra, time.time(), request_id),
            )

    @staticmethod
    def _count_request(tx: Transaction, rate: RateLimit, now: float) -> None:
        """One more request of ``rate.key_id`` this minute, or :class:`RateExceeded`."""
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

    def _reserve(self, tx: Transaction, project_id: str, amount: int) -> None:
        """Add ``amount`` to the project's held total if its available balance allows."""
        row = tx.one(
            "SELECT balance, held FROM projects WHERE id = ?" + tx.for_update, (project_id,)
        )
        if row is None:
            raise UnknownProject(project_id)
        available = int(row[0]) - int(row[1])
        if available < amount:
            raise InsufficientFunds(available, amount)
        tx.execute("UPDATE projects SET held = held + ? WHERE id = ?", (amount, project_id))

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
        tx.execute(
            "INSERT INTO ledger (project_id, kind, amount, characters, audio_ms, request_id,"
            " created_at) VALUES (?, 'charge', ?, ?, ?, ?, ?)",
            (project_id, charge, characters, audio_ms, request_id, now),
        )
        tx.execute(
            "UPDATE projects SET balance = balance - ?, held = held - ?, requests = requests + 1,"
            " characters = characters + ?, audio_ms = audio_ms + ?, spent = spent + ?"
            " WHERE id = ?",
            (charge, amount, characters, audio_ms, charge, project_id),
        )
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

    # -- crash recovery --------------------------------------------------------------

    def heartbeat(self) -> None:
        """Tell other processes this one is alive (its holds are not to be recovered)."""
        with self._db.transaction() as tx:
            now = time.time()
            if not tx.execute("UPDATE owners SET heartbeat_at = ? WHERE id = ?", (now, self.owner)):
                tx.execute("INSERT INTO owners (id, heartbeat_at) VALUES (?, ?)", (self.owner, now))
            # Counts of past minutes are never read again.
            tx.execute("DELETE FROM request_counts WHERE minute < ?", (int(now // 60) - 1,))

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
        settled = 0
        for request_id, characters, audio_ms, cost in stale:
            with self._db.transaction() as tx:
                settled += self._settle(tx, request_id, int(characters), int(audio_ms), int(cost))
        with self._db.transaction() as tx:
            tx.execute(
                "DELETE FROM owners WHERE heartbeat_at < ? AND id NOT IN"
                " (SELECT owner FROM holds WHERE state = 'open')",
                (cutoff,),
            )
        return settled


def ensure_dev_project(store: AccountStore, token: str, starting_balance: int) -> str:
    """Make ``token`` a project key of project ``dev`` (created with ``starting_balance``)."""
    project_id = store.ensure_project("dev", starting_balance)
    store.add_key(token, project_id)
    return project_id
