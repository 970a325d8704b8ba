"""The speech cache's shared tier: an entry stored whole, exactly as spoken; what one
replica spoke is heard from the cache through another that shares the store; a store
that fails, holds garbage or is slow makes a miss, never a failed request."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import threading
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import serve_app.speech.cache as speech_cache
from deployments.messages import AudioChunk, SynthesisParams, SynthesisWork
from deployments.reading import ReadingOptions
from deployments.synthesis import SynthesisRunner
from deployments.timings import Alignment, PhonemeTiming, Timings, VisemeTiming, WordTiming
from serve_app.accounts import AccountStore, SpeechCacheSetting
from serve_app.speech.audio_store import AudioStore, FolderStore
from serve_app.speech.cache import MemoryCache, ProjectSettings, SharedStore, SpeechCache
from serve_app.speech.cache.entries import Entry
from serve_app.speech.cache.shared import StoredChunk, decoded, encoded
from serve_app.speech.pipeline import Pipeline

VOICE = "hi-espeak-aditi"
PARAMS = SynthesisParams(VOICE, "hi", tenant="project-a")
PROMPT = "नमस्ते, हमें कॉल करने के लिए धन्यवाद। बिल के लिए एक दबाएँ।"


def test_an_entry_is_stored_whole_and_read_back_exactly() -> None:
    timed = AudioChunk(
        np.linspace(-1, 1, 1001, dtype=np.float32),
        22050,
        0,
        words=(WordTiming(0, 5, 10),),
        alignment=Alignment(("न", "म"), (0, 40), (40, 50)),
        phonemes=(PhonemeTiming("n", 0, 40),),
        timings=Timings((PhonemeTiming("n", 0, 40, 0, 6, 0, 6),), (VisemeTiming("nn", 0, 40),)),
        through=0.5,
    )
    plain = AudioChunk(np.zeros(7, dtype=np.float32), 22050, 1)
    entry = Entry((timed, plain), alignment=True, phonemes=True)
    back, made_at = decoded(encoded(entry, 1234.5))
    assert made_at == 1234.5
    assert (back.alignment, back.phonemes) == (True, True)
    for got, kept in zip(back.chunks, entry.chunks, strict=True):
        assert got.samples.dtype == np.float32 and np.array_equal(got.samples, kept.samples)
        assert dataclasses.replace(got, samples=kept.samples) == kept
    with pytest.raises(ValueError):
        decoded(encoded(entry, 0.0)[:-4])  # not whole


def test_a_stored_chunk_keeps_every_field_of_an_audio_chunk() -> None:
    """A field added to AudioChunk is stored too (or this fails)."""
    names = [f.name for f in dataclasses.fields(AudioChunk)]
    assert [f.name for f in dataclasses.fields(StoredChunk)] == names


@pytest.fixture(scope="module")
def pipeline() -> Pipeline:
    return Pipeline.in_process(SynthesisRunner({"voice_engines": ["espeak"], "warm_up": False}))


def replica(store: AudioStore, ttl_s: float = 3600.0) -> SpeechCache:
    """An ingress replica's cache: its own memory, the shared store."""
    return SpeechCache(MemoryCache(64 << 20, ttl_s), "model", SharedStore(store, ttl_s))


async def spoken(
    cache: SpeechCache, pipeline: Pipeline, text: str = PROMPT, project: str = PARAMS.tenant
) -> str:
    """``text`` through ``cache`` (its audio heard to the end): hit, partial or miss."""
    normalised = await pipeline.normalise(text, ReadingOptions("hi", "balanced"))
    work = SynthesisWork(normalised.segments, replace(PARAMS, tenant=project))
    voice = next(v for v in (await pipeline.synthesisers()).voices if v.id == VOICE)
    lookup = await cache.lookup(work, voice)
    async for _ in cache.kept(lookup, pipeline.synthesise(lookup.spoken(work), lookup.cached)):
        pass
    await cache.settled()  # its writes to the shared store
    return lookup.status


async def test_what_one_replica_spoke_another_hears(tmp_path: Path, pipeline: Pipeline) -> None:
    store = FolderStore(tmp_path)
    one, other = replica(store), replica(store)
    assert await spoken(one, pipeline) == "miss"
    assert await spoken(other, pipeline) == "hit"
    assert other.memory.stats.entries == one.memory.stats.entries > 0  # now in its memory
    other.forget("project-a")  # a dictionary changed through the other replica
    await other.settled()
    assert await spoken(replica(store), pipeline) == "miss"  # gone from the store too


async def test_an_expired_entry_is_not_heard(tmp_path: Path, pipeline: Pipeline) -> None:
    store = FolderStore(tmp_path)
    await spoken(replica(store, ttl_s=0.001), pipeline)
    await asyncio.sleep(0.01)  # past its time to live
    assert await spoken(replica(store, ttl_s=0.001), pipeline) == "miss"


class Broken(FolderStore):
    def find(self, key: str) -> bytes | None:
        raise OSError("the store is down")

    def put(self, key: str, data: bytes) -> None:
        raise OSError("the store is down")


async def test_a_store_that_fails_or_holds_garbage_makes_a_miss(
    tmp_path: Path, pipeline: Pipeline
) -> None:
    broken = replica(Broken(tmp_path / "broken"))
    assert await spoken(broken, pipeline) == "miss"
    assert await spoken(broken, pipeline) == "hit"  # its memory still works
    store = FolderStore(tmp_path / "garbage")
    await spoken(replica(store), pipeline)
    for path in (tmp_path / "garbage").rglob("*"):
        if path.is_file():
            path.write_bytes(b"\x05\x00\x00\x00{}" + bytes(3))
    assert await spoken(replica(store), pipeline) == "miss"


class Slow(FolderStore):
    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.release = threading.Event()

    def find(self, key: str) -> bytes | None:
        self.release.wait(30)
        return super().find(key)


async def test_a_slow_store_makes_a_miss_not_a_slow_request(
    tmp_path: Path, pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(speech_cache, "SHARED_WAIT_S", 0.05)
    store = Slow(tmp_path)
    try:
        assert await spoken(replica(store), pipeline) == "miss"
    finally:
        store.release.set()
    await asyncio.sleep(0)


async def test_a_sweep_deletes_only_what_no_replica_would_hear(
    tmp_path: Path, pipeline: Pipeline
) -> None:
    """Entries older than their project's time to live are deleted (a project that
    keeps its audio longer keeps it); younger ones stay."""
    ledger = AccountStore.open(f"sqlite:///{tmp_path / 'ledger.sqlite3'}")
    try:
        hour, day = ledger.create_project("hour", 10**6), ledger.create_project("day", 10**6)
        projects = ProjectSettings(ledger)
        await projects.set(day, SpeechCacheSetting(ttl_s=86_400.0))
        store = FolderStore(tmp_path / "store")
        cache = SpeechCache(
            MemoryCache(64 << 20, 3600.0), "model", SharedStore(store, 3600.0), projects
        )
        for project in (hour, day):
            assert await spoken(cache, pipeline, project=project) == "miss"
        assert await cache.sweep() == 0  # all of them just made
        made = [name for name, _ in store.listed()]
        two_hours_ago = time.time() - 7200
        for name in made:
            os.utime(store.root / name, (two_hours_ago, two_hours_ago))
        assert await cache.sweep() == sum(name.startswith(f"{hour}/") for name in made) > 0
        assert {name for name, _ in store.listed()} == {n for n in made if n.startswith(f"{day}/")}
        assert await spoken(replica(store, ttl_s=86_400.0), pipeline, project=day) == "hit"
    finally:
        ledger.close()
