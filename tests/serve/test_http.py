"""Every endpoint of the real Serve application, over real HTTP on 127.0.0.1."""

from __future__ import annotations

import base64
import json
import time

import httpx
import pytest

from tests.conftest import SPEC_HEADERS, decode, pcm_seconds
from tests.serve.conftest import Service, usage, usage_after

pytestmark = pytest.mark.serve

HI = "नमस्ते, आप कैसे हैं? आज मौसम बहुत अच्छा है।"


def sentences(count: int) -> str:
    return " ".join(f"यह वाक्य संख्या {i} है, और यह थोड़ा लंबा भी है।" for i in range(count))


LONG_HI = sentences(60)
PARAGRAPH_HI = sentences(3)


def speech(client: httpx.Client, service: Service, **body: object) -> httpx.Response:
    return client.post("/v1/audio/speech", headers=service.auth, json={"input": HI, **body})


def test_discovery_endpoints(client: httpx.Client, service: Service) -> None:
    assert client.get("/health").json() == {"status": "ok"}
    assert client.get("/ready").status_code == 401
    ready = client.get("/ready", headers=service.auth).json()
    assert {
        "model",
        "sample_rate",
        "languages",
        "voices",
        "loras",
        "stream_formats",
        "modes",
        "language_policy_version",
    } <= set(ready)
    assert client.get("/v1/models", headers=service.auth).json()["data"][0]["id"] == "service-v1"
    caps = client.get("/v1/capabilities", headers=service.auth).json()
    assert {f["format"] for f in caps["audio_formats"]} == {
        "pcm", "mp3", "wav", "ulaw", "alaw", "opus", "aac", "flac",
    }  # fmt: skip
    voices = client.get("/v1/voices").json()["data"]
    assert "default" in {v["id"] for v in voices}
    assert set(usage(service.url, service.auth)) == {
        "requests",
        "characters",
        "audio_ms",
        "spent_deci_micros",
    }


def test_raw_pcm_stream_with_every_header(client: httpx.Client, service: Service) -> None:
    response = speech(client, service)
    assert response.status_code == 200
    assert response.headers["content-type"] == "audio/L16;rate=24000;channels=1"
    assert response.headers["transfer-encoding"] == "chunked"
    for header in SPEC_HEADERS:
        assert response.headers[header], header
    assert response.headers.get_list("x-request-id") == [response.headers["x-request-id"]]
    assert response.headers["cache-control"] == "no-store"
    assert 1.5 < pcm_seconds(response.content, 24000) < 8


def test_streamed_mp3_and_buffered_wav_decode_to_the_same_duration(
    client: httpx.Client, service: Service
) -> None:
    pcm = speech(client, service, stream=False)
    mp3 = speech(client, service, response_format="mp3")
    wav = speech(client, service, response_format="wav", stream=False)
    assert (mp3.headers["content-type"], wav.headers["content-type"]) == ("audio/mpeg", "audio/wav")
    assert int(wav.headers["content-length"]) == len(wav.content)
    assert "x-service-generation-ms" in wav.headers and "x-service-generation-ms" in pcm.headers
    seconds = pcm_seconds(pcm.content, 24000)
    wav_samples, wav_rate = decode(wav.content)
    mp3_samples, mp3_rate = decode(mp3.content)
    assert abs(wav_samples.size / wav_rate - seconds) < 0.05 * seconds
    assert abs(mp3_samples.size / mp3_rate - seconds) < 0.05 * seconds + 0.1


def test_sse_event_order_and_fields(client: httpx.Client, service: Service) -> None:
    events = []
    with client.stream(
        "POST",
        "/v1/audio/speech",
        headers=service.auth,
        json={"input": HI, "stream_format": "sse", "response_format": "mp3"},
    ) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        name = None
        for line in response.iter_lines():
            if line.startswith("event: "):
                name = line.removeprefix("event: ")
            elif line.startswith("data: "):
                events.append((name, json.loads(line.removeprefix("data: "))))
    *deltas, (done_name, done) = events
    assert done_name == "audio.done" and done["type"] == "audio.done"
    assert all(n == "audio.delta" and d["type"] == "audio.delta" for n, d in deltas)
    assert [d["index"] for _, d in deltas] == list(range(len(deltas))) and len(deltas) >= 2
    assert deltas[0][1]["ttfa_ms"] > 0 and all("ttfa_ms" not in d for _, d in deltas[1:])
    assert done["chunks"] == len(deltas)
    assert done["usage"]["characters"] == len(HI)
    samples, rate = decode(b"".join(base64.b64decode(d["delta"]) for _, d in deltas))
    assert abs(samples.size / rate * 1000 - done["usage"]["audio_ms"]) < 150


