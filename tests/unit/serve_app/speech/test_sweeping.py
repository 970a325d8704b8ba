"""A replica's sweeps: run again and again, a failure logged and tried again."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pytest

from serve_app.speech.sweeping import sweeping


async def test_a_failed_sweep_is_logged_and_tried_again(caplog: pytest.LogCaptureFixture) -> None:
    calls: list[int] = []
    third = asyncio.Event()

    async def sweep() -> int:
        calls.append(len(calls))
        if len(calls) == 1:
            raise OSError("the store is down")
        if len(calls) == 3:
            third.set()
        return 2

    with caplog.at_level(logging.INFO, logger="serve_app"):
        task = asyncio.create_task(sweeping(sweep, 0, "old things"))
        await third.wait()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    messages = [r.getMessage() for r in caplog.records]
    assert messages[0] == "deleting old things failed; retrying"
    assert messages[1:3] == ["deleted 2 old things", "deleted 2 old things"]
