"""Clients that hang up: nothing stays behind in the ingress (tasks, descriptors,
requests in flight), and every aborted stream is settled in the ledger."""

from __future__ import annotations

import contextlib
import sqlite3
import time

import httpx
import pytest

from tests.serve.conftest import Service

pytestmark = pytest.mark.serve

LONG_HI = " ".join(f"यह वाक्य संख्या {i} है, और यह थोड़ा लंबा भी है।" for i in range(30))
ABORTED = 200


def replica(service: Service) -> dict[str, int]:
    """What the folded app's one ingress replica holds open now (/ready)."""
    ready = httpx.get(service.folded_url + "/ready", headers=service.auth, timeout=30)
    status: dict[str, int] = ready.json()["replica"]
    return status


def open_holds(service: Service) -> int:
    path = service.database_url.removeprefix("sqlite:///")
    with contextlib.closing(sqlite3.connect(path, timeout=10)) as db:
        count: int = db.execute("SELECT COUNT(*) FROM holds WHERE state = 'open'").fetchone()[0]
    return count


def test_two_hundred_aborted_streams_leave_nothing_behind(service: Service) -> None:
    body = {"input": LONG_HI, "voice": "hi-espeak-aditi"}
    with httpx.Client(base_url=service.folded_url, timeout=30) as client:
        client.post("/v1/audio/speech", headers=service.auth, json={**body, "stream": False})
        before = replica(service)
        aborted = 0
        while aborted < ABORTED:
            with client.stream(
                "POST", "/v1/audio/speech", headers=service.auth, json=body
            ) as response:
                if response.status_code == 503:  # the last one's place is not free yet
                    time.sleep(0.02)
                    continue
                assert response.status_code == 200
                next(response.iter_raw())  # the first audio, then hang up
                aborted += 1
    deadline = time.monotonic() + 20
    while True:
        after = replica(service)
        settled = after["active_requests"] == 0 and open_holds(service) == 0
        if settled and after["asyncio_tasks"] <= before["asyncio_tasks"] + 2:
            break
        assert time.monotonic() < deadline, (before, after, open_holds(service))
        time.sleep(0.5)
    assert after["open_fds"] <= before["open_fds"] + 4, (before, after)
    assert after["threads"] <= before["threads"] + 2, (before, after)