def test_audio_arrives_before_a_long_text_is_synthesised(
    client: httpx.Client, service: Service
) -> None:
    """Three sentences (~10 s of the default voice, four segments): the first clause is
    heard while the rest is still being spoken, and the rest follows segment by segment."""
    arrivals = []
    with client.stream(
        "POST",
        "/v1/audio/speech",
        headers=service.auth,
        json={"input": PARAGRAPH_HI, "cache": False},  # spoken now, not heard before
    ) as response:
        for chunk in response.iter_raw():
            arrivals.append((time.perf_counter(), len(chunk)))
    total = sum(size for _, size in arrivals)
    assert len(arrivals) >= 4
    assert arrivals[0][1] < total / 3  # the first clause (~1/6), not the whole text
    assert arrivals[0][0] < arrivals[-1][0]


def test_abandoned_stream_is_billed_only_for_what_was_delivered(
    client: httpx.Client, service: Service
) -> None:
    before = usage(service.url, service.auth)
    with client.stream(
        "POST", "/v1/audio/speech", headers=service.auth, json={"input": LONG_HI, "cache": False}
    ) as response:
        next(response.iter_raw())
    after = usage_after(service.url, service.auth, before["requests"] + 1)
    assert after["requests"] == before["requests"] + 1
    assert 0 < after["characters"] - before["characters"] < len(LONG_HI)


def test_private_voice_sample_rate_and_language_alias(
    client: httpx.Client, service: Service
) -> None:
    response = speech(
        client,
        service,
        voice="internal-test-robot",
        sample_rate=16000,
        language="hi-IN",
        stream=False,
    )
    assert response.status_code == 200
    assert response.headers["content-type"] == "audio/L16;rate=16000;channels=1"
    assert response.headers["x-service-language"] == "hi"
    english = speech(
        client,
        service,
        input="Hello from India.",
        voice="en-male-rohan",
        language="English",
        stream=False,
    )
    assert english.headers["x-service-representation"] == "latin"


SPOKEN = {
    "gujarati": ("gu", "તમારો ઓર્ડર 15/08/2026 સુધીમાં આવશે."),
    "malayalam": ("ml", "നിങ്ങളുടെ ഓർഡർ 15/08/2026 ഓടെ എത്തും."),
    "punjabi": ("pa", "ਤੁਹਾਡਾ ਆਰਡਰ 15/08/2026 ਤੱਕ ਆਵੇਗਾ।"),
    "odia": ("or", "ଆପଣଙ୍କ ଅର୍ଡର 15/08/2026 ସୁଦ୍ଧା ଆସିବ।"),
}


@pytest.mark.parametrize("alias", sorted(SPOKEN))
def test_each_language_is_listed_with_its_voice_and_speaks(
    client: httpx.Client, service: Service, alias: str
) -> None:
    language, text = SPOKEN[alias]
    voices = client.get("/v1/voices").json()["data"]
    assert any(v["languages"][0] == language for v in voices), language
    response = speech(
        client, service, input=text, language=alias, response_format="wav", stream=False
    )
    assert response.status_code == 200, response.text
    headers = response.headers
    assert (headers["x-service-language"], headers["x-service-representation"]) == (
        language,
        "native",
    )
    samples, rate = decode(response.content)
    assert samples.size / rate > 1.0 and float(abs(samples).max()) > 0.05


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"input": "x", "unknown": 1}, 400, "unknown_field"),
        ({}, 400, "missing_field"),
        ({"input": ""}, 400, "empty_input"),
        ({"input": "x" * 5000}, 400, "input_too_long"),
        ({"input": "x", "voice": "ghost"}, 404, "voice_not_found"),
        ({"input": "x", "model": "gpt-4"}, 404, "model_not_found"),
        ({"input": "x", "language": "tlh"}, 400, "unsupported_language"),
        ({"input": "x", "response_format": "wav"}, 400, "unsupported_format_for_stream"),
        ({"input": "x", "speed": "fast"}, 400, "invalid_value"),
    ],
)
def test_errors_over_http(
    client: httpx.Client, service: Service, body: dict[str, object], status: int, code: str
) -> None:
    response = client.post("/v1/audio/speech", headers=service.auth, json=body)
    assert response.status_code == status
    error = response.json()["error"]
    assert error["code"] == code and error["request_id"] == response.headers["x-request-id"]


def test_auth_errors_and_bad_json(client: httpx.Client, service: Service) -> None:
    assert client.post("/v1/audio/speech", json={"input": "x"}).json()["error"]["code"] == (
        "missing_api_key"
    )
    bad_key = {"Authorization": "Bearer sk-proj-wrong0000-" + "q" * 32}
    response = client.post("/v1/audio/speech", headers=bad_key, json={"input": "x"})
    assert response.status_code == 401 and response.json()["error"]["code"] == "invalid_api_key"
    assert service.key not in response.text
    raw = client.post("/v1/audio/speech", headers=service.auth, content=b"{nope")
    assert raw.status_code == 400 and raw.json()["error"]["code"] == "invalid_json"
