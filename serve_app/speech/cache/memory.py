"""Entries in one process's memory: a byte budget, the least recently used out first,
each kept for at most a time to live; a project may have a smaller budget of its own
and a time to live of its own."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from serve_app.speech.cache.entries import Entry


@dataclass
class MemoryStats:
    entries: int = 0
    bytes: int = 0
    evictions: int = 0  # dropped to make room (not expired, not replaced)
    expired: int = 0


@dataclass(frozen=True)
class _Kept:
    entry: Entry
    expires_at: float
    project: str


class MemoryCache:
    """Entries by key within ``budget_bytes``, each for ``ttl_s`` unless put for
    another time."""

    def __init__(
        self,
        budget_bytes: int,
        ttl_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.budget_bytes = budget_bytes
        self.ttl_s = ttl_s
        self.stats = MemoryStats()
        self._clock = clock
        self._entries: OrderedDict[str, _Kept] = OrderedDict()
        self._project_bytes: dict[str, int] = {}

    def get(self, key: str) -> Entry | None:
        """The entry under ``key`` (now the most recently used), if it has not expired."""
        kept = self._entries.get(key)
        if kept is None:
            return None
        if self._clock() > kept.expires_at:
            self._drop(key)
            self.stats.expired += 1
            return None
        self._entries.move_to_end(key)
        return kept.entry

    def put(
        self,
        key: str,
        entry: Entry,
        project: str = "",
        project_budget_bytes: int | None = None,
        ttl_s: float | None = None,
    ) -> bool:
        """Keep ``entry`` (of ``project``) under ``key`` for ``ttl_s`` (None: the
        cache's), the least recently used dropped until it fits the budget, and the
        project's least recently used until it fits ``project_budget_bytes`` (None: no
        budget of its own); False (nothing kept) for an entry larger than either."""
        budget = self.budget_bytes
        if project_budget_bytes is not None:
            budget = min(budget, project_budget_bytes)
        if entry.nbytes > budget:
            return False
        if key in self._entries:
            self._drop(key)
        if project_budget_bytes is not None:
            while self._project_bytes.get(project, 0) + entry.nbytes > project_budget_bytes:
                self._drop(next(k for k, kept in self._entries.items() if kept.project == project))
                self.stats.evictions += 1
        while self.stats.bytes + entry.nbytes > self.budget_bytes:
            self._drop(next(iter(self._entries)))
            self.stats.evictions += 1
        expires_at = self._clock() + (self.ttl_s if ttl_s is None else ttl_s)
        self._entries[key] = _Kept(entry, expires_at, project)
        self.stats.entries += 1
        self.stats.bytes += entry.nbytes
        self._project_bytes[project] = self._project_bytes.get(project, 0) + entry.nbytes
        return True

    def project_bytes(self, project: str) -> int:
        """What ``project``'s entries take."""
        return self._project_bytes.get(project, 0)

    def forget(self, project: str) -> int:
        """Drop every entry of ``project``; how many there were."""
        keys = [key for key, kept in self._entries.items() if kept.project == project]
        for key in keys:
            self._drop(key)
        return len(keys)

    def clear(self) -> None:
        self._entries.clear()
        self._project_bytes.clear()
        self.stats.entries = self.stats.bytes = 0

    def _drop(self, key: str) -> None:
        kept = self._entries.pop(key)
        self.stats.entries -= 1
        self.stats.bytes -= kept.entry.nbytes
        left = self._project_bytes[kept.project] - kept.entry.nbytes
        if left:
            self._project_bytes[kept.project] = left
        else:
            del self._project_bytes[kept.project]
