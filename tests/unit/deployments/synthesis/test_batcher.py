import asyncio
from collections.abc import Awaitable, Callable

import pytest

from deployments.synthesis.batcher import Batcher
from deployments.synthesis.fair_queue import BACKGROUND, FIRST, LATER

Speak = Callable[[list[str]], Awaitable[list[str]]]


async def test_items_that_arrive_together_run_as_one_batch() -> None:
    batches: list[list[int]] = []

    async def double(items: list[int]) -> list[int]:
        batches.append(items)
        return [2 * i for i in items]

    batcher: Batcher[int, int] = Batcher(double, max_size=3, wait_s=0.05)
    results = await asyncio.gather(*(batcher.submit(i) for i in range(5)))
    assert results == [0, 2, 4, 6, 8]
    assert batches == [[0, 1, 2], [3, 4]]  # full at 3; the rest after the wait


async def test_every_caller_of_a_failed_batch_gets_its_error() -> None:
    async def fail(items: list[int]) -> list[int]:
        raise ValueError(f"engine failed on {len(items)}")

    batcher: Batcher[int, int] = Batcher(fail, max_size=8, wait_s=0.01)
    results = await asyncio.gather(*(batcher.submit(i) for i in range(3)), return_exceptions=True)
    assert [str(r) for r in results] == ["engine failed on 3"] * 3


async def test_a_caller_that_left_is_not_batched() -> None:
    seen: list[list[int]] = []

    async def echo(items: list[int]) -> list[int]:
        seen.append(items)
        return items

    batcher: Batcher[int, int] = Batcher(echo, max_size=8, wait_s=0.05)
    gone = asyncio.create_task(batcher.submit(1))
    kept = asyncio.create_task(batcher.submit(2))
    await asyncio.sleep(0)
    gone.cancel()
    assert await kept == 2
    assert seen == [[2]]
    with pytest.raises(asyncio.CancelledError):
        await gone


def first_pass_held() -> tuple[list[list[str]], asyncio.Event, Speak]:
    """A pass that records each batch it is given and holds the first until released."""
    seen: list[list[str]] = []
    release = asyncio.Event()

    async def speak(items: list[str]) -> list[str]:
        seen.append(items)
        if len(seen) == 1:
            await release.wait()
        return items

    return seen, release, speak


async def test_first_segments_go_ahead_of_later_ones_while_a_batch_runs() -> None:
    """One batch at a time: what arrives meanwhile waits, and the next batch takes the
    new streams' first segments before the later segments that came earlier."""
    seen, release, speak = first_pass_held()
    batcher: Batcher[str, str] = Batcher(speak, max_size=2, wait_s=0.01)
    running = asyncio.create_task(batcher.submit("a1"))
    await asyncio.sleep(0.05)  # a1's batch is running
    later = [asyncio.create_task(batcher.submit(f"a{i}", LATER)) for i in (2, 3)]
    await asyncio.sleep(0)
    new = [asyncio.create_task(batcher.submit(s)) for s in ("b1", "c1")]
    await asyncio.sleep(0.05)
    assert seen == [["a1"]]  # nothing else started while the engine was busy
    release.set()
    await asyncio.gather(running, *later, *new)
    assert seen == [["a1"], ["b1", "c1"], ["a2", "a3"]]


async def test_it_counts_the_first_items_waiting_for_a_pass() -> None:
    gate = asyncio.Event()

    async def held(items: list[int]) -> list[int]:
        await gate.wait()
        return items

    batcher: Batcher[int, int] = Batcher(held, max_size=1, wait_s=0.0)
    running = asyncio.create_task(batcher.submit(0))
    await asyncio.sleep(0.01)
    assert batcher.first_waiting == 0  # in the running pass
    waiting = [
        asyncio.create_task(batcher.submit(i, urgency))
        for i, urgency in ((1, FIRST), (2, LATER), (3, FIRST))
    ]
    await asyncio.sleep(0.01)
    assert batcher.first_waiting == 2
    gate.set()
    assert await asyncio.gather(running, *waiting) == [0, 1, 2, 3]
    assert batcher.first_waiting == 0


