"""Entries in one process's memory: a byte budget, the least recently used out first,
each kept for at most a time to live."""

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


class MemoryCache:
    """Entries by key within ``budget_bytes``, none older than ``ttl_s``."""

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
        self._entries: OrderedDict[str, tuple[Entry, float, str]] = OrderedDict()

    def get(self, key: str) -> Entry | None:
        """The entry under ``key`` (now the most recently used), if it has not expired."""
        found = self._entries.get(key)
        if found is None:
            return None
        entry, stored_at, _ = found
        if self._clock() - stored_at > self.ttl_s:
            self._drop(key)
            self.stats.expired += 1
            return None
        self._entries.move_to_end(key)
        return entry

    def put(self, key: str, entry: Entry, project: str = "") -> bool:
        """Keep ``entry`` (of ``project``) under ``key``, the least recently used dropped
        until it fits; False (nothing kept) for an entry larger than the whole budget."""
        if entry.nbytes > self.budget_bytes:
            return False
        if key in self._entries:
            self._drop(key)
        while self.stats.bytes + entry.nbytes > self.budget_bytes:
            self._drop(next(iter(self._entries)))
            self.stats.evictions += 1
        self._entries[key] = (entry, self._clock(), project)
        self.stats.entries += 1
        self.stats.bytes += entry.nbytes
        return True

    def forget(self, project: str) -> int:
        """Drop every entry of ``project``; how many there were."""
        keys = [key for key, (_, _, owner) in self._entries.items() if owner == project]
        for key in keys:
            self._drop(key)
        return len(keys)

    def clear(self) -> None:
        self._entries.clear()
        self.stats.entries = self.stats.bytes = 0

    def _drop(self, key: str) -> None:
        entry, _, _ = self._entries.pop(key)
        self.stats.entries -= 1
        self.stats.bytes -= entry.nbytes
