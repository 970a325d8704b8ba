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
