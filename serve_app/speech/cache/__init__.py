"""The speech cache: audio a project has had spoken, heard again without synthesis.

Each ingress replica keeps the audio of the sentences it has spoken (``memory.py``),
per project, keyed on everything that changes the audio (``keys.py``), over a store
every replica reaches (``shared.py``: what one replica spoke, another hears). A request is
looked up sentence group by sentence group (:meth:`SpeechCache.lookup`): groups found
are spoken from the cache, the rest synthesised, all in order and encoded as one
stream (``deployments.encoding.encode_work``); the synthesised groups' audio comes back
with the encoded chunks and is kept once each group is whole
(:meth:`SpeechCache.recorded`). A request whose every group is found never reaches
the Synthesiser: its audio is encoded in the ingress. Every HTTP surface speaks
through it (``SpeechService.deliver``), and the WebSockets' text streams piece by
piece (``SpeechService.synthesise``: the audio itself, cached and synthesised in order,
:meth:`SpeechCache.kept`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field, replace
from typing import Literal

from deployments.messages import (
    AudioChunk,
    CachedAudio,
    EncodedChunk,
    EncodeWork,
    SynthesisParams,
    SynthesisWork,
)
from deployments.synthesis import VoiceConfig
from serve_app.accounts import AS_THE_SERVICE, SpeechCacheSetting
from serve_app.speech.cache.entries import Entry, entry_of, served
from serve_app.speech.cache.keys import Group, group_key, groups
from serve_app.speech.cache.memory import MemoryCache, MemoryStats
from serve_app.speech.cache.projects import ProjectSettings
from serve_app.speech.cache.shared import SharedStore
from serve_app.speech.sweeping import sweeping

logger = logging.getLogger("serve_app")

# The longest a lookup waits for the shared store (past it: a miss).
SHARED_WAIT_S = 0.5
# How often each replica deletes the shared store's entries past their time to live.
SWEEP_INTERVAL_S = 3600.0

Status = Literal["hit", "partial", "miss", "off"]

__all__ = [
    "Lookup",
    "MemoryCache",
    "MemoryStats",
    "ProjectSettings",
    "SharedStore",
    "SpeechCache",
    "Status",
]


@dataclass(frozen=True)
class Lookup:
    """What the cache has of a work's groups: their audio (``cached``), the work of
    the segments still to be spoken (``to_synthesise``: asked for every timing where
    some is to be kept, so that its entries serve every later request), and those
    segments' groups (by key) to keep once synthesised. ``asked``: the work's own
    params, the timings its listener is served."""

    cached: CachedAudio | None
    to_synthesise: SynthesisWork
    asked: SynthesisParams
    status: Status
    missing: dict[str, Group] = field(default_factory=dict)
    found: int = 0  # groups spoken from the cache
    setting: SpeechCacheSetting = AS_THE_SERVICE  # the project's own

    def applied(self, work: EncodeWork) -> EncodeWork:
        """``work`` (whose synthesis was looked up) with the cached audio in its place,
        bringing back the synthesised audio where some is to be kept."""
        return replace(work, cached=self.cached, keep_audio=bool(self.missing))

    def spoken(self, work: SynthesisWork) -> SynthesisWork:
        """``work`` (looked up) as its audio is to be synthesised."""
        return replace(work, params=self.to_synthesise.params)


class SpeechCache:
    """Spoken audio of every project, in ``memory``, over ``shared`` (every replica's,
    where there is one), for the model ``model``."""

    def __init__(
        self,
        memory: MemoryCache,
        model: str,
        shared: SharedStore | None = None,
        projects: ProjectSettings | None = None,
    ) -> None:
        self.memory = memory
        self.shared = shared
        self.projects = projects  # each project's own settings (None: the service's)
        self._model = model
        self._writes: set[asyncio.Task[None]] = set()  # to the shared store, under way

    async def setting_of(self, project: str) -> SpeechCacheSetting:
        """``project``'s own settings."""
        return AS_THE_SERVICE if self.projects is None else await self.projects.of(project)

    async def lookup(
        self,
        work: SynthesisWork,
        voice: VoiceConfig,
        setting: SpeechCacheSetting = AS_THE_SERVICE,
    ) -> Lookup:
        """What the cache has of ``work``'s groups (spoken by ``voice``, for a project
        of ``setting``): from memory, and what memory lacks from the shared store
        (waited for at most :data:`SHARED_WAIT_S`: a slow store makes a miss, not a
        slow request)."""
        params = work.params
        keyed = [
            (group_key(params.tenant, self._model, voice, params, group), group)
            for group in groups(work.segments)
        ]
        entries = {key: self.memory.get(key) for key, _ in keyed}
        absent = [key for key, e in entries.items() if e is None or not e.serves(params)]
        if absent and self.shared is not None:
            entries |= await self._shared_entries(params.tenant, absent, setting)
        found: list[AudioChunk] = []
        covered: set[int] = set()
        missing: dict[str, Group] = {}
        found_groups = 0
        for key, group in keyed:
            entry = entries.get(key)
            if entry is None or not entry.serves(params):
                missing[key] = group
                continue
            found += served(entry, group, params)
            covered.update(segment.index for segment in group)
            found_groups += 1
        status: Status = "miss" if not covered else "partial" if missing else "hit"
        cached = CachedAudio(frozenset(covered), tuple(found)) if covered else None
        todo = work.without(cached)
        if missing:
            todo = replace(todo, params=params.fully_timed())
        return Lookup(cached, todo, params, status, missing, found_groups, setting)

    async def recorded(
        self, lookup: Lookup, stream: AsyncGenerator[EncodedChunk, None]
    ) -> AsyncGenerator[EncodedChunk, None]:
        """``stream``'s chunks (without the audio they bring back, and none that holds
        no bytes), each missing group kept once its audio is whole; closing this
        closes ``stream``."""
        keeping = _Keeping(self, lookup)
        async with contextlib.aclosing(stream):
            async for encoded in stream:
                for chunk in encoded.spoken:
                    keeping.heard(chunk)
                if encoded.data:
                    yield replace(encoded, spoken=()) if encoded.spoken else encoded

    async def kept(
        self, lookup: Lookup, audio: AsyncGenerator[AudioChunk, None]
    ) -> AsyncGenerator[AudioChunk, None]:
        """``audio`` (a work's, cached and synthesised as :meth:`Lookup.spoken`, in
        order) passed on with the timings the work asked for, each missing group kept
        once its audio is whole; closing this closes ``audio``."""
        keeping = _Keeping(self, lookup)
        async with contextlib.aclosing(audio):
            async for chunk in audio:
                keeping.heard(chunk)
                yield chunk.as_asked(lookup.asked)

    def keep(
        self,
        key: str,
        group: Group,
        chunks: list[AudioChunk],
        params: SynthesisParams,
        setting: SpeechCacheSetting = AS_THE_SERVICE,
    ) -> None:
        """Keep ``chunks``, ``group``'s whole audio (spoken for ``params``), as ``key``
        (within its project's ``setting``): in memory at once, in the shared store in
        the background."""
        entry = entry_of(group, chunks, params)
        if entry is None:
            return
        self._remember(key, entry, params.tenant, setting)
        if self.shared is not None:
            self._write(self.shared.put, params.tenant, key, entry)

    def forget(self, project: str) -> None:
        """Drop ``project``'s audio (its dictionaries or voices changed: what they read is
        keyed anew, and the old audio would only take room)."""
        self.memory.forget(project)
        if self.shared is not None:
            self._write(self.shared.forget, project)

    async def sweep(self) -> int:
        """Delete the shared store's entries older than their project's time to live
        (no replica would hear them); how many were deleted."""
        shared = self.shared
        if shared is None:
            return 0
        ages = await asyncio.to_thread(shared.ages)
        deleted = 0
        for project, entries in ages.items():
            ttl_s = (await self.setting_of(project)).ttl_s or shared.ttl_s
            old = [key for key, age_s in entries.items() if age_s >= ttl_s]
            if old:
                await asyncio.to_thread(shared.delete, project, old)
                deleted += len(old)
        return deleted

    async def keep_swept(self, interval_s: float = SWEEP_INTERVAL_S) -> None:
        """Runs for the replica's life: :meth:`sweep` every ``interval_s`` (each replica
        does: deleting what another has deleted does nothing)."""
        await sweeping(self.sweep, interval_s, "speech cache entries past their time")

    async def settled(self) -> None:
        """Once every write to the shared store begun so far has ended."""
        await asyncio.gather(*self._writes, return_exceptions=True)

    def _remember(self, key: str, entry: Entry, project: str, setting: SpeechCacheSetting) -> None:
        budget = None if setting.budget_mb is None else setting.budget_mb << 20
        self.memory.put(key, entry, project, budget, setting.ttl_s)

    async def _shared_entries(
        self, project: str, keys: list[str], setting: SpeechCacheSetting
    ) -> dict[str, Entry]:
        """The entries of ``keys`` the shared store has, kept in memory too."""
        shared = self.shared
        assert shared is not None

        def read() -> dict[str, Entry]:
            found = ((k, shared.get(project, k, setting.ttl_s)) for k in keys)
            return {k: e for k, e in found if e is not None}

        try:
            async with asyncio.timeout(SHARED_WAIT_S):
                found = await asyncio.to_thread(read)
        except TimeoutError:
            logger.warning("speech cache: the shared store took over %g s", SHARED_WAIT_S)
            return {}
        for key, entry in found.items():
            self._remember(key, entry, project, setting)
        return found

    def _write(self, call: Callable[..., None], *args: object) -> None:
        task = asyncio.get_running_loop().create_task(_on_thread(call, *args))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)


async def _on_thread(call: Callable[..., None], *args: object) -> None:
    """``call(*args)`` on a thread; a failure logged, not raised (the cache is never
    why a request fails: a sentence not stored is spoken again somewhere else)."""
    try:
        await asyncio.to_thread(call, *args)
    except Exception:
        logger.warning("speech cache: the shared store failed", exc_info=True)


class _Keeping:
    """A lookup's missing groups, each kept once the audio heard makes it whole."""

    def __init__(self, cache: SpeechCache, lookup: Lookup) -> None:
        self._cache = cache
        self._lookup = lookup
        self._by_segment = {s.index: key for key, group in lookup.missing.items() for s in group}
        self._audio: dict[str, list[AudioChunk]] = {}

    def heard(self, chunk: AudioChunk) -> None:
        key = self._by_segment.get(chunk.segment)
        if key is None:
            return  # cached audio, or a segment of no group to keep
        self._audio.setdefault(key, []).append(chunk)
        group = self._lookup.missing[key]
        if chunk.segment == group[-1].index and chunk.through >= 1.0:
            params = self._lookup.to_synthesise.params
            self._cache.keep(key, group, self._audio.pop(key), params, self._lookup.setting)
