"""Usage and balance after speech in every delivery mode, on both ledger backends."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import httpx

from serve_app.accounts import split_key
from serve_app.ingress.api import create_app
from tests.conftest import decode, pcm_seconds
from tests.unit.serve_app.conftest import DEV_KEY, ESPEAK, make_state

TEXTS = ("नमस्ते, आप कैसे हैं?", "आज मौसम अच्छा है।", "Hello there.", "धन्यवाद!")
PRICE = 150
# Metering is under test, not the voice: eSpeak's voices answer in milliseconds.


def rate_of(response: httpx.Response) -> int:
    return int(response.headers["x-service-sample-rate"])


def sse_data(response: httpx.Response) -> list[dict[str, object]]:
    lines = response.text.splitlines()
    return [json.loads(line.removeprefix("data: ")) for line in lines if line.startswith("data: ")]


async def test_usage_equals_what_the_client_received(tmp_path: Path, database_url: str) -> None:
    state = make_state(tmp_path, database_url=database_url)
    auth = {"Authorization": f"Bearer {DEV_KEY}"}
    transport = httpx.ASGITransport(app=create_app(state))
    received_ms = 0
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        raw = await client.post(
            "/v1/audio/speech", headers=auth, json={"input": TEXTS[0], "voice": ESPEAK}
        )
        received_ms += int(pcm_seconds(raw.content, rate_of(raw)) * 1000)

        sse = await client.post(
            "/v1/audio/speech",
            headers=auth,
            json={"input": TEXTS[1], "voice": ESPEAK, "stream_format": "sse"},
        )
        events = [
            json.loads(line[6:]) for line in sse.text.splitlines() if line.startswith("data:")
        ]
        audio = b"".join(base64.b64decode(e["delta"]) for e in events[:-1])
        assert events[-1]["usage"]["audio_ms"] == int(pcm_seconds(audio, rate_of(sse)) * 1000)
        received_ms += events[-1]["usage"]["audio_ms"]

        wav = await client.post(
            "/v1/audio/speech",
            headers=auth,
            json={
                "input": TEXTS[2],
                "voice": "en-female-kavya",
                "response_format": "wav",
                "stream": False,
            },
        )
        samples, rate = decode(wav.content)
        received_ms += samples.size * 1000 // rate
        assert wav.headers["x-service-cost-deci-micros"] == str(PRICE * len(TEXTS[2]))

        mp3 = await client.post(
            "/v1/audio/speech",
            headers=auth,
            json={
                "input": TEXTS[3],
                "voice": ESPEAK,
                "response_format": "mp3",
                "stream_format": "sse",
            },
        )
        received_ms += sse_data(mp3)[-1]["usage"]["audio_ms"]

        refused = await client.post(
            "/v1/audio/speech", headers=auth, json={"input": "x", "voice": "?"}
        )
        assert refused.status_code == 400

        usage = (await client.get("/v1/account/usage", headers=auth)).json()
    characters = sum(len(t) for t in TEXTS)
    assert usage == {
        "balance_deci_micros": 100_000_000 - PRICE * characters,
        "usage": {
            "requests": 4,
            "characters": characters,
            "audio_ms": usage["usage"]["audio_ms"],
            "spent_deci_micros": PRICE * characters,
        },
    }
    assert usage["usage"]["audio_ms"] == received_ms
    assert state.store.usage(state.store.find_project("dev")).held == 0


async def test_revoked_key_stops_at_once(tmp_path: Path) -> None:
    state = make_state(tmp_path)
    project = state.store.create_project("acme", 1_000_000)
    token = state.store.create_key(project)
    auth = {"Authorization": f"Bearer {token}"}
    transport = httpx.ASGITransport(app=create_app(state))
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        assert (await client.get("/v1/models", headers=auth)).status_code == 200
        state.store.revoke_key(split_key(token)[0])
        response = await client.get("/v1/models", headers=auth)
    assert response.status_code == 401 and response.json()["error"]["code"] == "invalid_api_key"
    assert token not in response.text
