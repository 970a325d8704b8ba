"""WS stream-input over real sockets to the running Serve application."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import time
from typing import Any

import httpx
import pytest
import websockets
from websockets.asyncio.client import ClientConnection, connect

from serve_app.accounts import AccountStore, split_key
from tests.conftest import decode, pcm_seconds
from tests.serve.conftest import Service

pytestmark = pytest.mark.serve

PARAGRAPH = "नमस्ते, मैं आपकी सहायक हूँ। आपका ऑर्डर कल शाम तक पहुँच जाएगा।"


def ws_url(service: Service, voice: str = "default", query: str = "") -> str:
    url = service.url.replace("http://", "ws://") + f"/v1/audio/speech/stream-input/{voice}"
    return url + (f"?{query}" if query else "")


async def collect(ws: ClientConnection) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Audio messages until the final one; checks the close that follows."""
    audio = []
    async for raw in ws:
        message = json.loads(raw)
        if message.get("isFinal"):
            with pytest.raises(websockets.ConnectionClosedOK):
                await ws.recv()
            return audio, message
        assert "error" not in message, message
        audio.append(message)
    raise AssertionError("the socket closed without a final message")


async def stream_words(
    service: Service, text: str, query: str = "", voice: str = "default", **first: Any
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    url = ws_url(service, voice=voice, query=query)
    async with connect(url, additional_headers=service.auth) as ws:
        await ws.send(json.dumps({"text": " ", **first}))
        for word in text.split(" "):
            await ws.send(json.dumps({"text": word + " "}))
        await ws.send(json.dumps({"text": ""}))
        return await collect(ws)


@pytest.mark.parametrize("voice", ["default", "hi-espeak-aditi"])
def test_word_by_word_matches_one_http_request(service: Service, voice: str) -> None:
    audio, final = asyncio.run(stream_words(service, PARAGRAPH, voice=voice))
    assert [m["index"] for m in audio] == list(range(len(audio))) and len(audio) >= 3
    pcm = b"".join(base64.b64decode(m["audio"]) for m in audio)
    http = httpx.post(
        service.url + "/v1/audio/speech",
        headers=service.auth,
        json={"input": PARAGRAPH, "stream": False, "voice": voice},
        timeout=60,
    )
    rate = int(http.headers["x-service-sample-rate"])
    ws_seconds, http_seconds = pcm_seconds(pcm, rate), pcm_seconds(http.content, rate)
    assert abs(ws_seconds - http_seconds) < 0.15 * http_seconds
    assert final["usage"]["characters"] >= len(PARAGRAPH.rstrip())
    assert final["usage"]["audio_ms"] == int(ws_seconds * 1000)
    alignment = audio[0]["alignment"]  # Kokoro from its durations, eSpeak from its events
    assert alignment and "".join(alignment["chars"]).strip()
    assert (
        len(alignment["chars"])
        == len(alignment["charStartTimesMs"])
        == len(alignment["charDurationsMs"])
    )
    assert alignment["charStartTimesMs"] == sorted(alignment["charStartTimesMs"])


def test_mp3_session_is_one_continuous_stream(service: Service) -> None:
    audio, final = asyncio.run(stream_words(service, PARAGRAPH, query="response_format=mp3"))
    samples, rate = decode(b"".join(base64.b64decode(m["audio"]) for m in audio))
    assert rate == 24000
    assert abs(samples.size / rate * 1000 - final["usage"]["audio_ms"]) < 200


async def _flush_then_more(service: Service) -> None:
    async with connect(ws_url(service), additional_headers=service.auth) as ws:
        await ws.send(json.dumps({"text": " "}))
        await ws.send(json.dumps({"text": "पहला हिस्सा बिना विराम", "flush": True}))
        first = json.loads(await asyncio.wait_for(ws.recv(), 30))  # before any more text
        assert first["index"] == 0 and first["audio"]
        await ws.send(json.dumps({"text": "दूसरा हिस्सा।"}))
        await ws.send(json.dumps({"text": ""}))
        audio, final = await collect(ws)
        assert final["usage"]["characters"] > len("पहला हिस्सा बिना विराम")
        assert [m["index"] for m in audio] == list(range(1, len(audio) + 1))


def test_flush_forces_audio_out_before_more_text(service: Service) -> None:
    asyncio.run(_flush_then_more(service))


def test_audio_keeps_input_order(service: Service) -> None:
    sentences = ["एक।", "यह दूसरा वाक्य थोड़ा लंबा है और इसमें अधिक शब्द हैं।", "तीन।"]

    async def run() -> list[int]:
        async with connect(ws_url(service), additional_headers=service.auth) as ws:
            await ws.send(json.dumps({"text": " "}))
            for sentence in sentences:
                await ws.send(json.dumps({"text": sentence + " ", "flush": True}))
            await ws.send(json.dumps({"text": ""}))
            audio, _ = await collect(ws)
        return [len(base64.b64decode(m["audio"])) for m in audio]

    sizes = asyncio.run(run())
    assert len(sizes) == 3 and sizes[1] > 2 * sizes[0] and sizes[1] > 2 * sizes[2]


async def _error(
    service: Service,
    *frames: object,
    headers: dict[str, str] | None = None,
    voice: str = "default",
    query: str = "",
) -> tuple[dict[str, Any], int]:
    async with connect(ws_url(service, voice, query), additional_headers=headers or {}) as ws:
        for frame in frames:
            with contextlib.suppress(websockets.ConnectionClosed):  # the server may not wait
                await ws.send(frame if isinstance(frame, str) else json.dumps(frame))
        message = json.loads(await asyncio.wait_for(ws.recv(), 30))
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 30)
    assert closed.value.rcvd is not None
    return message["error"], closed.value.rcvd.code


