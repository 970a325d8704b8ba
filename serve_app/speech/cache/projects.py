"""Each project's own speech cache settings, as an ingress replica reads them."""

from __future__ import annotations

import time
from collections.abc import Callable

from serve_app.accounts import AccountStore, SpeechCacheSetting

# How long a replica goes by what it read of a project's settings: a change made
# through another replica is heard within this (through this one, at once).
REREAD_S = 30.0


class ProjectSettings:
    """Projects' settings from the ledger, each read again after :data:`REREAD_S`."""

    def __init__(self, store: AccountStore, clock: Callable[[], float] = time.monotonic) -> None:
        self._store = store
        self._clock = clock
        self._read: dict[str, tuple[SpeechCacheSetting, float]] = {}

    async def of(self, project: str) -> SpeechCacheSetting:
        known = self._read.get(project)
        if known is not None and self._clock() - known[1] < REREAD_S:
            return known[0]
        setting = await self._store.call(self._store.speech_cache_setting, project)
        self._read[project] = (setting, self._clock())
        return setting

    async def set(self, project: str, setting: SpeechCacheSetting) -> None:
        await self._store.call(self._store.set_speech_cache_setting, project, setting)
        self._read[project] = (setting, self._clock())
