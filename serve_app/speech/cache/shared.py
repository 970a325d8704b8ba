"""The speech cache's shared tier: entries kept in the long-form jobs' audio store (a
folder every ingress replica reaches, or S3-compatible storage on a cluster), so that
a sentence spoken through one replica is heard from the cache through every other.

An entry is one object, ``<project>/<key>``: a little-endian length, a JSON header
(when it was made, what timings it holds, each chunk's fields but its samples) and
the chunks' float32 samples one after another: the voice's own audio, exactly as
the replica that spoke it keeps it in memory. Nothing in it is executed on reading
(no pickle): a store that others can write to can at worst make a replica say the
wrong thing, never run code. Calls block: the cache makes them on threads.
"""

from __future__ import annotations

import dataclasses
import logging
import struct
import time
from dataclasses import dataclass

import numpy as np
from pydantic import TypeAdapter

from deployments.messages import AudioChunk
from deployments.timings import Alignment, PhonemeTiming, Timings, WordTiming
from serve_app.speech.audio_store import AudioStore
from serve_app.speech.cache.entries import Entry

logger = logging.getLogger("serve_app")

_LENGTH = struct.Struct("<I")


@dataclass(frozen=True)
class StoredChunk:
    """An :class:`AudioChunk` as stored: every field but the samples, and how many."""

    samples: int
    sample_rate: int
    segment: int
    words: tuple[WordTiming, ...] = ()
    alignment: Alignment | None = None
    phonemes: tuple[PhonemeTiming, ...] = ()
    timings: Timings | None = None
    through: float = 1.0


@dataclass(frozen=True)
class StoredEntry:
    made_at: float  # wall clock: an entry older than the cache's time to live is not heard
    alignment: bool
    phonemes: bool
    chunks: tuple[StoredChunk, ...]


_HEADER = TypeAdapter(StoredEntry)
# the fields an AudioChunk and a StoredChunk share (all but the samples themselves)
SHARED_FIELDS = tuple(f.name for f in dataclasses.fields(AudioChunk) if f.name != "samples")


def encoded(entry: Entry, made_at: float) -> bytes:
    """``entry`` as one stored object."""
    chunks = tuple(
        StoredChunk(chunk.samples.size, **{name: getattr(chunk, name) for name in SHARED_FIELDS})
        for chunk in entry.chunks
    )
    header = _HEADER.dump_json(StoredEntry(made_at, entry.alignment, entry.phonemes, chunks))
    samples = b"".join(np.asarray(c.samples, dtype="<f4").tobytes() for c in entry.chunks)
    return _LENGTH.pack(len(header)) + header + samples


def decoded(data: bytes) -> tuple[Entry, float]:
    """The entry a stored object holds, and when it was made (ValueError: it is not
    one, or not whole)."""
    (length,) = _LENGTH.unpack_from(data)
    stored = _HEADER.validate_json(data[_LENGTH.size : _LENGTH.size + length])
    samples = np.frombuffer(data, dtype="<f4", offset=_LENGTH.size + length)
    if samples.size != sum(c.samples for c in stored.chunks):
        raise ValueError("a stored entry whose samples are not all there")
    chunks, at = [], 0
    for c in stored.chunks:
        fields = {name: getattr(c, name) for name in SHARED_FIELDS}
        chunks.append(AudioChunk(samples[at : at + c.samples].astype(np.float32), **fields))
        at += c.samples
    return Entry(tuple(chunks), stored.alignment, stored.phonemes), stored.made_at


class SharedStore:
    """Entries of every project in ``store``, each heard for ``ttl_s`` after it was made."""

    def __init__(self, store: AudioStore, ttl_s: float) -> None:
        self._store = store
        self.ttl_s = ttl_s

    def get(self, project: str, key: str, ttl_s: float | None = None) -> Entry | None:
        """The entry ``key`` of ``project``; None if there is none (or it is older than
        ``ttl_s``, None: the store's, or cannot be read: the cache is never why a
        request fails)."""
        try:
            data = self._store.find(f"{project}/{key}")
            if data is None:
                return None
            entry, made_at = decoded(data)
        except Exception:
            logger.warning("speech cache: %s unreadable in the shared store", key, exc_info=True)
            return None
        return entry if time.time() - made_at < (ttl_s or self.ttl_s) else None

    def put(self, project: str, key: str, entry: Entry) -> None:
        self._store.put(f"{project}/{key}", encoded(entry, time.time()))

    def forget(self, project: str) -> None:
        """Every entry of ``project``."""
        self._store.delete_job(project)

    def ages(self) -> dict[str, dict[str, float]]:
        """Each project's entries (by key) and their ages in seconds."""
        now = time.time()
        found: dict[str, dict[str, float]] = {}
        for name, written_at in self._store.listed():
            project, _, key = name.partition("/")
            if key:
                found.setdefault(project, {})[key] = now - written_at
        return found

    def delete(self, project: str, keys: list[str]) -> None:
        self._store.delete([f"{project}/{key}" for key in keys])
