"""Generation controls other APIs' clients send: ``apply_text_normalization`` (ours,
ElevenLabs' body and WebSocket query) and ``seed`` (accepted; Kokoro is deterministic,
so the same request gives the same audio). eSpeak NG is not quite: its waveform carries
state from one utterance to the next (the same sentence 54,216-54,456 samples, every
sample from the 64th on different)."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import httpx
from elevenlabs.client import AsyncElevenLabs
from starlette.testclient import TestClient

from serve_app.ingress.api import create_app
from serve_app.ingress.state import IngressState
from tests.unit.serve_app.conftest import DEV_KEY, make_state

TEXT = "मुझे 25 किलो चावल चाहिए।"


async def test_normalisation_off_leaves_numbers_to_the_voice(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    preview = {"input": TEXT, "apply_text_normalization": "off"}
    said = (await client.post("/v1/text/normalize", headers=auth, json=preview)).json()
    assert "25" in said["text"]
    read = (await client.post("/v1/text/normalize", headers=auth, json={"input": TEXT})).json()
    assert "पच्चीस" in read["text"]
    response = await client.post("/v1/audio/speech", headers=auth, json=preview)
    assert response.status_code == 200 and len(response.content) > 24000
    bad = await client.post(
        "/v1/audio/speech", headers=auth, json={**preview, "apply_text_normalization": "never"}
    )
    assert bad.status_code == 400 and bad.json()["error"]["param"] == "apply_text_normalization"


async def test_the_same_request_with_a_seed_gives_the_same_audio(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    body = {"input": TEXT, "seed": 42, "stream": False, "response_format": "wav"}
    first = await client.post("/v1/audio/speech", headers=auth, json=body)
    again = await client.post("/v1/audio/speech", headers=auth, json=body)
    other = await client.post("/v1/audio/speech", headers=auth, json={**body, "seed": 7})
    assert first.status_code == 200 and first.content == again.content == other.content


async def test_elevenlabs_clients_send_both(state: IngressState) -> None:
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(state)))
    sdk = AsyncElevenLabs(api_key=DEV_KEY, base_url="http://test", httpx_client=http)

    async def spoken(**fields: Any) -> Any:  # eSpeak: the fields, not the voice, under test
        return await sdk.text_to_speech.convert_with_timestamps(
            "hi-espeak-aditi", text=TEXT, output_format="pcm_24000", **fields
        )

    off = await spoken(apply_text_normalization="off", seed=3)
    on = await spoken(apply_text_normalization="on", seed=3)
    assert off.alignment is not None and on.alignment is not None
    assert "25" in "".join(off.alignment.characters)
    assert "पच्चीस" in "".join(on.alignment.characters)
    capabilities = (
        await http.get("http://test/v1/capabilities", headers={"xi-api-key": DEV_KEY})
    ).json()
    ignored = capabilities["compatibility"]["elevenlabs"]["ignored_fields"]
    assert "apply_text_normalization" not in ignored and "seed" in ignored


def test_websockets_take_it_in_the_query(tmp_path: Path) -> None:
    client = TestClient(create_app(make_state(tmp_path)))
    for url in (
        "/v1/audio/speech/stream-input/hi-espeak-aditi?apply_text_normalization=off",
        "/v1/text-to-speech/hi-espeak-aditi/stream-input?apply_text_normalization=off"
        "&language_code=hi",
    ):
        with client.websocket_connect(url, headers={"Authorization": f"Bearer {DEV_KEY}"}) as ws:
            ws.send_json({"text": " "})
            ws.send_json({"text": TEXT + " "})
            ws.send_json({"text": ""})
            messages = []
            while not (message := ws.receive_json()).get("isFinal"):
                messages.append(message)
        chars = "".join(c for m in messages if m["alignment"] for c in m["alignment"]["chars"])
        assert "25" in chars, url
        assert b"".join(base64.b64decode(m["audio"]) for m in messages)
