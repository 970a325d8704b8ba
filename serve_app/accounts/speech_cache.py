"""A project's speech cache settings: how much of each replica's cache its audio may
take, and how long it is heard (NULL: as the service is set)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from serve_app.accounts.database import Database


@dataclass(frozen=True)
class SpeechCacheSetting:
    """``budget_mb``: the most of each replica's cache the project's audio takes (0:
    none: its speech is never cached); ``ttl_s``: how long its audio is heard. None:
    the service's setting."""

    budget_mb: int | None = None
    ttl_s: float | None = None


# A project with no settings of its own: the service's.
AS_THE_SERVICE = SpeechCacheSetting()


class SpeechCacheTables:
    """The speech cache side of :class:`~serve_app.accounts.store.AccountStore`."""

    _db: Database

    def speech_cache_setting(self, project_id: str) -> SpeechCacheSetting:
        with self._db.transaction() as tx:
            row = tx.one(
                "SELECT budget_mb, ttl_s FROM speech_cache_settings WHERE project_id = ?",
                (project_id,),
            )
        if row is None:
            return AS_THE_SERVICE
        budget, ttl = row
        return SpeechCacheSetting(
            None if budget is None else int(budget), None if ttl is None else float(ttl)
        )

    def set_speech_cache_setting(self, project_id: str, setting: SpeechCacheSetting) -> None:
        with self._db.transaction() as tx:
            tx.execute(
                "INSERT INTO speech_cache_settings (project_id, budget_mb, ttl_s, updated_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (project_id) DO UPDATE SET"
                " budget_mb = excluded.budget_mb, ttl_s = excluded.ttl_s,"
                " updated_at = excluded.updated_at",
                (project_id, setting.budget_mb, setting.ttl_s, time.time()),
            )
