"""The speech cache behind every surface, in process with a real eSpeak voice: ours
(raw, SSE, buffered), OpenAI's through its own SDK, ElevenLabs' routes and both
WebSockets hear a repeated prompt from the cache (x-service-cache: hit) as they first
heard it; a client keeps a request out of it; no project hears another's."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import httpx2
import openai
import pytest
from starlette.testclient import TestClient

from serve_app.accounts import split_key
from serve_app.ingress.api import create_app
from serve_app.ingress.state import IngressState
from serve_app.speech.cache import MemoryCache, MemoryStats
from serve_app.speech.metrics import NullMetrics
from tests.unit.serve_app.conftest import DEV_KEY, ESPEAK, make_state

PROMPT = "नमस्ते, हमें कॉल करने के लिए धन्यवाद। बिल के लिए एक दबाएँ।"
OTHER_KEY = "sk-proj-unittest02-abcdefghijklmnopqrstuvwxyz012345"


@pytest.fixture
def state(tmp_path: Path) -> IngressState:
    state = make_state(tmp_path, speech_cache_mb=64)
    other = state.store.create_project("other", 10**8)
    state.store.add_key(OTHER_KEY, other)
    return state


@pytest.fixture
async def client(state: IngressState) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(state))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c


def bearer(key: str = DEV_KEY) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def sse_audio(body: str) -> bytes:
    """The audio of an SSE answer's ``audio.delta`` events."""
    deltas = [json.loads(line[5:]) for line in body.splitlines() if line.startswith("data:")]
    return b"".join(base64.b64decode(d["delta"]) for d in deltas if "delta" in d)


@pytest.mark.parametrize(
    ("fields", "audio_of"),
    [
        pytest.param({}, lambda r: r.content, id="raw pcm"),
        pytest.param({"stream_format": "sse"}, lambda r: sse_audio(r.text), id="sse"),
        pytest.param(
            {"stream": False, "response_format": "wav"}, lambda r: r.content, id="buffered wav"
        ),
        pytest.param({"response_format": "mp3"}, lambda r: r.content, id="raw mp3"),
    ],
)
async def test_our_route_hears_a_repeated_prompt_from_the_cache(
    client: httpx.AsyncClient, fields: dict[str, object], audio_of: object
) -> None:
    body = {"input": PROMPT, "voice": ESPEAK, **fields}
    first = await client.post("/v1/audio/speech", headers=bearer(), json=body)
    again = await client.post("/v1/audio/speech", headers=bearer(), json=body)
    assert first.status_code == again.status_code == 200, first.text
    assert first.headers["x-service-cache"] == "miss"
    assert again.headers["x-service-cache"] == "hit"
    assert callable(audio_of)
    assert audio_of(again) == audio_of(first) and audio_of(first)


async def test_one_entry_serves_every_format_and_rate(client: httpx.AsyncClient) -> None:
    body = {"input": PROMPT, "voice": ESPEAK}
    await client.post("/v1/audio/speech", headers=bearer(), json=body)
    for fields in ({"response_format": "mp3"}, {"sample_rate": 8000}, {"response_format": "ulaw"}):
        response = await client.post("/v1/audio/speech", headers=bearer(), json={**body, **fields})
        assert response.headers["x-service-cache"] == "hit", fields


async def test_openai_s_sdk_hears_it_from_the_cache(state: IngressState) -> None:
    http = httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=create_app(state)), base_url="http://test"
    )
    sdk = openai.AsyncOpenAI(api_key=DEV_KEY, base_url="http://test/v1", http_client=http)
    async with sdk:
        answers = [
            await sdk.audio.speech.with_raw_response.create(
                model="tts-1", voice=ESPEAK, input=PROMPT, response_format="mp3"
            )
            for _ in range(2)
        ]
    assert [a.headers["x-service-cache"] for a in answers] == ["miss", "hit"]
    assert answers[0].content == answers[1].content


