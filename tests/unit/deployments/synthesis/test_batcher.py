import asyncio

import pytest

from deployments.synthesis.batcher import Batcher


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


async def test_first_segments_go_ahead_of_later_ones_while_a_batch_runs() -> None:
    """One batch at a time: what arrives meanwhile waits, and the next batch takes the
    new streams' first segments before the later segments that came earlier."""
    seen: list[list[str]] = []
    release = asyncio.Event()

    async def speak(items: list[str]) -> list[str]:
        seen.append(items)
        if len(seen) == 1:
            await release.wait()
        return items

    batcher: Batcher[str, str] = Batcher(speak, max_size=2, wait_s=0.01)
    running = asyncio.create_task(batcher.submit("a1"))
    await asyncio.sleep(0.05)  # a1's batch is running
    later = [asyncio.create_task(batcher.submit(f"a{i}", first=False)) for i in (2, 3)]
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
        asyncio.create_task(batcher.submit(i, first=first))
        for i, first in ((1, True), (2, False), (3, True))
    ]
    await asyncio.sleep(0.01)
    assert batcher.first_waiting == 2
    gate.set()
    assert await asyncio.gather(running, *waiting) == [0, 1, 2, 3]
    assert batcher.first_waiting == 0
