"""Projects, API keys and the ledger, on SQLite.

Keys look like ``sk-proj-<id>-<secret>``; only a SHA-256 of the secret is stored,
looked up by id and compared in constant time. Money is integer deci-micro-USD
(10,000,000 = USD 1.00). Balance and usage are derived from the ledger, so they
cannot drift from it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

SCOPES = ("speech", "usage")
_KEY_FORMAT = re.compile(r"^sk-proj-([A-Za-z0-9]{8,64})-([A-Za-z0-9_]{16,256})$")
_DUMMY_HASH = hashlib.sha256(b"no such key").hexdigest()

_SCHEMA = """
CREATE TABLE IF NOT EXISTS projects (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS api_keys (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(id),
    secret_sha256 TEXT NOT NULL,
    scopes TEXT NOT NULL,
    created_at REAL NOT NULL,
    revoked_at REAL
);
CREATE TABLE IF NOT EXISTS ledger (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id TEXT NOT NULL REFERENCES projects(id),
    kind TEXT NOT NULL CHECK (kind IN ('credit', 'charge')),
    amount INTEGER NOT NULL CHECK (amount >= 0),
    characters INTEGER NOT NULL DEFAULT 0,
    audio_ms INTEGER NOT NULL DEFAULT 0,
    request_id TEXT,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS ledger_project ON ledger(project_id);
"""


@dataclass(frozen=True)
class ApiKey:
    """An authenticated key: which project it spends for and what it may do."""

    key_id: str
    project_id: str
    scopes: tuple[str, ...]


@dataclass(frozen=True)
class Usage:
    balance: int
    requests: int
    characters: int
    audio_ms: int
    spent: int


def split_key(token: str) -> tuple[str, str]:
    """``(key_id, secret)`` of a token; a token not in the ``sk-proj-`` form (a
    development key chosen by hand) is looked up by a digest of the whole token."""
    match = _KEY_FORMAT.match(token)
    if match:
        return match.group(1), match.group(2)
    return "h" + hashlib.sha256(token.encode()).hexdigest()[:31], token


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class AccountStore:
    """The accounts database (SQLite in WAL mode; each write is one transaction)."""

    def __init__(self, path: str | Path) -> None:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.executescript(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    # -- projects and keys -------------------------------------------------------

    def ensure_project(self, name: str, starting_balance: int = 0) -> str:
        """The id of project ``name``, created with ``starting_balance`` if it is new."""
        with self._lock, self._transaction():
            row = self._db.execute("SELECT id FROM projects WHERE name = ?", (name,)).fetchone()
            if row is not None:
                return str(row[0])
            project_id = "proj_" + secrets.token_hex(8)
            self._db.execute(
                "INSERT INTO projects (id, name, created_at) VALUES (?, ?, ?)",
                (project_id, name, time.time()),
            )
            if starting_balance:
                self._credit(project_id, starting_balance)
            return project_id

    def create_key(self, project_id: str, scopes: tuple[str, ...] = SCOPES) -> str:
        """A new key for ``project_id``; the returned token is the only copy of the secret."""
        key_id, secret = secrets.token_hex(8), secrets.token_urlsafe(32).replace("-", "_")
        self.add_key(f"sk-proj-{key_id}-{secret}", project_id, scopes)
        return f"sk-proj-{key_id}-{secret}"

    def add_key(self, token: str, project_id: str, scopes: tuple[str, ...] = SCOPES) -> None:
        """Register ``token`` (idempotent for the same token and project)."""
        unknown = set(scopes) - set(SCOPES)
        if unknown:
            raise ValueError(f"unknown scopes {sorted(unknown)}")
        key_id, secret = split_key(token)
        with self._lock, self._transaction():
            row = self._db.execute(
                "SELECT project_id FROM api_keys WHERE id = ?", (key_id,)
            ).fetchone()
            if row is not None:
                if row[0] != project_id:
                    raise ValueError("that key belongs to another project")
                return
            self._db.execute(
                "INSERT INTO api_keys (id, project_id, secret_sha256, scopes, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (key_id, project_id, _digest(secret), ",".join(scopes), time.time()),
            )

    def authenticate(self, token: str) -> ApiKey | None:
        """The key ``token`` stands for, or None. Unknown ids and wrong secrets take
        the same path: both compare a digest in constant time."""
        key_id, secret = split_key(token)
        with self._lock:
            row = self._db.execute(
                "SELECT project_id, secret_sha256, scopes, revoked_at FROM api_keys WHERE id = ?",
                (key_id,),
            ).fetchone()
        stored = row[1] if row else _DUMMY_HASH
        matches = hmac.compare_digest(stored, _digest(secret))
        if row is None or not matches or row[3] is not None:
            return None
        return ApiKey(key_id, row[0], tuple(row[2].split(",")))

    # -- money ---------------------------------------------------------------------

    def top_up(self, project_id: str, amount: int) -> None:
        with self._lock, self._transaction():
            self._credit(project_id, amount)

    def charge(
        self, project_id: str, amount: int, characters: int, audio_ms: int, request_id: str
    ) -> None:
        """Record one request's delivered usage and its cost."""
        with self._lock, self._transaction():
            self._db.execute(
                "INSERT INTO ledger (project_id, kind, amount, characters, audio_ms, request_id,"
                " created_at) VALUES (?, 'charge', ?, ?, ?, ?, ?)",
                (project_id, amount, characters, audio_ms, request_id, time.time()),
            )

    def usage(self, project_id: str) -> Usage:
        with self._lock:
            row = self._db.execute(
                "SELECT"
                " COALESCE(SUM(CASE WHEN kind = 'credit' THEN amount ELSE -amount END), 0),"
                " COUNT(CASE WHEN kind = 'charge' THEN 1 END),"
                " COALESCE(SUM(characters), 0), COALESCE(SUM(audio_ms), 0),"
                " COALESCE(SUM(CASE WHEN kind = 'charge' THEN amount ELSE 0 END), 0)"
                " FROM ledger WHERE project_id = ?",
                (project_id,),
            ).fetchone()
        return Usage(*(int(v) for v in row))

    def _credit(self, project_id: str, amount: int) -> None:
        self._db.execute(
            "INSERT INTO ledger (project_id, kind, amount, created_at) VALUES (?, 'credit', ?, ?)",
            (project_id, amount, time.time()),
        )

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self._db.execute("COMMIT" if exc_type is None else "ROLLBACK")


def ensure_dev_project(store: AccountStore, token: str, starting_balance: int) -> str:
    """Make ``token`` a project key of project ``dev`` (created with ``starting_balance``)."""
    project_id = store.ensure_project("dev", starting_balance)
    store.add_key(token, project_id)
    return project_id


def new_dev_key() -> str:
    return f"sk-proj-dev{secrets.token_hex(4)}-{secrets.token_urlsafe(24).replace('-', '_')}"
