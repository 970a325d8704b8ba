import asyncio
import os
import sys
import threading

import pytest

from deployments.priority import (
    BACKGROUND_NICENESS,
    can_return_from_idle,
    in_background,
    niceness,
)
from deployments.synthesis.fair_queue import BACKGROUND, FIRST, LATER
from deployments.synthesis.scheduler import LONG_FIRST, SegmentScheduler


async def test_first_segments_jump_the_queue() -> None:
    scheduler = SegmentScheduler(workers=1)
    gate = threading.Event()
    order: list[str] = []

    def call(name: str) -> str:
        order.append(name)
        return name

    blocker = asyncio.create_task(scheduler.run(gate.wait, LATER))
    await asyncio.sleep(0.05)  # the worker is now busy
    later = [asyncio.create_task(scheduler.run(lambda n=n: call(n), LATER)) for n in "abc"]
    await asyncio.sleep(0.01)
    first = asyncio.create_task(scheduler.run(lambda: call("first"), FIRST))
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

    blocker = asyncio.create_task(scheduler.run(gate.wait, FIRST))
    await asyncio.sleep(0.05)
    skipped = asyncio.create_task(scheduler.run(lambda: ran.append(1), FIRST))
    await asyncio.sleep(0.01)
    skipped.cancel()
    gate.set()
    await blocker
    with pytest.raises(ValueError, match="engine failed"):
        await scheduler.run(boom, FIRST)
    assert ran == []
    with pytest.raises(ValueError):
        SegmentScheduler(workers=0)


async def test_it_counts_the_first_segments_waiting_for_a_worker() -> None:
    """The Synthesiser's signal for latency work: streams waiting for first audio."""
    scheduler = SegmentScheduler(workers=1)
    gate = threading.Event()
    running = asyncio.create_task(scheduler.run(gate.wait, FIRST))
    await asyncio.sleep(0.05)
    assert scheduler.first_waiting == 0  # the one on the worker is not waiting
    later = asyncio.create_task(scheduler.run(lambda: None, LATER))
    firsts = [asyncio.create_task(scheduler.run(lambda: None, FIRST)) for _ in range(2)]
    await asyncio.sleep(0.01)
    assert scheduler.first_waiting == 2
    gate.set()
    await asyncio.gather(running, later, *firsts)
    assert scheduler.first_waiting == 0


async def test_with_lanes_a_first_segment_never_waits_for_later_ones_calls() -> None:
    """An engine whose calls may run at once: every worker of later segments busy (a long
    piece on each core), a new stream's first segment still runs at once, on a worker
    of its own lane; later ones wait for theirs."""
    scheduler = SegmentScheduler(workers=1, lanes=True)
    gate = threading.Event()
    busy = asyncio.create_task(scheduler.run(gate.wait, LATER))
    await asyncio.sleep(0.05)  # the later lane's one worker is busy
    queued = asyncio.create_task(scheduler.run(lambda: "later", LATER))
    await asyncio.sleep(0.01)
    assert scheduler.waiting(LATER) and not scheduler.waiting(FIRST)
    assert await asyncio.wait_for(scheduler.run(lambda: "first", FIRST), 5) == "first"
    assert not queued.done()  # its lane's worker is still busy: no third call at once
    gate.set()
    assert await asyncio.gather(busy, queued) == [True, "later"]


def _priority() -> tuple[int, int, bool]:
    """This thread's nice value, scheduling class and whether engines see background."""
    thread = threading.get_native_id()
    return os.getpriority(os.PRIO_PROCESS, thread), os.sched_getscheduler(thread), in_background()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a nice value per thread")
async def test_each_class_runs_below_the_more_urgent_ones_in_the_os_scheduling() -> None:
    """First segments at the process's priority, later ones niced, background work (a
    long-form job's chunks) in the OS's idle class: below any nice value, so under
    Ray (workers at nice 15, where +10 stops at 19) it still yields the cores."""
    scheduler = SegmentScheduler(workers=1, lanes=True)
    base = niceness()
    first = await scheduler.run(_priority, FIRST)
    later = await scheduler.run(_priority, LATER)
    background = await scheduler.run(_priority, BACKGROUND)
    assert first == (base, os.SCHED_OTHER, False)
    assert later == (min(base + BACKGROUND_NICENESS, 19), os.SCHED_OTHER, True)
    assert background[1:] == (os.SCHED_IDLE, True)  # engines are told too
    # without lanes (an engine of one call at a time: eSpeak NG) the one worker is
    # lowered for a background call only, and put back after it
    plain = SegmentScheduler(workers=1)
    lowered = (os.SCHED_IDLE, True) if can_return_from_idle() else (os.SCHED_OTHER, False)
    assert (await plain.run(_priority, BACKGROUND))[1:] == lowered
    assert await plain.run(_priority, FIRST) == (base, os.SCHED_OTHER, False)


async def test_one_worker_s_background_call_is_put_back_when_a_stream_waits_for_it() -> None:
    """The worker's priority lent: a stream's segment that comes while a job's chunk is
    being spoken does not wait for a thread that only idle cores run."""
    if not can_return_from_idle():
        pytest.skip("this user may not put a thread back from the idle class")
    scheduler = SegmentScheduler(workers=1)
    started, go_on = threading.Event(), threading.Event()

    def chunk() -> tuple[int, int, bool]:
        started.set()
        go_on.wait(10)
        return _priority()

    background = asyncio.ensure_future(scheduler.run(chunk, BACKGROUND))
    assert await asyncio.to_thread(started.wait, 10)
    first = asyncio.ensure_future(scheduler.run(_priority, FIRST))
    await asyncio.sleep(0.05)  # the first segment waits: the worker is put back
    go_on.set()
    assert (await background)[1] == os.SCHED_OTHER
    assert (await first)[1] == os.SCHED_OTHER


