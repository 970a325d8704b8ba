"""The ingress's ASGI middleware over real sockets: uvicorn serving the app with the
real pipeline in process, and clients whose receive buffers are small."""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect

from serve_app.http.middleware import repeated_parameter
from tests.conftest import closed_hold, post_and_stop_reading, read_to_end, small_socket
from tests.unit.serve_app.conftest import DEV_KEY, served_app

SEND_TIMEOUT_S = 1.5
# 74 s of audio from eSpeak (~1000x real time, all of it at once if nothing holds it
# back); a reader that reads nothing gets ~8 s (PCM) or ~12 s (WebSocket messages)
# through 128 KB send buffers, 74 s through Linux's own.
LONG_TEXT = " ".join(f"यह वाक्य संख्या {i} है, और यह थोड़ा लंबा भी है।" for i in range(80))
PCM_BYTES_PER_S = 24000 * 2


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """(port, ledger) of the app under uvicorn with a short send deadline."""
    with served_app(tmp_path, send_timeout_s=SEND_TIMEOUT_S) as port:
        yield port, tmp_path / "ledger.sqlite3"


def test_a_reader_that_reads_nothing_is_disconnected_and_billed_what_it_took(
    served: tuple[int, Path],
) -> None:
    port, ledger = served
    body = json.dumps({"input": LONG_TEXT, "voice": "hi-espeak-aditi"}).encode()
    sock, first = post_and_stop_reading("127.0.0.1", port, f"Bearer {DEV_KEY}", body)
    with sock:
        assert first.startswith(b"HTTP/1.1 200")
        state, audio_ms = closed_hold(ledger)  # while the client reads nothing more
        response = read_to_end(sock, first)
    # The server gave up: the chunked body never ends, and what was sent is billed.
    assert state == "settled" and not response.endswith(b"0\r\n\r\n")
    audio_bytes = len(response.partition(b"\r\n\r\n")[2])  # with the chunks' framing
    assert 0 < audio_ms * PCM_BYTES_PER_S // 1000 <= audio_bytes
    assert audio_ms < 20_000


async def test_a_websocket_that_reads_nothing_is_disconnected_and_billed_what_it_took(
    served: tuple[int, Path],
) -> None:
    port, ledger = served
    url = f"ws://127.0.0.1:{port}/v1/audio/speech/stream-input/hi-espeak-aditi"
    headers = {"Authorization": f"Bearer {DEV_KEY}"}
    async with connect(
        url,
        sock=small_socket("127.0.0.1", port),
        additional_headers=headers,
        max_queue=1,
        max_size=None,
    ) as ws:
        await ws.send(json.dumps({"text": LONG_TEXT + " "}))
        await ws.send(json.dumps({"text": ""}))
        first = json.loads(await ws.recv())
        assert first["audio"]
        state, audio_ms = closed_hold(ledger)  # while the client reads nothing more
        messages = [first]
        with contextlib.suppress(Exception):  # the connection ends without a close frame
            async for message in ws:
                messages.append(json.loads(message))
    assert state == "settled" and 0 < audio_ms < 20_000
    assert not any(message.get("isFinal") for message in messages)


@pytest.mark.parametrize("behind_proxy", [False, True])
def test_an_http_1_0_client_gets_the_stream_whole_with_its_length(
    served: tuple[int, Path], behind_proxy: bool
) -> None:
    """Directly (the request's own version) or behind HAProxy (which speaks HTTP/1.1 to
    the ingress and names the client's version): no chunked coding for HTTP/1.0."""
    port, _ = served
    body = json.dumps({"input": "नमस्ते, आज का मौसम अच्छा है।", "voice": "hi-espeak-aditi"})
    version, named = ("1.1", "X-Client-HTTP-Version: 1.0\r\n") if behind_proxy else ("1.0", "")
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(
            (
                f"POST /v1/audio/speech HTTP/{version}\r\nHost: x\r\n{named}"
                f"Authorization: Bearer {DEV_KEY}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body.encode())}\r\nConnection: close\r\n\r\n{body}"
            ).encode()
        )
        answer = read_to_end(sock)
    head, _, audio = answer.partition(b"\r\n\r\n")
    headers = dict(
        line.split(": ", 1) for line in head.decode().lower().split("\r\n")[1:] if ": " in line
    )
    assert head.split(b" ")[1] == b"200" and "transfer-encoding" not in headers, head
    assert int(headers["content-length"]) == len(audio) > 24_000


async def test_a_query_that_names_a_parameter_twice_is_400(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    """Which of two values a route would use is a guess (Starlette takes the last):
    refused, naming the parameter, before any route reads it."""
    twice = await client.get("/v1/pronunciation-dictionaries?cursor=a&cursor=b", headers=auth)
    assert twice.status_code == 400, twice.text
    error = twice.json()["error"]
    assert (error["code"], error["param"]) == ("invalid_value", "cursor")
    once = await client.get("/v1/pronunciation-dictionaries?cursor=a&page_size=2", headers=auth)
    assert once.status_code == 200, once.text
    assert repeated_parameter(b"a=1&b=&a=2") == "a" and repeated_parameter(b"a=1&b=2") is None
