"""Phoneme timings and visemes on every surface that sends timings: our SSE events,
our WebSocket and ElevenLabs' (a query parameter), ElevenLabs' /with-timestamps
routes (through the elevenlabs SDK, which keeps reading them). The app in process
with the real engines."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import httpx
from elevenlabs.client import AsyncElevenLabs
from starlette.testclient import TestClient

from deployments.synthesis.visemes import VISEMES
from serve_app.ingress.api import create_app
from serve_app.ingress.state import IngressState
from tests.conftest import pcm_seconds, sse_events
from tests.unit.serve_app.conftest import DEV_KEY, ESPEAK, make_state

TEXT = "मुझे 25 किलो चावल चाहिए।"


def check_track(messages: list[dict[str, Any]], audio_key: str, rate: int = 24000) -> set[str]:
    """The messages' phonemes and visemes (times from the start of their message's
    audio, as alignments are) in order and within the audio; the input's words the
    phonemes name."""
    words: set[str] = set()
    starts: list[float] = []
    ends: list[float] = []
    offset_ms = 0.0
    for message in messages:
        phonemes, visemes = message["phonemes"], message["visemes"]
        assert len(phonemes["phonemes"]) == len(phonemes["startTimesMs"])
        assert (
            len(phonemes["wordStarts"]) == len(phonemes["wordEnds"]) == len(phonemes["durationsMs"])
        )
        assert set(visemes["visemes"]) <= set(VISEMES)
        starts += [offset_ms + t for t in phonemes["startTimesMs"]]
        for start, duration in zip(visemes["startTimesMs"], visemes["durationsMs"], strict=True):
            ends.append(offset_ms + start + duration)
        words |= {
            TEXT[a:b]
            for a, b in zip(phonemes["wordStarts"], phonemes["wordEnds"], strict=True)
            if a >= 0
        }
        offset_ms += pcm_seconds(base64.b64decode(message[audio_key]), rate) * 1000
    assert starts and starts == sorted(starts)
    assert max(ends) <= offset_ms + 1
    return words


async def test_sse_deltas_carry_phonemes_and_visemes_when_asked(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    body = {"input": TEXT, "stream_format": "sse", "phoneme_timestamps": True}
    response = await client.post("/v1/audio/speech", headers=auth, json=body)
    *deltas, done = sse_events(response.text)
    assert done["type"] == "audio.done" and deltas
    words = check_track(deltas, "delta")
    assert {"मुझे", "25", "किलो"} <= words
    assert sum(len(d["phonemes"]["phonemes"]) for d in deltas) >= 15
    plain = sse_events(
        (
            await client.post(
                "/v1/audio/speech", headers=auth, json={**body, "phoneme_timestamps": False}
            )
        ).text
    )
    assert all("phonemes" not in d for d in plain)


async def test_phoneme_timestamps_need_a_framing_that_carries_them(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    for framing in ({"stream_format": "audio"}, {"stream": False}):
        body = {"input": TEXT, "phoneme_timestamps": True, **framing}
        response = await client.post("/v1/audio/speech", headers=auth, json=body)
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "unsupported_feature"
        assert response.json()["error"]["param"] == "phoneme_timestamps"


async def test_capabilities_say_who_times_phonemes(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    info = (await client.get("/v1/capabilities", headers=auth)).json()["phoneme_timestamps"]
    assert {"kokoro", "espeak"} <= set(info["engines"])
    assert info["viseme_set"] == "oculus-15" and info["visemes"] == list(VISEMES)
    assert "default" not in info["voices_without"] and ESPEAK not in info["voices_without"]


def test_our_websocket_and_elevenlabs_carry_them_per_message(tmp_path: Path) -> None:
    client = TestClient(create_app(make_state(tmp_path)))
    for url in (
        f"/v1/audio/speech/stream-input/{ESPEAK}?phoneme_timestamps=true",
        "/v1/text-to-speech/21m00Tcm4TlvDq8ikWAM/stream-input"
        "?output_format=pcm_24000&language_code=hi&phoneme_timestamps=true",
    ):
        with client.websocket_connect(url, headers={"Authorization": f"Bearer {DEV_KEY}"}) as ws:
            ws.send_json({"text": " "})
            ws.send_json({"text": TEXT + " ", "flush": True})
            ws.send_json({"text": ""})
            messages = []
            while not (message := ws.receive_json()).get("isFinal"):
                messages.append(message)
        assert {"मुझे", "25", "चावल"} <= check_track(messages, "audio"), url


async def test_elevenlabs_with_timestamps_adds_them_and_the_sdk_reads_on(
    state: IngressState,
) -> None:
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(state)))
    sdk = AsyncElevenLabs(api_key=DEV_KEY, base_url="http://test", httpx_client=http)
    asked = {"additional_query_parameters": {"phoneme_timestamps": "true"}}
    whole = await sdk.text_to_speech.convert_with_timestamps(
        "default", text=TEXT, output_format="pcm_24000", request_options=asked
    )
    assert whole.alignment is not None and whole.audio_base_64
    response = await http.post(
        "http://test/v1/text-to-speech/default/with-timestamps?output_format=pcm_24000"
        "&phoneme_timestamps=true",
        headers={"xi-api-key": DEV_KEY},
        json={"text": TEXT},
    )
    body = response.json()
    assert {"मुझे", "25"} <= check_track([body], "audio_base64")
    # the whole answer's phonemes run from the start of its audio
    ends = [
        s + d
        for s, d in zip(
            body["phonemes"]["startTimesMs"], body["phonemes"]["durationsMs"], strict=True
        )
    ]
    assert ends[-1] <= pcm_seconds(base64.b64decode(body["audio_base64"]), 24000) * 1000 + 1
    refused = await http.post(
        "http://test/v1/text-to-speech/default?phoneme_timestamps=true",
        headers={"xi-api-key": DEV_KEY},
        json={"text": TEXT},
    )
    assert refused.status_code == 400


async def test_a_dictionary_s_phoneme_rule_is_timed_as_its_own_phonemes(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    """A project's IPA rule for a name: the SSE timings of that name are the rule's
    phonemes, and they point at the name as the request wrote it."""
    made = await client.post(
        "/v1/pronunciation-dictionaries/add-from-rules",
        headers=auth,
        json={
            "name": "names",
            "rules": [{"type": "phoneme", "string_to_replace": "राहुल", "phoneme": "ʃjaːm"}],
        },
    )
    text = "मेरा नाम राहुल है।"
    body = {
        "input": text,
        "stream_format": "sse",
        "phoneme_timestamps": True,
        "pronunciation_dictionaries": [{"id": made.json()["id"]}],
    }
    deltas = sse_events((await client.post("/v1/audio/speech", headers=auth, json=body)).text)
    name = text.index("राहुल")
    said = [
        phoneme
        for d in deltas[:-1]
        for phoneme, start in zip(
            d["phonemes"]["phonemes"], d["phonemes"]["wordStarts"], strict=True
        )
        if start == name
    ]
    assert said == ["ʃ", "j", "aː", "m"]