async def test_elevenlabs_routes_hear_it_from_the_cache_timestamps_included(
    client: httpx.AsyncClient,
) -> None:
    url = f"/v1/text-to-speech/{ESPEAK}/stream?output_format=pcm_16000"
    body = {"text": PROMPT, "model_id": "eleven_flash_v2_5"}
    key = {"xi-api-key": DEV_KEY}
    first = await client.post(url, headers=key, json=body)
    again = await client.post(url, headers=key, json=body)
    assert [first.headers["x-service-cache"], again.headers["x-service-cache"]] == ["miss", "hit"]
    assert again.content == first.content
    timed = f"/v1/text-to-speech/{ESPEAK}/with-timestamps?output_format=pcm_16000"
    # kept with every timing though the first request asked for none
    hit = await client.post(timed, headers=key, json=body)
    fresh = await client.post(timed, headers={**key, "Cache-Control": "no-cache"}, json=body)
    assert [hit.headers["x-service-cache"], fresh.headers["x-service-cache"]] == ["hit", "off"]
    cached, spoken = hit.json()["alignment"], fresh.json()["alignment"]
    assert cached["characters"] and cached["characters"] == spoken["characters"]
    # (eSpeak NG's audio may differ by a sample or so from one synthesis to the next)
    starts = "character_start_times_seconds"
    times = zip(cached[starts], spoken[starts], strict=True)
    assert all(abs(ours - theirs) < 0.01 for ours, theirs in times)


async def test_a_client_keeps_a_request_out_of_the_cache(client: httpx.AsyncClient) -> None:
    body = {"input": PROMPT, "voice": ESPEAK}
    skipped = await client.post("/v1/audio/speech", headers=bearer(), json={**body, "cache": False})
    assert skipped.headers["x-service-cache"] == "off"
    told = await client.post(
        "/v1/audio/speech", headers={**bearer(), "Cache-Control": "no-cache"}, json=body
    )
    assert told.headers["x-service-cache"] == "off"
    first = await client.post("/v1/audio/speech", headers=bearer(), json=body)
    assert first.headers["x-service-cache"] == "miss"  # neither of them kept it


async def test_no_project_hears_another_s_cache(client: httpx.AsyncClient) -> None:
    body = {"input": PROMPT, "voice": ESPEAK}
    mine = [await client.post("/v1/audio/speech", headers=bearer(), json=body) for _ in range(2)]
    theirs = await client.post("/v1/audio/speech", headers=bearer(OTHER_KEY), json=body)
    assert [r.headers["x-service-cache"] for r in mine] == ["miss", "hit"]
    assert theirs.headers["x-service-cache"] == "miss"


async def test_a_hit_is_billed_as_any_request(client: httpx.AsyncClient) -> None:
    body = {"input": PROMPT, "voice": ESPEAK, "stream": False, "response_format": "wav"}
    costs = [
        (await client.post("/v1/audio/speech", headers=bearer(), json=body)).headers
        for _ in range(2)
    ]
    assert [c["x-service-cache"] for c in costs] == ["miss", "hit"]
    assert costs[0]["x-service-cost-deci-micros"] == costs[1]["x-service-cost-deci-micros"] != "0"


async def test_a_dictionary_that_changes_is_heard_at_once_its_old_audio_forgotten(
    client: httpx.AsyncClient, state: IngressState
) -> None:
    rules = [{"type": "alias", "string_to_replace": "IVR", "alias": "आई वी आर"}]
    made = await client.post(
        "/v1/pronunciation-dictionaries/add-from-rules",
        headers=bearer(),
        json={"name": "words", "rules": rules},
    )
    assert made.status_code == 200, made.text
    dictionary = made.json()["id"]
    body = {
        "input": "हमारा IVR चौबीसों घंटे खुला है।",
        "voice": ESPEAK,
        "pronunciation_dictionaries": [{"id": dictionary}],
    }
    theirs = {"input": PROMPT, "voice": ESPEAK}
    await client.post("/v1/audio/speech", headers=bearer(OTHER_KEY), json=theirs)
    assert state.speech.cache is not None
    kept = state.speech.cache.memory.stats.entries  # the other project's sentences
    answers = [await client.post("/v1/audio/speech", headers=bearer(), json=body) for _ in range(2)]
    assert [a.headers["x-service-cache"] for a in answers] == ["miss", "hit"]
    assert state.speech.cache.memory.stats.entries == kept + 1
    said = [{"type": "alias", "string_to_replace": "IVR", "alias": "फ़ोन सेवा"}]
    changed = await client.post(
        f"/v1/pronunciation-dictionaries/{dictionary}/set-rules",
        headers=bearer(),
        json={"rules": said},
    )
    assert changed.status_code == 200, changed.text
    assert state.speech.cache.memory.stats.entries == kept  # the other project's stay
    again = await client.post("/v1/audio/speech", headers=bearer(), json=body)
    assert again.headers["x-service-cache"] == "miss"  # read anew, with the new alias
    heard = await client.post("/v1/audio/speech", headers=bearer(OTHER_KEY), json=theirs)
    assert heard.headers["x-service-cache"] == "hit"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class CacheCounts(NullMetrics):
    """The speech cache's counters (what Prometheus is told): groups found and missing."""

    def __init__(self) -> None:
        self.found = self.missing = 0

    def speech_cache(self, found: int, missing: int, memory: MemoryStats) -> None:
        self.found += found
        self.missing += missing


