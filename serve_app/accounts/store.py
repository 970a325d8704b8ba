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
import secrets
import time
import uuid
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from serve_app.accounts.committer import GroupCommitter
from serve_app.accounts.database import Database, Transaction, open_database
from serve_app.accounts.dictionaries import DictionaryTables
from serve_app.accounts.keys import (
    DUMMY_DIGEST,
    SCOPES,
    check_scopes,
    digest,
    new_key,
    secret_matches,
    split_key,
)
from serve_app.accounts.ledger import Ledger
from serve_app.accounts.longform.claims import ChunkClaims
from serve_app.accounts.longform.jobs import LongFormTables
from serve_app.accounts.longform.webhooks import WebhookTables
from serve_app.accounts.records import (
    ApiKey,
    KeyRecord,
    Project,
    UnknownProject,
    Usage,
)
from serve_app.accounts.schema import SCHEMA_VERSION, schema_statements
from serve_app.accounts.speech_cache import SpeechCacheTables

P = ParamSpec("P")


T = TypeVar("T")


class AccountStore(
    Ledger, DictionaryTables, LongFormTables, ChunkClaims, WebhookTables, SpeechCacheTables
):
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

    # -- crash recovery --------------------------------------------------------------


def ensure_dev_project(store: AccountStore, token: str, starting_balance: int) -> str:
    """Make ``token`` a project key of project ``dev`` (created with ``starting_balance``)."""
    project_id = store.ensure_project("dev", starting_balance)
    store.add_key(token, project_id)
    return project_id
