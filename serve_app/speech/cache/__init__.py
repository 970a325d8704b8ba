"""The speech cache: audio a project has had spoken, heard again without synthesis.

Each ingress replica keeps the audio of the sentences it has spoken (``memory.py``),
per project, keyed on everything that changes the audio (``keys.py``). A request is
looked up sentence group by sentence group (:meth:`SpeechCache.lookup`): groups found
are spoken from the cache, the rest synthesised, all in order and encoded as one
stream (``deployments.encoding.encode_work``); the synthesised groups' audio comes back
with the encoded chunks and is kept once each group is whole
(:meth:`SpeechCache.recorded`). A request whose every group is found never reaches
the Synthesiser: its audio is encoded in the ingress. Every HTTP surface speaks
through it (``SpeechService.deliver``); the WebSockets' text streams do not yet.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field, replace
from typing import Literal

from deployments.messages import (
    AudioChunk,
    CachedAudio,
    EncodedChunk,
    EncodeWork,
    SynthesisParams,
)
from deployments.synthesis import VoiceConfig
from serve_app.speech.cache.entries import entry_of, served
from serve_app.speech.cache.keys import Group, group_key, groups
from serve_app.speech.cache.memory import MemoryCache, MemoryStats

Status = Literal["hit", "partial", "miss", "off"]

__all__ = ["Lookup", "MemoryCache", "MemoryStats", "SpeechCache", "Status"]


@dataclass(frozen=True)
class Lookup:
    """A request's work with its cached audio, and its groups still to be spoken (by
    key) to keep once synthesised."""

    work: EncodeWork
    status: Status
    missing: dict[str, Group] = field(default_factory=dict)
    found: int = 0  # groups spoken from the cache


class SpeechCache:
    """Spoken audio of every project, in ``memory``, for the model ``model``."""

    def __init__(self, memory: MemoryCache, model: str) -> None:
        self.memory = memory
        self._model = model

    def lookup(self, work: EncodeWork, voice: VoiceConfig) -> Lookup:
        """``work`` with the audio the cache has of its groups (spoken by ``voice``)."""
        params = work.synthesis.params
        found: list[AudioChunk] = []
        covered: set[int] = set()
        missing: dict[str, Group] = {}
        found_groups = 0
        for group in groups(work.synthesis.segments):
            key = group_key(params.tenant, self._model, voice, params, group)
            entry = self.memory.get(key)
            if entry is None or not entry.serves(params):
                missing[key] = group
                continue
            found += served(entry, group, params)
            covered.update(segment.index for segment in group)
            found_groups += 1
        status: Status = "miss" if not covered else "partial" if missing else "hit"
        cached = CachedAudio(frozenset(covered), tuple(found)) if covered else None
        work = replace(work, cached=cached, keep_audio=bool(missing))
        return Lookup(work, status, missing, found_groups)

    async def recorded(
        self, lookup: Lookup, stream: AsyncGenerator[EncodedChunk, None]
    ) -> AsyncGenerator[EncodedChunk, None]:
        """``stream``'s chunks (without the audio they bring back, and none that holds
        no bytes), each missing group kept once its audio is whole; closing this
        closes ``stream``."""
        params = lookup.work.synthesis.params
        by_segment = {s.index: key for key, group in lookup.missing.items() for s in group}
        audio: dict[str, list[AudioChunk]] = {}
        async with contextlib.aclosing(stream):
            async for encoded in stream:
                for chunk in encoded.spoken:
                    key = by_segment.get(chunk.segment)
                    if key is None:
                        continue
                    audio.setdefault(key, []).append(chunk)
                    group = lookup.missing[key]
                    if chunk.segment == group[-1].index and chunk.through >= 1.0:
                        self._keep(key, group, audio.pop(key), params)
                if encoded.data:
                    yield replace(encoded, spoken=()) if encoded.spoken else encoded

    def _keep(
        self, key: str, group: Group, chunks: list[AudioChunk], params: SynthesisParams
    ) -> None:
        entry = entry_of(group, chunks, params)
        if entry is not None:
            self.memory.put(key, entry, params.tenant)

    def forget(self, project: str) -> None:
        """Drop ``project``'s audio (its dictionaries or voices changed: what they read is
        keyed anew, and the old audio would only take room)."""
        self.memory.forget(project)
