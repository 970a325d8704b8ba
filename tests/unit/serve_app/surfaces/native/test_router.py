"""The ingress routes over ASGI, with the real pipeline objects in process."""

import base64
import json
from pathlib import Path

import httpx
import pytest

from deployments.normaliser.cleaning import MAX_MARKS
from serve_app.ingress.api import create_app
from serve_app.ingress.state import IngressState
from tests.conftest import SPEC_HEADERS, decode, pcm_seconds
from tests.unit.serve_app.conftest import DEV_KEY, ESPEAK, HI, make_state, speak


async def test_health_is_public_and_ready_needs_a_key(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    assert (await client.get("/health")).json() == {"status": "ok"}
    assert (await client.get("/ready")).status_code == 401
    ready = (await client.get("/ready", headers=auth)).json()
    assert ready["model"] == "service-v1" and ready["sample_rate"] == 24000
    assert "hi" in ready["languages"] and "default" in ready["voices"]
    assert ready["loras"] == [] and ready["stream_formats"] == ["audio", "sse"]
    assert ready["modes"] == ["description", "preset", "reference"]
    assert ready["language_policy_version"]
    engines = {e["name"]: e for e in ready["engines"]}
    assert engines["kokoro"]["modes"] == ["preset", "description", "reference"]
    assert engines["piper"]["modes"] == ["preset"]


async def test_defaults_stream_raw_pcm_with_every_header(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    response = await client.post("/v1/audio/speech", headers=auth, json={"input": HI})
    assert response.status_code == 200
    assert response.headers["content-type"] == "audio/L16;rate=24000;channels=1"
    for header in SPEC_HEADERS:
        assert response.headers[header]
    assert response.headers["x-service-language"] == "hi"
    assert response.headers["x-service-representation"] == "devanagari"
    assert response.headers["x-service-quality"] == "balanced"
    assert response.headers["cache-control"] == "no-store"
    assert 1.0 < pcm_seconds(response.content, 24000) < 6.0


async def test_pcm_is_24_khz_whatever_the_voice_unless_asked(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    """sample_rate defaults to 24000 for pcm, the voice's own rate otherwise."""
    pcm = await speak(client, auth, voice=ESPEAK)
    assert pcm.headers["content-type"] == "audio/L16;rate=24000;channels=1"
    assert pcm.headers["x-service-sample-rate"] == "24000"
    assert 0.8 < pcm_seconds(pcm.content, 24000) < 5.0
    own = await speak(client, auth, voice=ESPEAK, sample_rate=22050)
    assert own.headers["x-service-sample-rate"] == "22050"
    assert abs(pcm_seconds(own.content, 22050) - pcm_seconds(pcm.content, 24000)) < 0.05
    wav = await speak(client, auth, voice=ESPEAK, response_format="wav", stream=False)
    assert wav.headers["x-service-sample-rate"] == "22050"


async def test_buffered_wav_and_mp3(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    wav = await speak(client, auth, response_format="wav", stream=False)
    assert wav.headers["content-type"] == "audio/wav"
    assert int(wav.headers["content-length"]) == len(wav.content)
    assert int(wav.headers["x-service-generation-ms"]) >= 0
    samples, rate = decode(wav.content)
    mp3 = await speak(client, auth, response_format="mp3")
    mp3_samples, mp3_rate = decode(mp3.content)
    assert rate == mp3_rate == 24000
    assert abs(samples.size / rate - mp3_samples.size / mp3_rate) < 0.15


@pytest.mark.parametrize(
    ("fmt", "content_type", "rate"),
    [
        ("ulaw", "audio/PCMU;rate=8000;channels=1", 8000),
        ("alaw", "audio/PCMA;rate=8000;channels=1", 8000),
        ("opus", "audio/ogg;codecs=opus", 48000),
        ("aac", "audio/aac", 22050),
        ("flac", "audio/flac", 22050),
    ],
)
@pytest.mark.parametrize("stream", [True, False])
async def test_telephony_and_compressed_formats(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    fmt: str,
    content_type: str,
    rate: int,
    stream: bool,
) -> None:
    """G.711 at 8 kHz (whole 20 ms frames, no header), Ogg Opus at 48 kHz, AAC and
    FLAC at the voice's rate: streamed or buffered, each decodes to the speech. The
    encoders are under test: eSpeak speaks in milliseconds what Kokoro takes seconds
    for (Kokoro's own formats: test_buffered_wav_and_mp3)."""
    response = await speak(client, auth, response_format=fmt, stream=stream, voice=ESPEAK)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == content_type
    assert response.headers["x-service-sample-rate"] == str(rate)
    if fmt in ("ulaw", "alaw"):
        assert len(response.content) % 160 == 0
    samples, decoded_rate = decode(response.content, fmt)
    assert decoded_rate == rate
    assert 1.0 < samples.size / rate < 6.0 and abs(samples).max() > 0.05


async def test_fixed_rate_formats_refuse_another_rate(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    response = await speak(client, auth, response_format="ulaw", sample_rate=16000)
    assert response.status_code == 400
    assert response.json()["error"]["param"] == "sample_rate"
    assert (await speak(client, auth, response_format="ulaw", sample_rate=8000)).status_code == 200


def test_the_wire_formats_are_the_encoders_formats() -> None:
    from typing import get_args

    from deployments.encoding.writers import FORMATS, STREAMABLE_FORMATS
    from serve_app.speech.vocabulary import Format, StreamableFormat

    assert get_args(Format) == FORMATS
    assert get_args(StreamableFormat) == STREAMABLE_FORMATS


async def test_sse_events(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await speak(client, auth, stream_format="sse")
    assert response.headers["content-type"].startswith("text/event-stream")
    events = [block for block in response.text.split("\n\n") if block]
    parsed = []
    for block in events:
        name_line, data_line = block.split("\n")
        name, data = name_line.removeprefix("event: "), json.loads(data_line.removeprefix("data: "))
        assert data["type"] == name
        parsed.append(data)
    *deltas, done = parsed
    assert [d["index"] for d in deltas] == list(range(len(deltas))) and deltas
    assert "ttfa_ms" in deltas[0] and all("ttfa_ms" not in d for d in deltas[1:])
    assert done == {
        "type": "audio.done",
        "chunks": len(deltas),
        "usage": {
            "characters": len(HI),
            "audio_ms": done["usage"]["audio_ms"],
            "cost_deci_micros": 150 * len(HI),
        },
    }
    audio = b"".join(base64.b64decode(d["delta"]) for d in deltas)
    assert abs(pcm_seconds(audio, 24000) * 1000 - done["usage"]["audio_ms"]) <= 1


async def test_controls_change_the_audio(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    normal = await speak(client, auth, stream=False)
    fast = await speak(client, auth, stream=False, speed=2.0)
    assert len(fast.content) < 0.7 * len(normal.content)
    resampled = await speak(client, auth, stream=False, sample_rate=8000, quality="high")
    assert resampled.headers["content-type"] == "audio/L16;rate=8000;channels=1"
    assert resampled.headers["x-service-sample-rate"] == "8000"
    assert resampled.headers["x-service-quality"] == "high"
    assert abs(pcm_seconds(resampled.content, 8000) - pcm_seconds(normal.content, 24000)) < 0.25
    quiet = await speak(client, auth, input="नमस्ते।", stream=False, volume=0.0)
    assert set(quiet.content) == {0}


async def test_private_voice_is_hidden_but_usable(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    voices = (await client.get("/v1/voices")).json()
    ids = [v["id"] for v in voices["data"]]
    assert voices["object"] == "list" and "default" in ids and "internal-test-robot" not in ids
    assert set(voices["data"][0]) == {
        "id",
        "name",
        "languages",
        "gender",
        "sample_rate",
        "engine",
        "modes",
    }
    assert (await speak(client, auth, voice="internal-test-robot")).status_code == 200


async def test_usage_counts_what_was_delivered(
    client: httpx.AsyncClient, auth: dict[str, str], state: IngressState
) -> None:
    before = (await client.get("/v1/account/usage", headers=auth)).json()
    assert before == {
        "balance_deci_micros": 100_000_000,
        "usage": {"requests": 0, "characters": 0, "audio_ms": 0, "spent_deci_micros": 0},
    }
    response = await speak(client, auth, stream=False)
    assert response.headers["x-service-cost-deci-micros"] == str(150 * len(HI))
    after = (await client.get("/v1/account/usage", headers=auth)).json()
    assert after["usage"]["requests"] == 1 and after["usage"]["characters"] == len(HI)
    # whole milliseconds delivered, never rounded up: 16-bit samples at 24 kHz
    assert after["usage"]["audio_ms"] == len(response.content) // 2 * 1000 // 24000
    assert after["balance_deci_micros"] == 100_000_000 - 150 * len(HI)


async def test_insufficient_balance_is_refused_before_synthesis(
    client: httpx.AsyncClient, state: IngressState
) -> None:
    project = state.store.ensure_project("poor", 100)
    token = state.store.create_key(project)
    response = await client.post(
        "/v1/audio/speech", headers={"Authorization": f"Bearer {token}"}, json={"input": HI}
    )
    assert response.status_code == 402
    assert response.json()["error"]["code"] == "insufficient_balance"
    assert state.store.usage(project).requests == 0


async def test_punctuation_alone_is_not_billed(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    before = (await client.get("/v1/account/usage", headers=auth)).json()["usage"]
    response = await client.post("/v1/audio/speech", headers=auth, json={"input": "।।।,,,..."})
    assert response.json()["error"]["code"] == "empty_input"
    assert (await client.get("/v1/account/usage", headers=auth)).json()["usage"] == before


async def test_past_capacity_the_answer_is_503_with_retry_after(tmp_path: Path) -> None:
    state = make_state(tmp_path, max_active_requests=1)
    auth = {"Authorization": f"Bearer {DEV_KEY}"}
    transport = httpx.ASGITransport(app=create_app(state))
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        busy = state.admission.enter()
        refused = await client.post("/v1/audio/speech", headers=auth, json={"input": HI})
        preview = await client.post("/v1/text/normalize", headers=auth, json={"input": HI})
        voice = await client.post(
            "/v1/voices", headers=auth, json={"id": "mine", "voice_description": "deep"}
        )
        busy.release()
        assert preview.status_code == 503 and voice.status_code == 503
        admitted = await client.post("/v1/audio/speech", headers=auth, json={"input": HI})
    assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
    assert refused.json()["error"]["code"] == "overloaded"
    assert refused.json()["error"]["type"] == "overloaded_error"
    assert admitted.status_code == 200 and state.admission.active == 0
    project = state.store.find_project("dev")
    assert state.store.usage(project).requests == 1  # the refused one cost nothing


async def test_the_neural_voice_through_the_service(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    pytest.importorskip("piper", reason="the piper extra is not installed")
    voices = {v["id"]: v for v in (await client.get("/v1/voices")).json()["data"]}
    assert voices["en-us-joe"]["engine"] == "piper" and voices["en-us-joe"]["languages"] == ["en"]
    body = {"input": "Your order has shipped.", "voice": "en-us-joe", "language": "en"}
    wav = await client.post(
        "/v1/audio/speech", headers=auth, json={**body, "response_format": "wav", "stream": False}
    )
    samples, rate = decode(wav.content)
    assert wav.status_code == 200 and rate == 22050 and 0.8 < samples.size / rate < 5
    pitch = await client.post("/v1/audio/speech", headers=auth, json={**body, "pitch": 0.5})
    assert pitch.json()["error"]["code"] == "unsupported_feature"
    hindi = await client.post("/v1/audio/speech", headers=auth, json={**body, "language": "hi"})
    assert hindi.json()["error"]["code"] == "unsupported_language"
    assert "does not speak 'hi'" in hindi.json()["error"]["message"]
    # a voice named without a language speaks its own
    own = {"input": "Your order has shipped.", "voice": "en-us-joe"}
    unsaid = await client.post("/v1/audio/speech", headers=auth, json=own)
    assert unsaid.status_code == 200 and unsaid.headers["x-service-language"] == "en"


async def test_the_default_voice_is_kokoro_hindi_and_it_cannot_change_pitch(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    voices = {v["id"]: v for v in (await client.get("/v1/voices")).json()["data"]}
    assert voices["default"] == {
        "id": "default",
        "name": voices["default"]["name"],
        "languages": ["hi"],
        "gender": "female",
        "sample_rate": 24000,
        "engine": "kokoro",
        "modes": ["preset", "description", "reference"],
    }
    assert voices["hi-espeak-aditi"]["engine"] == "espeak"  # the eSpeak Hindi voice stays
    pitch = await speak(client, auth, pitch=0.3)
    assert pitch.status_code == 400 and pitch.json()["error"]["code"] == "unsupported_feature"
    assert pitch.json()["error"]["param"] == "pitch"
    espeak_pitch = await speak(client, auth, pitch=0.3, voice=ESPEAK, stream=False)
    assert espeak_pitch.status_code == 200
    ready = (await client.get("/ready", headers=auth)).json()
    # Outside Serve (this tier) every stage is in process and no replica count is known.
    assert ready["pipeline"]["Ingress"] == {"placement": "deployment", "replicas": None}
    kokoro = next(e for e in ready["engines"] if e["name"] == "kokoro")
    assert (kokoro["sample_rate"], kokoro["controls"], kokoro["alignment"]) == (
        24000,
        ["speed"],
        True,
    )
    caps = (await client.get("/v1/capabilities", headers=auth)).json()
    assert caps["streaming"]["websocket"]["alignment_engines"] == ["espeak", "kokoro"]
    assert caps["generation_controls"]["pitch"]["engines"] == ["espeak"]
    assert caps["voices"] == list(voices.values()) and caps["default_sample_rate"] == 24000


async def test_without_a_voice_each_language_gets_its_own(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    english = await speak(client, auth, input="Your order has shipped.", language="en")
    assert english.status_code == 200 and english.headers["x-service-language"] == "en"
    assert english.headers["x-service-sample-rate"] == "24000"  # the Kokoro English voice
    bengali = await speak(
        client, auth, input="আপনি কেমন আছেন?", language="bn", response_format="wav", stream=False
    )
    assert bengali.status_code == 200 and bengali.headers["x-service-sample-rate"] == "22050"
    named = await speak(client, auth, input="Hello.", language="en", voice="default")
    assert named.status_code == 400 and named.json()["error"]["code"] == "unsupported_language"


@pytest.mark.parametrize(
    ("junk", "language"),
    [
        ("\u200b\u0301", "en"),  # zero-width spaces and combining accents
        ("\u200d\u0301\u200c", "en"),  # joiners between accents
        ("\ufe0f", "en"),  # variation selectors
        ("\u094d", "hi"),  # viramas
    ],
)
async def test_a_word_and_thousands_of_invisible_characters_costs_the_word(
    client: httpx.AsyncClient, auth: dict[str, str], junk: str, language: str
) -> None:
    word = "hello" if language == "en" else "नमस्ते"
    text = word + junk * (4000 // len(junk))
    response = await client.post(
        "/v1/audio/speech",
        headers=auth,
        json={"input": text, "language": language, "stream_format": "sse"},
    )
    assert response.status_code == 200, response.text
    done = json.loads(response.text.strip().split("\n\n")[-1].split("\n")[1].removeprefix("data: "))
    assert done["type"] == "audio.done"
    assert len(word) <= done["usage"]["characters"] <= len(word) + MAX_MARKS
    assert done["usage"]["audio_ms"] < 3000  # a word, not a minute of noise


async def test_the_playground_answers_at_its_path_with_or_without_the_slash(
    client: httpx.AsyncClient,
) -> None:
    for path in ("/", "/playground", "/playground/"):
        page = await client.get(path)
        assert page.status_code == 200, path  # /playground was a redirect to a 404
        assert "<html" in page.text.lower() and "content-security-policy" in page.headers
    assert (await client.get("/playground/playground.js")).status_code == 200


async def test_no_page_loads_scripts_from_elsewhere(client: httpx.AsyncClient) -> None:
    """FastAPI's /docs and /redoc load Swagger UI and ReDoc from public CDNs: not served."""
    for path in ("/docs", "/redoc"):
        assert (await client.get(path)).status_code == 404, path
    assert (await client.get("/openapi.json")).status_code == 200
