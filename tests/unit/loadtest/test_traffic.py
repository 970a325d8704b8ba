"""The bench's traffic and its tables, against the comparison server on a real socket."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn

from loadtest.baseline import create_app
from loadtest.report import rate_table, table
from loadtest.traffic import Request, run_level, run_rate
from serve_app.http.sockets import free_port

REQUEST = Request("नमस्ते, आप कैसे हैं?", None, 22050)


@pytest.fixture(scope="module")
def baseline_url() -> Iterator[str]:
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


async def test_closed_loop_streams_and_their_table(baseline_url: str) -> None:
    result = await run_level(baseline_url, REQUEST, streams=2, duration_s=0.5)
    assert result.errors == 0 and len(result.ttfa_ms) >= 2 and result.audio_s > 0
    assert all(
        0 < first <= total for first, total in zip(result.ttfa_ms, result.total_ms, strict=True)
    )
    rows = table([result], 1.0, [result]).splitlines()
    assert len(rows) == 3 and rows[2].startswith("| 2 |")


async def test_open_loop_sends_at_the_rate_whatever_the_answers(baseline_url: str) -> None:
    result = await run_rate(baseline_url, REQUEST, rate=20, duration_s=0.5)
    assert result.errors == 0 and len(result.ttfa_ms) == 10
    assert result.wall_s >= 0.45  # the last request left after ~0.45 s
    rows = rate_table([result], [result]).splitlines()
    assert len(rows) == 3 and rows[2].startswith("| 20 | 10 |")
