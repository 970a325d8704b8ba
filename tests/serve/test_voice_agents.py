"""What a voice agent needs of the running Serve application, over real sockets:
phoneme timings and visemes in SSE events, a named flush acknowledged after its last
audio, and a barge-in (``clear``) that stops the audio and bills what arrived."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from tests.conftest import pcm_seconds, sse_events
from tests.serve.conftest import Service, usage, usage_after

pytestmark = pytest.mark.serve

TEXT = "मुझे 25 किलो चावल चाहिए।"
LONG = (
    "नमस्ते, आपका ऑर्डर कल शाम तक पहुँच जाएगा। कृपया घर पर रहें। डिलीवरी से पहले हम आपको फ़ोन "
    "करेंगे। भुगतान नकद या कार्ड से हो सकता है। धन्यवाद, आपका दिन शुभ हो। कोई प्रश्न हो तो हमें "
    "लिखें। हम चौबीस घंटे आपकी सेवा में हैं। फिर मिलेंगे।"
)


def test_sse_carries_phonemes_and_visemes(service: Service) -> None:
    body = {"input": TEXT, "stream_format": "sse", "phoneme_timestamps": True}
    response = httpx.post(
        service.url + "/v1/audio/speech", headers=service.auth, json=body, timeout=60
    )
    deltas = [e for e in sse_events(response.text) if e["type"] == "audio.delta"]
    phonemes = [p for d in deltas for p in d["phonemes"]["phonemes"]]
    words = {
        TEXT[a:b]
        for d in deltas
        for a, b in zip(d["phonemes"]["wordStarts"], d["phonemes"]["wordEnds"], strict=True)
    }
    assert len(phonemes) >= 15 and {"मुझे", "25", "चावल"} <= words
    assert {"PP", "sil"} <= {v for d in deltas for v in d["visemes"]["visemes"]}


async def barge_in(service: Service) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    # the answer synthesised as it plays (not sent at once from the speech cache)
    url = service.url.replace("http://", "ws://") + "/v1/audio/speech/stream-input/default"
    async with connect(url + "?cache=false", additional_headers=service.auth) as ws:
        await ws.send(json.dumps({"text": " "}))
        await ws.send(json.dumps({"text": "नमस्ते। ", "flush_id": "greeting"}))
        heard: list[dict[str, Any]] = []
        while not (message := json.loads(await ws.recv())).get("flushDone"):
            heard.append(message)
        assert message["flushId"] == "greeting" and heard
        await ws.send(json.dumps({"text": LONG + " ", "flush": True}))
        heard.append(json.loads(await ws.recv()))  # the answer has begun
        await ws.send(json.dumps({"clear": True}))
        while not (message := json.loads(await ws.recv())).get("cleared"):
            assert "error" not in message, message
            heard.append(message)
        await ws.send(json.dumps({"text": ""}))
        while not (message := json.loads(await ws.recv())).get("isFinal"):
            heard.append(message)
        return heard, message


def test_a_barge_in_stops_the_answer_and_bills_what_arrived(service: Service) -> None:
    before = usage(service.url, service.auth)
    heard, final = asyncio.run(barge_in(service))
    pcm = b"".join(base64.b64decode(m["audio"]) for m in heard if m.get("audio"))
    assert pcm_seconds(pcm, 24000) < 12.0  # the whole answer is ~20 s
    assert final["usage"]["audio_ms"] == int(pcm_seconds(pcm, 24000) * 1000)
    after = usage_after(service.url, service.auth, before["requests"] + 1)
    assert after["audio_ms"] - before["audio_ms"] == final["usage"]["audio_ms"]
    assert after["characters"] - before["characters"] == final["usage"]["characters"]
    assert final["usage"]["characters"] < len(LONG) // 2
