"""Tenants take turns: one project's many streams do not queue ahead of another's."""

from __future__ import annotations

import asyncio
import threading

import pytest

from deployments.synthesis.fair_queue import FIRST, LATER, FairQueue
from deployments.synthesis.scheduler import SegmentScheduler


def test_tenants_take_turns_within_a_class_and_first_segments_go_first() -> None:
    queue: FairQueue[str] = FairQueue()
    for i in range(4):
        queue.push(f"a{i}", LATER, tenant="a")
    queue.push("b0", LATER, tenant="b")
    queue.push("c0", FIRST, tenant="c")
    queue.push("a-first", FIRST, tenant="a")
    assert queue.count(FIRST) == 2 and queue.count(LATER) == 5 and len(queue) == 7
    order = [queue.pop() for _ in range(len(queue))]
    # first segments before later ones; within each, one of a tenant's then the next's
    assert order == ["c0", "a-first", "a0", "b0", "a1", "a2", "a3"]
    assert queue.peek_class() is None


def test_within_a_tenant_the_smallest_goes_first_then_the_oldest() -> None:
    """A project's short new stream before its own long texts' first segments."""
    queue: FairQueue[str] = FairQueue()
    queue.push("long-1", FIRST, tenant="a", size=400)
    queue.push("long-2", FIRST, tenant="a", size=400)
    queue.push("other", FIRST, tenant="b", size=400)
    queue.push("short", FIRST, tenant="a", size=30)
    assert [queue.pop() for _ in range(4)] == ["short", "other", "long-1", "long-2"]


def test_tenants_holding_their_share_are_passed_over() -> None:
    queue: FairQueue[str] = FairQueue()
    queue.push("a1", FIRST, tenant="a")
    queue.push("b1", FIRST, tenant="b")
    queue.push("a2", LATER, tenant="a")
    assert queue.count(FIRST, barred={"a"}) == 1
    assert queue.pop(only=FIRST, barred={"a"}) == "b1"
    with pytest.raises(IndexError):
        queue.pop(only=FIRST, barred={"a"})
    assert queue.pop(barred={"b"}) == "a1"


def test_a_class_can_be_asked_for_alone() -> None:
    queue: FairQueue[str] = FairQueue()
    queue.push("later", LATER)
    queue.push("first", FIRST)
    assert queue.pop(only=LATER) == "later" and queue.pop() == "first"


async def test_the_scheduler_gives_a_new_tenant_the_next_turn() -> None:
    """Six streams of one project waiting behind a running call: the other project's
    segment runs next, not seventh."""
    scheduler = SegmentScheduler(1)
    started = threading.Event()
    release = threading.Event()
    order: list[str] = []

    def held() -> None:
        started.set()
        release.wait(10)

    running = asyncio.ensure_future(scheduler.run(held, LATER, tenant="a"))
    await asyncio.to_thread(started.wait, 10)
    waiting = [
        asyncio.ensure_future(scheduler.run(lambda n=n: order.append(n), LATER, tenant=t))
        for n, t in [*((f"a{i}", "a") for i in range(6)), ("b0", "b")]
    ]
    await asyncio.sleep(0.05)
    release.set()
    await asyncio.gather(running, *waiting)
    assert order[:2] == ["a0", "b0"]


def test_a_size_bound_passes_over_tenants_whose_next_job_is_larger() -> None:
    queue: FairQueue[str] = FairQueue()
    queue.push("a-long", FIRST, "a", size=400)
    queue.push("b-long", FIRST, "b", size=300)
    queue.push("c-short", FIRST, "c", size=20)
    assert queue.count(FIRST, largest=100) == 1 and queue.count(FIRST) == 3
    assert queue.pop(FIRST, largest=100) == "c-short"
    with pytest.raises(IndexError):
        queue.pop(FIRST, largest=100)
    assert queue.pop(FIRST) == "a-long"  # no bound: the tenants in turn
