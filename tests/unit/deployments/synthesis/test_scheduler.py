import asyncio
import threading

import pytest

from deployments.synthesis.scheduler import SegmentScheduler


async def test_first_segments_jump_the_queue() -> None:
    scheduler = SegmentScheduler(workers=1)
    gate = threading.Event()
    order: list[str] = []

    def job(name: str) -> str:
        order.append(name)
        return name

    blocker = asyncio.create_task(scheduler.run(gate.wait, first=False))
    await asyncio.sleep(0.05)  # the worker is now busy
    later = [asyncio.create_task(scheduler.run(lambda n=n: job(n), first=False)) for n in "abc"]
    await asyncio.sleep(0.01)
    first = asyncio.create_task(scheduler.run(lambda: job("first"), first=True))
    await asyncio.sleep(0.01)
    gate.set()
    assert await first == "first"
    await asyncio.gather(blocker, *later)
    assert order == ["first", "a", "b", "c"]


async def test_errors_reach_the_caller_and_cancelled_jobs_are_skipped() -> None:
    scheduler = SegmentScheduler(workers=1)
    gate = threading.Event()
    ran: list[int] = []

    def boom() -> None:
        raise ValueError("engine failed")

    blocker = asyncio.create_task(scheduler.run(gate.wait, first=True))
    await asyncio.sleep(0.05)
    skipped = asyncio.create_task(scheduler.run(lambda: ran.append(1), first=True))
    await asyncio.sleep(0.01)
    skipped.cancel()
    gate.set()
    await blocker
    with pytest.raises(ValueError, match="engine failed"):
        await scheduler.run(boom, first=True)
    assert ran == []
    with pytest.raises(ValueError):
        SegmentScheduler(workers=0)


async def test_it_counts_the_first_segments_waiting_for_a_worker() -> None:
    """The Synthesiser's signal for latency work: streams waiting for first audio."""
    scheduler = SegmentScheduler(workers=1)
    gate = threading.Event()
    running = asyncio.create_task(scheduler.run(gate.wait, first=True))
    await asyncio.sleep(0.05)
    assert scheduler.first_waiting == 0  # the one on the worker is not waiting
    later = asyncio.create_task(scheduler.run(lambda: None, first=False))
    firsts = [asyncio.create_task(scheduler.run(lambda: None, first=True)) for _ in range(2)]
    await asyncio.sleep(0.01)
    assert scheduler.first_waiting == 2
    gate.set()
    await asyncio.gather(running, later, *firsts)
    assert scheduler.first_waiting == 0