WS_OURS = f"/v1/audio/speech/stream-input/{ESPEAK}"
WS_MULTI = f"/v1/text-to-speech/{ESPEAK}/multi-stream-input"


def ws_session(client: TestClient, url: str, headers: dict[str, str] | None = None) -> bytes:
    """A stream-input session that sends ``PROMPT`` word by word: its audio."""
    with client.websocket_connect(url, headers={**bearer(), **(headers or {})}) as ws:
        ws.send_json({"text": " "})
        for word in PROMPT.split(" "):
            ws.send_json({"text": word + " "})
        ws.send_json({"text": ""})
        audio = b""
        while not (message := ws.receive_json()).get("isFinal"):
            audio += base64.b64decode(message["audio"])
    return audio


def multi_session(client: TestClient) -> bytes:
    """A multi-stream-input session of two contexts that say ``PROMPT`` in turn."""
    audio = b""
    with client.websocket_connect(WS_MULTI, headers={"xi-api-key": DEV_KEY}) as ws:
        for context in ("one", "two"):
            ws.send_json({"text": " ", "context_id": context})
            ws.send_json({"text": PROMPT + " ", "context_id": context, "flush": True})
            ws.send_json({"context_id": context, "close_context": True})
            while not (message := ws.receive_json()).get("isFinal"):
                if message.get("audio"):
                    audio += base64.b64decode(message["audio"])
        ws.send_json({"close_socket": True})
    return audio


@pytest.fixture
def counted(state: IngressState) -> CacheCounts:
    counts = CacheCounts()
    state.speech.metrics = counts
    return counts


def test_our_websocket_hears_a_repeated_text_from_the_cache(
    state: IngressState, counted: CacheCounts
) -> None:
    client = TestClient(create_app(state))
    first = ws_session(client, WS_OURS)
    spoken = counted.missing
    assert spoken and not counted.found
    again = ws_session(client, WS_OURS)
    assert (counted.found, counted.missing) == (spoken, spoken)  # every piece found
    assert again == first and first


def test_elevenlabs_websocket_contexts_hear_each_other_s_text_from_the_cache(
    state: IngressState, counted: CacheCounts
) -> None:
    """The second context says what the first said: found, and the same audio."""
    client = TestClient(create_app(state))
    audio = multi_session(client)
    assert counted.found == counted.missing > 0
    half = len(audio) // 2
    assert audio[:half] == audio[half:]


def test_a_websocket_keeps_its_texts_out_of_the_cache(
    state: IngressState, counted: CacheCounts
) -> None:
    client = TestClient(create_app(state))
    ws_session(client, WS_OURS + "?cache=false")
    ws_session(client, WS_OURS, {"Cache-Control": "no-store"})
    assert (counted.found, counted.missing) == (0, 0)  # never looked up
    ws_session(client, WS_OURS)
    assert not counted.found and counted.missing  # neither kept anything


def said_over_a_socket(
    client: TestClient, sentence: str, query: str = ""
) -> tuple[bytes, list[str]]:
    """``sentence`` said over our WebSocket as one piece: its audio, and the
    characters its messages' alignments time."""
    audio, chars = b"", list[str]()
    with client.websocket_connect(f"{WS_OURS}?auto_mode=true{query}", headers=bearer()) as ws:
        ws.send_json({"text": sentence + " ", "flush": True})
        ws.send_json({"text": ""})
        while not (message := ws.receive_json()).get("isFinal"):
            audio += base64.b64decode(message["audio"])
            chars += message["alignment"]["chars"]
    return audio, chars