async def test_workers_lowered_at_once_are_each_put_back() -> None:
    """Two workers without lanes, each on a job's chunk at once: both in the idle class
    for their calls, both back in their own after."""
    if not can_return_from_idle():
        pytest.skip("this user may not put a thread back from the idle class")
    scheduler = SegmentScheduler(workers=2)
    both = threading.Barrier(2)

    def chunk() -> tuple[int, int]:
        both.wait(10)  # the two calls run together
        return threading.get_native_id(), os.sched_getscheduler(0)

    calls = await asyncio.gather(*(scheduler.run(chunk, BACKGROUND) for _ in range(2)))
    assert [policy for _, policy in calls] == [os.SCHED_IDLE] * 2
    for _ in range(200):  # put back as each call ends, a moment after its answer
        if all(os.sched_getscheduler(thread) == os.SCHED_OTHER for thread, _ in calls):
            break
        await asyncio.sleep(0.01)
    assert [os.sched_getscheduler(thread) for thread, _ in calls] == [os.SCHED_OTHER] * 2


async def test_a_stream_s_later_segment_never_waits_for_background_calls() -> None:
    """Every background worker busy with a job's long call: a stream's later segment
    runs at once on its own lane; queued background work waits behind later segments
    in the plain (one worker) scheduler too."""
    scheduler = SegmentScheduler(workers=1, lanes=True)
    gate = threading.Event()
    busy = asyncio.create_task(scheduler.run(gate.wait, BACKGROUND, "job"))
    await asyncio.sleep(0.05)
    assert await asyncio.wait_for(scheduler.run(lambda: "later", LATER, "live"), 5) == "later"
    assert scheduler.waiting(LATER) is False and not busy.done()
    gate.set()
    assert await busy is True
    plain = SegmentScheduler(workers=1)
    gate.clear()
    order: list[str] = []
    blocker = asyncio.create_task(plain.run(gate.wait, FIRST))
    await asyncio.sleep(0.05)
    queued = [
        asyncio.create_task(plain.run(lambda n=n: order.append(n), u, t))
        for n, u, t in [("job", BACKGROUND, "j"), ("later", LATER, "l"), ("first", FIRST, "f")]
    ]
    await asyncio.sleep(0.05)
    gate.set()
    await asyncio.gather(blocker, *queued)
    assert order == ["first", "later", "job"]


async def test_with_lanes_a_project_leaves_another_a_worker_for_first_segments() -> None:
    """Two workers a lane: one project's first segments run one at a time while a
    second of its own waits, so another project's first segment starts at once."""
    scheduler = SegmentScheduler(workers=2, lanes=True)
    gate = threading.Event()
    started: list[str] = []

    def call(name: str) -> str:
        started.append(name)
        if name.startswith("a"):
            gate.wait()
        return name

    a = [asyncio.create_task(scheduler.run(lambda n=n: call(n), FIRST, "a")) for n in ("a1", "a2")]
    await asyncio.sleep(0.05)
    assert started == ["a1"]  # a2 waits: a holds its share (all but one worker)
    assert await asyncio.wait_for(scheduler.run(lambda: call("b1"), FIRST, "b"), 5) == "b1"
    gate.set()
    assert await asyncio.gather(*a) == ["a1", "a2"]
    assert started == ["a1", "b1", "a2"]
    # later segments keep every worker of their lane, whoever asks
    both = threading.Barrier(2, timeout=5)
    assert await asyncio.gather(*(scheduler.run(both.wait, LATER, "a") for _ in range(2))) in (
        [0, 1],
        [1, 0],
    )


async def test_with_lanes_long_first_segments_leave_a_worker_for_a_short_one() -> None:
    """Two workers a lane: long first segments (an unpunctuated text's, seconds of calls)
    of many projects run one at a time, so a short first segment of yet another
    project starts at once rather than after a long call of each."""
    scheduler = SegmentScheduler(workers=2, lanes=True)
    gate = threading.Event()
    started: list[str] = []

    def call(name: str) -> str:
        started.append(name)
        if name.startswith("long"):
            gate.wait()
        return name

    def run(name: str, size: int) -> asyncio.Task[str]:
        return asyncio.create_task(scheduler.run(lambda: call(name), FIRST, name, size))

    longs = [run(f"long{i}", LONG_FIRST + 1) for i in range(3)]
    await asyncio.sleep(0.05)
    assert started == ["long0"]  # the others wait: long ones hold their share
    assert scheduler.first_waiting == 2
    assert await asyncio.wait_for(run("short", 30), 5) == "short"
    # a first segment of LONG_FIRST characters is not a long one
    assert await asyncio.wait_for(run("edge", LONG_FIRST), 5) == "edge"
    gate.set()
    assert await asyncio.gather(*longs) == ["long0", "long1", "long2"]
    assert started[:3] == ["long0", "short", "edge"]


async def test_it_is_busy_while_a_job_runs_even_one_whose_caller_left() -> None:
    """A call whose stream went away runs to its end: the scheduler says so."""
    scheduler = SegmentScheduler(workers=1)
    gate = threading.Event()
    assert not scheduler.busy
    running = asyncio.create_task(scheduler.run(gate.wait, FIRST))
    await asyncio.sleep(0.05)
    running.cancel()
    assert scheduler.busy
    gate.set()
    for _ in range(100):
        if not scheduler.busy:
            break
        await asyncio.sleep(0.01)
    assert not scheduler.busy
