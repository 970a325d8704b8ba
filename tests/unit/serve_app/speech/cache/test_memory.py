"""The memory's budget: the least recently used out first, each entry for its time to live."""

from __future__ import annotations

import numpy as np

from deployments.messages import AudioChunk
from serve_app.speech.cache.entries import Entry
from serve_app.speech.cache.memory import MemoryCache


def entry(samples: int) -> Entry:
    chunk = AudioChunk(np.zeros(samples, np.float32), 24000, 0)
    return Entry((chunk,), alignment=False, phonemes=False)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_least_recently_used_goes_first_and_the_bytes_stay_within_the_budget() -> None:
    one = entry(1000)  # 4,256 bytes
    memory = MemoryCache(budget_bytes=3 * one.nbytes, ttl_s=60)
    for key in "abc":
        assert memory.put(key, entry(1000))
    assert memory.get("a") is not None  # a is now the most recently used
    assert memory.put("d", entry(1000))
    assert memory.get("b") is None and memory.get("a") and memory.get("c") and memory.get("d")
    assert memory.stats.entries == 3 and memory.stats.bytes == 3 * one.nbytes
    assert memory.stats.evictions == 1
    assert memory.put("e", entry(2000))  # twice the size: two make room
    assert memory.stats.evictions == 3 and memory.stats.bytes <= memory.budget_bytes


def test_an_entry_larger_than_the_budget_is_not_kept_and_drops_nothing() -> None:
    memory = MemoryCache(budget_bytes=entry(1000).nbytes, ttl_s=60)
    assert memory.put("small", entry(1000))
    assert not memory.put("large", entry(5000))
    assert memory.get("small") is not None and memory.stats.evictions == 0


def test_keeping_a_key_again_replaces_it_and_its_bytes() -> None:
    memory = MemoryCache(budget_bytes=1 << 20, ttl_s=60)
    memory.put("a", entry(1000))
    memory.put("a", entry(2000))
    assert memory.stats.entries == 1 and memory.stats.bytes == entry(2000).nbytes


def test_an_entry_past_its_time_to_live_is_gone() -> None:
    clock = Clock()
    memory = MemoryCache(budget_bytes=1 << 20, ttl_s=10, clock=clock)
    memory.put("a", entry(100))
    clock.now = 10.0
    assert memory.get("a") is not None
    clock.now = 10.5
    assert memory.get("a") is None
    assert memory.stats.expired == 1 and memory.stats.entries == 0 and memory.stats.bytes == 0


def test_a_project_s_entries_are_forgotten_and_no_one_else_s() -> None:
    memory = MemoryCache(budget_bytes=1 << 20, ttl_s=60)
    memory.put("a1", entry(100), "a")
    memory.put("a2", entry(100), "a")
    memory.put("b1", entry(100), "b")
    assert memory.forget("a") == 2
    assert memory.get("a1") is None and memory.get("a2") is None
    assert memory.get("b1") is not None
    assert memory.stats.entries == 1 and memory.stats.bytes == entry(100).nbytes


def test_a_project_s_own_budget_evicts_its_own_entries_only() -> None:
    one = entry(1000)
    memory = MemoryCache(budget_bytes=10 * one.nbytes, ttl_s=60)
    memory.put("theirs", entry(1000), "b")
    for key in "xyz":
        assert memory.put(key, entry(1000), "a", project_budget_bytes=2 * one.nbytes)
    assert memory.get("x") is None and memory.get("y") and memory.get("z")  # its oldest out
    assert memory.get("theirs") is not None  # another project's stays
    assert memory.project_bytes("a") == 2 * one.nbytes == 2 * memory.project_bytes("b")
    assert not memory.put("big", entry(3000), "a", project_budget_bytes=2 * one.nbytes)
    memory.forget("a")
    assert memory.project_bytes("a") == 0 and memory.stats.bytes == one.nbytes


def test_an_entry_put_for_its_own_time_to_live_expires_then() -> None:
    clock = Clock()
    memory = MemoryCache(budget_bytes=10**6, ttl_s=60, clock=clock)
    memory.put("week", entry(10), "a", ttl_s=7 * 86_400)
    memory.put("minute", entry(10), "b")
    memory.put("second", entry(10), "c", ttl_s=1)
    clock.now = 2
    assert memory.get("second") is None and memory.get("minute") and memory.get("week")
    clock.now = 61
    assert memory.get("minute") is None and memory.get("week") is not None