def test_http_hears_what_a_websocket_had_spoken(state: IngressState, counted: CacheCounts) -> None:
    """One sentence said over a socket, then over HTTP: a hit, the same audio."""
    client = TestClient(create_app(state))
    sentence = "बिल के लिए एक दबाएँ।"
    audio, _ = said_over_a_socket(client, sentence)
    assert (counted.found, counted.missing) == (0, 1)
    heard = client.post(
        "/v1/audio/speech", headers=bearer(), json={"input": sentence, "voice": ESPEAK}
    )
    assert heard.headers["x-service-cache"] == "hit" and heard.content == audio


def test_a_websocket_hears_what_http_had_spoken_with_its_alignment(
    state: IngressState, counted: CacheCounts
) -> None:
    """An MP3 asks for no timings, yet its sentence is kept with them: a socket that
    then says it is a hit, its alignment timing the characters it would time afresh."""
    client = TestClient(create_app(state))
    sentence = "रिचार्ज के लिए दो दबाएँ।"
    made = client.post(
        "/v1/audio/speech",
        headers=bearer(),
        json={"input": sentence, "voice": ESPEAK, "response_format": "mp3"},
    )
    assert made.headers["x-service-cache"] == "miss"
    assert (counted.found, counted.missing) == (0, 1)
    audio, chars = said_over_a_socket(client, sentence)
    assert (counted.found, counted.missing) == (1, 1)
    _, fresh_chars = said_over_a_socket(client, sentence, "&cache=false")
    assert audio and chars and chars == fresh_chars


async def test_ready_says_what_the_replica_s_cache_holds(client: httpx.AsyncClient) -> None:
    async def held() -> dict[str, int]:
        ready = await client.get("/ready", headers=bearer())
        status: dict[str, int] = ready.json()["replica"]["speech_cache"]
        return status

    assert await held() == {"entries": 0, "bytes": 0, "evictions": 0}
    await client.post("/v1/audio/speech", headers=bearer(), json={"input": PROMPT, "voice": ESPEAK})
    now = await held()
    assert now["entries"] == 2 and now["bytes"] > 0  # the prompt's two sentences


async def test_a_job_of_prompts_renders_them_into_the_cache_ahead_of_time(
    state: IngressState, client: httpx.AsyncClient
) -> None:
    """An IVR's menu sent as a job's prompts: spoken by the replica's job worker, each
    alone; a request that later says one of them, in that voice, is a hit."""
    menu = [PROMPT, "रिचार्ज के लिए दो दबाएँ।", "हमसे बात करने के लिए धन्यवाद।"]
    speaking = asyncio.create_task(state.job_worker().run())
    try:
        created = await client.post(
            "/v1/speech/jobs", headers=bearer(), json={"prompts": menu, "voice": ESPEAK}
        )
        assert created.status_code == 202, created.text
        job = created.json()
        assert job["chunks"] == len(menu)
        for _ in range(1200):
            job = (await client.get(f"/v1/speech/jobs/{job['id']}", headers=bearer())).json()
            if job["state"] != "running":
                break
            await asyncio.sleep(0.05)
    finally:
        speaking.cancel()
    assert job["state"] == "done", job
    for prompt in menu:
        heard = await client.post(
            "/v1/audio/speech", headers=bearer(), json={"input": prompt, "voice": ESPEAK}
        )
        assert heard.headers["x-service-cache"] == "hit", prompt
    other = await client.post(
        "/v1/audio/speech", headers=bearer(OTHER_KEY), json={"input": menu[1], "voice": ESPEAK}
    )
    assert other.headers["x-service-cache"] == "miss"  # the project's own


@pytest.mark.parametrize(
    ("fields", "param"),
    [
        pytest.param({"prompts": ["एक दबाएँ।"], "input": "और यह भी।"}, "input", id="and input"),
        pytest.param({"prompts": ["# एक"], "text_type": "markdown"}, "text_type", id="markdown"),
        pytest.param({"prompts": []}, "prompts", id="none"),
        pytest.param({"prompts": ["  ", "\n"]}, "prompts", id="blank"),
    ],
)
async def test_a_job_of_prompts_is_refused_as_the_api_says(
    client: httpx.AsyncClient, fields: dict[str, object], param: str
) -> None:
    refused = await client.post("/v1/speech/jobs", headers=bearer(), json=fields)
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"]["param"] == param


