"""A project's pronunciation dictionaries, versioned, in the accounts database.

A dictionary has a name, an optional description, whether requests of its project
use it without naming it, and versions: every change of its rules writes a new
version (number 1, 2, ...) and moves the dictionary's latest to it; a version,
once written, is never changed, so a request that names one hears the same thing
forever. Rules are stored as the JSON the API takes (ElevenLabs' rule objects).
Everything is looked up by project: another project's dictionary is not found.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from serve_app.accounts.database import Database, Row, Transaction

MAX_DICTIONARIES_PER_PROJECT = 100


class DictionaryLimit(Exception):
    """The project has its limit of dictionaries."""


@dataclass(frozen=True)
class DictionaryRow:
    id: str
    name: str
    description: str | None
    by_default: bool
    created_at: float
    version_id: str  # the latest version
    version_number: int
    rules: str  # the latest version's rules, JSON


@dataclass(frozen=True)
class VersionRow:
    dictionary_id: str
    id: str
    number: int
    rules: str
    created_at: float


def _new_id(prefix: str) -> str:
    return prefix + secrets.token_hex(10)


_SELECT = (
    "SELECT d.id, d.name, d.description, d.by_default, d.created_at, v.id, v.number, v.rules"
    " FROM pronunciation_dictionaries d"
    " JOIN pronunciation_versions v ON v.id = d.latest_version"
)


def _row(row: Row) -> DictionaryRow:
    return DictionaryRow(
        id=str(row[0]),
        name=str(row[1]),
        description=None if row[2] is None else str(row[2]),
        by_default=bool(row[3]),
        created_at=float(row[4]),
        version_id=str(row[5]),
        version_number=int(row[6]),
        rules=str(row[7]),
    )


class DictionaryTables:
    """The dictionary side of :class:`~serve_app.accounts.store.AccountStore`."""

    _db: Database

    def _insert_version(self, tx: Transaction, dictionary_id: str, number: int, rules: str) -> str:
        version_id = _new_id("v")
        tx.execute(
            "INSERT INTO pronunciation_versions (id, dictionary_id, number, rules, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (version_id, dictionary_id, number, rules, time.time()),
        )
        tx.execute(
            "UPDATE pronunciation_dictionaries SET latest_version = ? WHERE id = ?",
            (version_id, dictionary_id),
        )
        return version_id

    def create_dictionary(
        self, project_id: str, name: str, description: str | None, rules: str
    ) -> DictionaryRow:
        """A new dictionary of ``project_id`` with ``rules`` as its version 1."""
        dictionary_id = _new_id("pd")
        with self._db.transaction() as tx:
            tx.one("SELECT id FROM projects WHERE id = ?" + tx.for_update, (project_id,))
            count = tx.one(
                "SELECT COUNT(*) FROM pronunciation_dictionaries WHERE project_id = ?",
                (project_id,),
            )
            if count is not None and int(count[0]) >= MAX_DICTIONARIES_PER_PROJECT:
                raise DictionaryLimit(project_id)
            tx.execute(
                "INSERT INTO pronunciation_dictionaries"
                " (id, project_id, name, description, by_default, latest_version, created_at)"
                " VALUES (?, ?, ?, ?, 0, '', ?)",
                (dictionary_id, project_id, name, description, time.time()),
            )
            self._insert_version(tx, dictionary_id, 1, rules)
            found = tx.one(_SELECT + " WHERE d.id = ?", (dictionary_id,))
        assert found is not None
        return _row(found)

    def change_dictionary(
        self, project_id: str, dictionary_id: str, change: Callable[[str], str]
    ) -> DictionaryRow | None:
        """A new version whose rules are ``change(latest rules)``; None if the project
        has no such dictionary. Concurrent changes are serialised by the row lock."""
        with self._db.transaction() as tx:
            found = tx.one(
                _SELECT + " WHERE d.id = ? AND d.project_id = ?" + tx.for_update,
                (dictionary_id, project_id),
            )
            if found is None:
                return None
            latest = _row(found)
            self._insert_version(tx, dictionary_id, latest.version_number + 1, change(latest.rules))
            found = tx.one(_SELECT + " WHERE d.id = ?", (dictionary_id,))
        assert found is not None
        return _row(found)

    def describe_dictionary(
        self,
        project_id: str,
        dictionary_id: str,
        name: str | None = None,
        description: str | None = None,
        by_default: bool | None = None,
    ) -> DictionaryRow | None:
        """Rename, describe or mark for use by default (no new version: the rules
        stay); None if the project has no such dictionary."""
        with self._db.transaction() as tx:
            for column, value in (("name", name), ("description", description),
                                  ("by_default", by_default)):  # fmt: skip
                if value is not None:
                    tx.execute(
                        f"UPDATE pronunciation_dictionaries SET {column} = ?"
                        " WHERE id = ? AND project_id = ?",
                        (int(value) if isinstance(value, bool) else value, dictionary_id,
                         project_id),
                    )  # fmt: skip
            found = tx.one(
                _SELECT + " WHERE d.id = ? AND d.project_id = ?", (dictionary_id, project_id)
            )
        return _row(found) if found is not None else None

    def project_dictionary(self, project_id: str, dictionary_id: str) -> DictionaryRow | None:
        with self._db.transaction() as tx:
            found = tx.one(
                _SELECT + " WHERE d.id = ? AND d.project_id = ?", (dictionary_id, project_id)
            )
        return _row(found) if found is not None else None

    def project_dictionaries(
        self, project_id: str, by_default: bool = False
    ) -> list[DictionaryRow]:
        """The project's dictionaries (``by_default``: only those its requests use
        unless they name their own), newest first."""
        where = " WHERE d.project_id = ?" + (" AND d.by_default = 1" if by_default else "")
        with self._db.transaction() as tx:
            rows = tx.all(_SELECT + where + " ORDER BY d.created_at DESC, d.id", (project_id,))
        return [_row(row) for row in rows]

    def dictionary_version(
        self, project_id: str, dictionary_id: str, version_id: str | None
    ) -> VersionRow | None:
        """A version of the project's dictionary (None: the latest); None if either
        is not the project's."""
        with self._db.transaction() as tx:
            found = tx.one(
                "SELECT v.dictionary_id, v.id, v.number, v.rules, v.created_at"
                " FROM pronunciation_versions v"
                " JOIN pronunciation_dictionaries d ON d.id = v.dictionary_id"
                " WHERE d.id = ? AND d.project_id = ? AND v.id = "
                + ("?" if version_id else "d.latest_version"),
                (dictionary_id, project_id, *([version_id] if version_id else [])),
            )
        if found is None:
            return None
        return VersionRow(str(found[0]), str(found[1]), int(found[2]), str(found[3]),
                          float(found[4]))  # fmt: skip
