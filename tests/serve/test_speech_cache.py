"""The speech cache through the whole service (HAProxy, two ingress replicas, the
TextNormaliser, the AudioEncoder and the Synthesiser deployments, Kokoro): a prompt
spoken once is heard again from the cache on every surface, through either replica
(the second hears the first's from the shared store), without a call to the model;
a prompt with a new sentence synthesises only that sentence, across the AudioEncoder;
a WebSocket's repeated text is heard from it too; another project hears nothing."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from pathlib import Path

import httpx
import openai
import pytest
from websockets.asyncio.client import connect

from serve_app.accounts import AccountStore
from tests.conftest import pcm_seconds
from tests.serve.conftest import Service, kokoro_calls, settled_calls
from tests.waiting import wait_until

pytestmark = pytest.mark.serve

PROMPT = "नमस्ते, हमें कॉल करने के लिए धन्यवाद। बिल के लिए एक दबाएँ।"  # two sentences
NEW = "रिचार्ज के लिए दो दबाएँ।"


def new_project(service: Service, name: str) -> tuple[str, dict[str, str]]:
    """A project of its own (nothing else in the tier speaks its texts) and its key."""
    store = AccountStore.open(service.database_url)
    project = store.create_project(f"{name}-{time.time_ns()}", 100_000_000)
    token = store.create_key(project)
    store.close()
    return project, {"Authorization": f"Bearer {token}"}


def stored(service: Service, project: str) -> int:
    """Entries of ``project`` in the shared tier (the long-form audio store's folder)."""
    folder = Path(service.longform_path) / "speech-cache" / project
    return sum(1 for p in folder.glob("*") if p.is_file() and not p.name.endswith(".part"))


def kept(service: Service, project: str, entries: int) -> None:
    """Wait until ``project`` has ``entries`` entries in the shared tier (each written
    as its sentence is whole; the next request may go to the other ingress replica)."""
    wait_until(
        lambda: stored(service, project) >= entries,
        f"{entries} entries in the shared store",
        interval_s=0.05,
        status=lambda: stored(service, project),
    )


def speak(service: Service, auth: dict[str, str], **body: object) -> httpx.Response:
    response = httpx.post(
        service.url + "/v1/audio/speech", headers=auth, json={"input": PROMPT, **body}, timeout=120
    )
    assert response.status_code == 200, response.text
    return response


def test_a_prompt_is_heard_from_the_cache_on_every_http_surface(service: Service) -> None:
    project, auth = new_project(service, "cache-http")
    first = speak(service, auth)
    assert first.headers["x-service-cache"] == "miss"
    kept(service, project, 2)
    calls = settled_calls(service)
    # through either ingress replica: one has it in memory, the other from the store
    again = [speak(service, auth) for _ in range(4)]
    assert {r.headers["x-service-cache"] for r in again} == {"hit"}
    assert all(r.content == first.content for r in again)
    sse = speak(service, auth, stream_format="sse", response_format="mp3")
    assert sse.headers["x-service-cache"] == "hit" and "audio.done" in sse.text
    sdk = openai.OpenAI(api_key=auth["Authorization"][7:], base_url=service.url + "/v1")
    with sdk:
        answer = sdk.audio.speech.with_raw_response.create(
            model="tts-1", voice="default", input=PROMPT, response_format="wav"
        )
    assert answer.headers["x-service-cache"] == "hit" and answer.content[:4] == b"RIFF"
    eleven = httpx.post(
        service.url + "/v1/text-to-speech/default/stream?output_format=pcm_24000",
        headers={"xi-api-key": auth["Authorization"][7:]},
        json={"text": PROMPT, "model_id": "eleven_flash_v2_5"},
        timeout=120,
    )
    assert eleven.status_code == 200 and eleven.headers["x-service-cache"] == "hit"
    assert kokoro_calls(service) == calls  # no hit reached the model

    _, other = new_project(service, "cache-other")
    # no project hears another's audio
    assert speak(service, other).headers["x-service-cache"] == "miss"


def test_a_prompt_with_a_new_sentence_synthesises_only_that_one(service: Service) -> None:
    project, auth = new_project(service, "cache-partial")
    heard = speak(service, auth)
    kept(service, project, 2)
    calls = settled_calls(service)
    both = speak(service, auth, input=f"{PROMPT} {NEW}")
    assert both.headers["x-service-cache"] == "partial"
    assert settled_calls(service) - calls == 1  # the new sentence, one call
    assert both.content.startswith(heard.content)  # the cached sentences, as they were
    assert pcm_seconds(both.content, 24000) > pcm_seconds(heard.content, 24000) + 0.5


async def ws_session(service: Service, auth: dict[str, str], text: str) -> bytes:
    """Our stream-input WebSocket with the default voice, ``text`` in two messages."""
    url = service.url.replace("http://", "ws://") + "/v1/audio/speech/stream-input/default"
    audio = b""
    async with connect(url + "?auto_mode=true", additional_headers=auth) as ws:
        half = len(text) // 2
        await ws.send(json.dumps({"text": text[:half]}))
        await ws.send(json.dumps({"text": text[half:] + " ", "flush": True}))
        await ws.send(json.dumps({"text": ""}))
        async for raw in ws:
            message = json.loads(raw)
            assert "error" not in message, message
            if message.get("isFinal"):
                break
            audio += base64.b64decode(message["audio"])
    return audio


def test_a_websocket_s_repeated_text_is_heard_from_the_cache(service: Service) -> None:
    project, auth = new_project(service, "cache-ws")
    first = asyncio.run(ws_session(service, auth, PROMPT))
    kept(service, project, 2)
    calls = settled_calls(service)
    for _ in range(2):  # through either ingress replica
        assert asyncio.run(ws_session(service, auth, PROMPT)) == first
    assert settled_calls(service) == calls