async def test_later_batches_leave_a_place_for_first_segments() -> None:
    """Three batches in flight at most, later segments' in two of them: a new stream's
    first segment starts its own small pass at once beside two large ones, and each
    caller gets its own result as its batch ends, whatever order they end in."""
    started: list[list[str]] = []
    gates: dict[str, asyncio.Event] = {}

    async def speak(items: list[str]) -> list[str]:
        started.append(items)
        gate = gates.setdefault(items[0], asyncio.Event())
        await gate.wait()
        return [item.upper() for item in items]

    batcher: Batcher[str, str] = Batcher(speak, max_size=3, wait_s=0.0, depth=3, first_size=2)
    later = [asyncio.create_task(batcher.submit(f"a{i}", LATER)) for i in range(9)]
    await asyncio.sleep(0.01)
    # two later batches start; the third place is kept for first segments
    assert started == [["a0", "a1", "a2"], ["a3", "a4", "a5"]]
    first = [asyncio.create_task(batcher.submit(s)) for s in ("b1", "c1", "d1")]
    await asyncio.sleep(0.01)
    assert started[2] == ["b1", "c1"]  # first segments only, at most two, at once
    gates["b1"].set()  # the small pass ends before the large ones
    assert await asyncio.gather(*first[:2]) == ["B1", "C1"]
    await asyncio.sleep(0.01)
    assert started[3] == ["d1"] and not later[0].done()
    for gate in ("a0", "d1"):
        gates.setdefault(gate, asyncio.Event()).set()
    assert await first[2] == "D1"
    assert await asyncio.gather(*later[:3]) == ["A0", "A1", "A2"]
    await asyncio.sleep(0.01)
    assert started[4] == ["a6", "a7", "a8"]  # a later batch takes the freed place
    for gate in ("a3", "a6"):
        gates[gate].set()
    assert await asyncio.gather(*later) == [f"A{i}" for i in range(9)]


async def test_first_segments_mix_with_later_ones_without_a_first_batch_size() -> None:
    seen: list[list[str]] = []

    async def echo(items: list[str]) -> list[str]:
        seen.append(items)
        return items

    batcher: Batcher[str, str] = Batcher(echo, max_size=4, wait_s=0.01)
    items = [("a2", LATER), ("b1", FIRST), ("a3", LATER)]
    await asyncio.gather(*(batcher.submit(s, u) for s, u in items))
    assert seen == [["b1", "a2", "a3"]]  # one pass, most urgent first


async def test_a_batch_takes_each_tenant_s_segments_in_turn() -> None:
    """Segments that waited while a pass ran: the next pass of two takes one of each
    project's, not two of the project with more streams."""
    seen, release, speak = first_pass_held()
    batcher: Batcher[str, str] = Batcher(speak, max_size=2, wait_s=0.0)
    running = asyncio.create_task(batcher.submit("x", LATER, tenant="x"))
    await asyncio.sleep(0.01)
    items = [("a1", "a"), ("a2", "a"), ("a3", "a"), ("b1", "b")]
    waiting = [asyncio.create_task(batcher.submit(s, LATER, tenant=t)) for s, t in items]
    await asyncio.sleep(0.01)
    release.set()
    await asyncio.gather(running, *waiting)
    assert seen[1] == ["a1", "b1"]  # not a1, a2: b's one stream gets its place


async def test_background_items_fill_later_batches_behind_later_ones() -> None:
    """A long-form job's chunks (background) share a pass with streams' later segments,
    after them; first segments keep passes of their own."""
    seen: list[list[str]] = []

    async def echo(items: list[str]) -> list[str]:
        seen.append(items)
        return items

    batcher: Batcher[str, str] = Batcher(echo, max_size=4, wait_s=0.01, first_size=1)
    items = [("job1", BACKGROUND), ("a2", LATER), ("b1", FIRST), ("job2", BACKGROUND)]
    await asyncio.gather(*(batcher.submit(s, u, tenant=s[0]) for s, u in items))
    assert seen == [["b1"], ["a2", "job1", "job2"]]