@pytest.mark.parametrize(
    ("frames", "kwargs", "code"),
    [
        (["{not json"], {}, "invalid_json"),
        ([{"text": " ", "colour": "blue"}], {}, "unknown_field"),
        ([{"text": " "}, {"text": "x" * 70_000}], {}, "body_too_large"),
        ([{"text": " "}], {"voice": "ghost"}, "voice_not_found"),
        ([{"text": " "}], {"query": "language=xx"}, "unsupported_language"),
        ([{"text": " "}], {"query": "api_key=sk"}, "unknown_field"),
        ([{"text": " ", "authorization": "Bearer wrong"}], {"auth": False}, "invalid_api_key"),
        ([{"text": " "}], {"auth": False}, "missing_api_key"),
    ],
)
def test_errors_get_a_frame_and_close_1008(
    service: Service, frames: list[object], kwargs: dict[str, Any], code: str
) -> None:
    headers = service.auth if kwargs.pop("auth", True) else {}
    error, close_code = asyncio.run(_error(service, *frames, headers=headers, **kwargs))
    assert error["code"] == code and close_code == 1008
    assert set(error) == {"message", "type", "code", "param", "request_id"}


def test_key_in_the_first_message_and_revoked_keys(service: Service) -> None:
    audio, final = asyncio.run(
        stream_words(service, "नमस्ते।", authorization=f"Bearer {service.key}")
    )
    assert audio and final["usage"]["characters"] > 0
    store = AccountStore.open(service.database_url)
    token = store.create_key(store.create_project(f"revoked-{time.time_ns()}", 10_000_000))
    store.revoke_key(split_key(token)[0])
    store.close()
    error, code = asyncio.run(
        _error(service, {"text": " "}, headers={"Authorization": f"Bearer {token}"})
    )
    assert (error["code"], code) == ("invalid_api_key", 1008)


def test_idle_socket_is_closed_after_the_timeout(service: Service) -> None:
    async def run() -> tuple[float, int]:
        async with connect(
            ws_url(service, query="inactivity_timeout=1"), additional_headers=service.auth
        ) as ws:
            started = time.monotonic()
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 30)
            assert closed.value.rcvd is not None
            return time.monotonic() - started, closed.value.rcvd.code

    waited, code = asyncio.run(run())
    # The server's second starts when it accepts, a moment before the client's does.
    assert code == 1000 and waited >= 0.8


def test_usage_after_a_session_equals_what_was_sent(service: Service) -> None:
    def usage() -> dict[str, int]:
        response = httpx.get(service.url + "/v1/account/usage", headers=service.auth, timeout=60)
        result: dict[str, int] = response.json()["usage"]
        return result

    before = usage()
    _, final = asyncio.run(stream_words(service, "आज मौसम बहुत अच्छा है।"))
    after = usage()
    assert after["requests"] == before["requests"] + 1
    assert after["audio_ms"] - before["audio_ms"] == final["usage"]["audio_ms"]
    assert after["characters"] - before["characters"] == final["usage"]["characters"]
    assert (
        after["spent_deci_micros"] - before["spent_deci_micros"]
        == final["usage"]["cost_deci_micros"]
    )


def test_twenty_concurrent_sessions(service: Service) -> None:
    # Sessions, not synthesis, are under test: the eSpeak voice keeps it quick.
    async def run() -> list[tuple[list[dict[str, Any]], dict[str, Any]]]:
        sessions = (stream_words(service, PARAGRAPH, voice="hi-espeak-aditi") for _ in range(20))
        return await asyncio.gather(*sessions)

    results = asyncio.run(run())
    durations = {final["usage"]["audio_ms"] for _, final in results}
    assert len(results) == 20 and all(audio for audio, _ in results)
    assert max(durations) - min(durations) < 0.02 * max(durations)
