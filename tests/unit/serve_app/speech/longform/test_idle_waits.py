"""A poller's rest: longer after each look in vain, short again once woken."""

from __future__ import annotations

import asyncio
import time

from serve_app.speech.longform.idle_waits import IdleWait, Wakeup


async def test_each_look_in_vain_doubles_the_rest_up_to_its_bound() -> None:
    idle = IdleWait(Wakeup(), 0.01, 0.04)
    seen = []
    for _ in range(4):
        await idle.rest()
        seen.append(idle.next_s)
    assert seen == [0.02, 0.04, 0.04, 0.04]
    idle.found()
    assert idle.next_s == 0.01


async def test_a_wake_ends_every_rest_at_once_and_shortens_the_next() -> None:
    wakeup = Wakeup()
    lanes = [IdleWait(wakeup, 30, 60) for _ in range(2)]
    started = time.monotonic()
    resting = [asyncio.create_task(lane.rest()) for lane in lanes]
    await asyncio.sleep(0.05)
    wakeup.wake()
    await asyncio.wait_for(asyncio.gather(*resting), 5)
    assert time.monotonic() - started < 5
    assert [lane.next_s for lane in lanes] == [30, 30]  # not doubled: there is work


async def test_a_wake_with_no_one_resting_is_not_kept_for_later() -> None:
    wakeup = Wakeup()
    wakeup.wake()
    assert not await wakeup.rest(0.01)
