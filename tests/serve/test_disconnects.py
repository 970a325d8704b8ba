"""Clients that hang up: nothing stays behind in the ingress (tasks, descriptors,
requests in flight), and every aborted stream is settled in the ledger.

Their requests ask for synthesis (``"cache": false``): each hangs up on speech being
made, not on audio the speech cache would send at once."""

from __future__ import annotations

import contextlib
import json
import random
import socket
import sqlite3
import struct
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from serve_app.accounts import AccountStore, split_key
from tests.conftest import closed_hold, post_and_stop_reading, read_to_end
from tests.serve.conftest import Service, kokoro_calls, settled_calls
from tests.waiting import wait_until

pytestmark = pytest.mark.serve

LONG_HI = " ".join(f"यह वाक्य संख्या {i} है, और यह थोड़ा लंबा भी है।" for i in range(30))
ABORTED = 200


def replica(service: Service) -> dict[str, int]:
    """What the folded app's one ingress replica holds open now (/ready)."""
    ready = httpx.get(service.folded_url + "/ready", headers=service.auth, timeout=30)
    status: dict[str, int] = ready.json()["replica"]
    return status


def open_holds(service: Service) -> int:
    with contextlib.closing(sqlite3.connect(service.ledger, timeout=10)) as db:
        count: int = db.execute("SELECT COUNT(*) FROM holds WHERE state = 'open'").fetchone()[0]
    return count


def test_two_hundred_aborted_streams_leave_nothing_behind(service: Service) -> None:
    body = {"input": LONG_HI, "voice": "hi-espeak-aditi", "cache": False}
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
    seen = [before]

    def settled() -> bool:
        seen[0] = after = replica(service)
        idle = after["active_requests"] == 0 and open_holds(service) == 0
        return idle and after["asyncio_tasks"] <= before["asyncio_tasks"] + 2

    wait_until(
        settled,
        "the aborted streams' requests, holds and tasks gone",
        status=lambda: {"before": before, "now": seen[0], "open holds": open_holds(service)},
    )
    after = seen[0]
    assert after["open_fds"] <= before["open_fds"] + 4, (before, after)
    assert after["threads"] <= before["threads"] + 2, (before, after)


def test_a_reader_that_reads_nothing_holds_synthesis_back_and_is_let_go(
    service: Service,
) -> None:
    """Through HAProxy and the four-stage graph: a client that takes the first bytes of
    a forty-sentence text and then reads nothing has a few sentences synthesised (what
    the buffers between it and the Synthesiser hold), is disconnected after the send
    deadline, and is billed for what was sent."""
    text = " ".join(f"यह वाक्य संख्या {i} है, और यह थोड़ा लंबा भी है।" for i in range(40))
    # at 48 kHz, twice the bytes of the voice's own rate: the buffers fill sooner
    body = json.dumps({"input": text, "sample_rate": 48000, "cache": False}).encode()
    settled_calls(service)  # whatever an earlier test left speaking ends first
    started = time.time()
    host, port = service.url.removeprefix("http://").split(":")
    authorization = service.auth["Authorization"]
    sock, first = post_and_stop_reading(host, int(port), authorization, body)
    with sock:
        assert first.startswith(b"HTTP/1.1 200"), first
        at_first = kokoro_calls(service)
        state, audio_ms = closed_hold(service.ledger, started)  # while nothing more is read
        spoken = settled_calls(service) - at_first
        received = read_to_end(sock, first)
    assert spoken <= 12, spoken  # of forty (measured: 7, what the buffers hold)
    assert state == "settled" and 0 < audio_ms < 30_000
    assert not received.endswith(b"0\r\n\r\n")  # cut off, not a complete response


def test_hang_ups_at_random_moments_leave_no_hold_open(service: Service) -> None:
    """200 requests, each reset by its client (SO_LINGER 0) soon after it is sent (most
    within 50 ms): some while the hold is being written. Once they are gone, no hold
    is open."""
    host, port = service.url.removeprefix("http://").split(":")
    body = json.dumps(
        {"input": "नमस्ते, आज का मौसम अच्छा है।", "voice": "hi-espeak-aditi", "cache": False}
    )
    request = (
        f"POST /v1/audio/speech HTTP/1.1\r\nHost: {host}\r\n"
        f"Authorization: {service.auth['Authorization']}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body.encode())}\r\n\r\n{body}"
    ).encode()
    rng = random.Random(40)
    started = time.time()

    def hang_up(delay_s: float | None) -> None:
        with socket.create_connection((host, int(port))) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.sendall(request)
            if delay_s is None:  # once the answer begins: its hold is written by then
                sock.settimeout(120)
                sock.recv(12)
            else:
                time.sleep(delay_s)

    # most within 50 ms (some while the hold is being written); a few as their answer
    # begins, so that some surely get as far as their hold however slow the machine is
    # this moment (on a slow hour none of 20 hung up 0.1-0.3 s after sending had)
    delays = [rng.uniform(0, 0.05) for _ in range(180)] + [None] * 20
    with ThreadPoolExecutor(20) as clients:
        list(clients.map(hang_up, delays))
    with contextlib.closing(sqlite3.connect(service.ledger, timeout=10)) as db:
        made = db.execute("SELECT COUNT(*) FROM holds WHERE created_at > ?", (started,))
        assert made.fetchone()[0] > 0  # some got as far as their hold
    wait_until(
        lambda: open_holds(service) == 0,
        "every hold of the hung-up requests settled",
        status=lambda: f"{open_holds(service)} holds open, the replica: {replica(service)}",
    )


def unproductive_ms(service: Service, key_id: str) -> float:
    with contextlib.closing(sqlite3.connect(service.ledger, timeout=10)) as db:
        row = db.execute(
            "SELECT debt_ms FROM unproductive_time WHERE key_id = ?", (key_id,)
        ).fetchone()
    return float(row[0]) if row else 0.0


def test_synthesis_that_makes_no_sound_spends_the_key_s_unproductive_budget(
    service: Service,
) -> None:
    """Through HAProxy and the four-stage graph: a request whose synthesis made no sound
    (IPA of no sound the voice has) is billed nothing and spends the time its synthesis
    ran from its key's budget (the tier's budget is too large to refuse anything:
    refusals, and hang-ups before the first audio, are the unit tier's); a request
    that is heard spends none."""
    store = AccountStore.open(service.database_url)
    token = store.create_key(store.create_project(f"no-sound-{time.time_ns()}", 10_000_000))
    store.close()
    key_id, auth = split_key(token)[0], {"Authorization": f"Bearer {token}"}
    heard = httpx.post(
        service.url + "/v1/audio/speech", headers=auth, json={"input": "नमस्ते।"}, timeout=60
    )
    assert heard.status_code == 200 and heard.content
    assert unproductive_ms(service, key_id) == 0
    body = {
        "input": "<speak><phoneme alphabet='ipa' ph='😀'>x</phoneme></speak>",
        "text_type": "ssml",
    }
    silent = httpx.post(service.url + "/v1/audio/speech", headers=auth, json=body, timeout=60)
    assert silent.status_code == 400 and silent.json()["error"]["code"] == "empty_input"
    # recorded as the request settles
    wait_until(
        lambda: unproductive_ms(service, key_id) > 0,
        "the silent synthesis recorded",
        interval_s=0.1,
    )