async def test_a_project_sets_its_own_budget_and_time_to_live(
    state: IngressState, client: httpx.AsyncClient
) -> None:
    shown = await client.get("/v1/account/speech_cache", headers=bearer())
    assert shown.status_code == 200, shown.text
    assert shown.json()["budget_mb"] is None and shown.json()["service_budget_mb"] == 64
    body = {"input": PROMPT, "voice": ESPEAK}
    await client.post("/v1/audio/speech", headers=bearer(), json=body)
    assert (await client.get("/v1/account/speech_cache", headers=bearer())).json()["bytes"] > 0

    # none: its audio forgotten at once, and its requests neither read nor keep any
    off = await client.put(
        "/v1/account/speech_cache", headers=bearer(), json={"budget_mb": 0, "ttl_s": None}
    )
    assert off.status_code == 200 and off.json()["bytes"] == 0
    answers = [await client.post("/v1/audio/speech", headers=bearer(), json=body) for _ in "ab"]
    assert [a.headers["x-service-cache"] for a in answers] == ["off", "off"]
    theirs = [
        await client.post("/v1/audio/speech", headers=bearer(OTHER_KEY), json=body) for _ in "ab"
    ]
    assert [a.headers["x-service-cache"] for a in theirs] == ["miss", "hit"]  # another's own

    # a time to live of its own: its audio is heard for that long (the memory on a
    # clock of the test's; no shared store, whose clock is the wall's)
    cache = state.speech.cache
    assert cache is not None
    clock = Clock()
    cache.memory, cache.shared = MemoryCache(64 << 20, 86_400, clock), None
    short = await client.put(
        "/v1/account/speech_cache", headers=bearer(), json={"budget_mb": 1, "ttl_s": 60}
    )
    assert short.json()["budget_mb"] == 1 and short.json()["ttl_s"] == 60
    answers = [await client.post("/v1/audio/speech", headers=bearer(), json=body) for _ in "ab"]
    assert [a.headers["x-service-cache"] for a in answers] == ["miss", "hit"]
    clock.now = 61
    later = await client.post("/v1/audio/speech", headers=bearer(), json=body)
    assert later.headers["x-service-cache"] == "miss"
    dev = state.store.find_project("dev")
    assert 0 < cache.memory.project_bytes(dev) <= 1 << 20


@pytest.mark.parametrize(
    "body",
    [
        {"budget_mb": -1},
        {"ttl_s": 0},
        {"ttl_s": 31 * 86_400},
        {"budget_mb": 1, "colour": "blue"},
    ],
)
async def test_settings_out_of_bounds_are_refused(
    client: httpx.AsyncClient, body: dict[str, object]
) -> None:
    refused = await client.put("/v1/account/speech_cache", headers=bearer(), json=body)
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"]["type"] == "invalid_request_error"


async def test_a_speech_only_key_may_not_see_or_set_them(state: IngressState) -> None:
    token = state.store.create_key(state.store.find_project("dev"), scopes=("speech",))
    transport = httpx.ASGITransport(app=create_app(state))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        seen = await client.get("/v1/account/speech_cache", headers=bearer(token))
        put = await client.put(
            "/v1/account/speech_cache", headers=bearer(token), json={"budget_mb": 0}
        )
    assert seen.status_code == put.status_code == 403


async def test_a_revoked_key_hears_nothing_from_the_cache(
    state: IngressState, client: httpx.AsyncClient
) -> None:
    token = state.store.create_key(state.store.find_project("dev"))
    body = {"input": PROMPT, "voice": ESPEAK}
    heard = [await client.post("/v1/audio/speech", headers=bearer(token), json=body) for _ in "ab"]
    assert [r.headers["x-service-cache"] for r in heard] == ["miss", "hit"]
    assert state.store.revoke_key(split_key(token)[0])
    refused = await client.post("/v1/audio/speech", headers=bearer(token), json=body)
    assert refused.status_code == 401 and not refused.content.startswith(b"RIFF")
