"""Voices by description and by reference, and a project's own voices, through the
API with the real engines: what comes out is measured, not taken on trust."""

from __future__ import annotations

import base64
import io
import math
from pathlib import Path

import httpx
import numpy as np
import pytest
import soundfile

from deployments.voice_design.analysis import measure
from serve_app.ingress.api import create_app
from serve_app.ingress.state import IngressState
from tests.conftest import decode, speech_like
from tests.unit.serve_app.conftest import make_state

# One sentence (~3 s of speech): enough for a steady median pitch and for a reference
# recording (at least 1 s), at a third of the synthesis of two.
HI = "आज मौसम बहुत अच्छा है, हम सब शाम को बाज़ार चलेंगे।"


async def spoken(client: httpx.AsyncClient, auth: dict[str, str], **body: object) -> httpx.Response:
    response = await client.post(
        "/v1/audio/speech",
        headers=auth,
        json={"input": HI, "response_format": "wav", "stream": False, **body},
    )
    assert response.status_code == 200, response.text
    return response


async def median_f0(client: httpx.AsyncClient, auth: dict[str, str], **body: object) -> float:
    samples, rate = decode((await spoken(client, auth, **body)).content)
    return measure(samples, rate).median_f0


def semitones(a: float, b: float) -> float:
    return 12 * math.log2(a / b)


def design(response: httpx.Response) -> dict[str, str]:
    header = response.headers["x-service-voice-design"]
    return dict(item.split("=", 1) for item in header.split("; "))


# a 1 kHz square wave, three seconds at 16 kHz: a steady tone
SQUARE_1KHZ = (0.5 * np.sign(np.sin(2 * np.pi * 1000 * np.arange(48000) / 16000))).astype(
    np.float32
)


def wav_b64(samples: np.ndarray, rate: int) -> str:
    out = io.BytesIO()
    soundfile.write(out, samples, rate, format="WAV", subtype="PCM_16")
    return base64.b64encode(out.getvalue()).decode()


@pytest.mark.parametrize("voice", ["default", "hi-espeak-aditi"])
async def test_a_description_moves_the_measured_pitch_the_way_it_says(
    client: httpx.AsyncClient, auth: dict[str, str], voice: str
) -> None:
    """Both engines: Kokoro by blending style tables, eSpeak by voice and pitch."""
    own = await median_f0(client, auth, voice=voice)
    deep = await median_f0(client, auth, voice=voice, voice_description="a deep male voice")
    high = await median_f0(client, auth, voice=voice, voice_description="ऊँची आवाज़ वाली महिला")
    assert semitones(own, deep) > 4, (own, deep)
    assert semitones(high, own) > 1, (own, high)


async def test_a_description_s_pace_and_what_was_applied_are_in_the_answer(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    plain = await spoken(client, auth)
    slow = await spoken(client, auth, voice_description="a calm, deep male voice, speaking slowly")
    applied = design(slow)
    assert applied["mode"] == "description" and applied["gender"] == "male"
    assert applied["pitch"] == "-1.0" and applied["pace"] == "-1.0"
    assert float(applied["speed"]) == pytest.approx(0.707, abs=0.001)
    assert "hi-male-omega" in applied["blend"] or "hi-male-psi" in applied["blend"]
    assert len(slow.content) > 1.2 * len(plain.content)  # slower: longer


async def test_a_reference_from_one_voice_picks_that_voice_s_neighbourhood(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    for voice, gender in [("hi-male-omega", "male"), ("hi-female-beta", "female")]:
        recorded = (await spoken(client, auth, voice=voice)).content
        target = measure(*decode(recorded)).median_f0
        matched = await spoken(client, auth, reference_audio=base64.b64encode(recorded).decode())
        report = design(matched)
        assert report["mode"] == "reference"
        assert float(report["target_f0"]) == pytest.approx(target, rel=0.01)
        blend = {
            name: float(weight)
            for name, weight in (item.rsplit(":", 1) for item in report["blend"].split("+"))
        }
        heaviest = max(blend, key=lambda name: blend[name])
        assert heaviest.startswith(f"hi-{gender}-") or (
            gender == "female" and heaviest == "default"
        )
        achieved = measure(*decode(matched.content)).median_f0
        assert abs(semitones(achieved, target)) < 2.0, (voice, target, achieved, report)


async def test_a_reference_on_espeak_chooses_its_voice_and_pitch(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    recorded = (await spoken(client, auth, voice="hi-male-arjun", pitch=0.3)).content
    matched = await spoken(
        client, auth, voice="hi-espeak-aditi", reference_audio=base64.b64encode(recorded).decode()
    )
    report = design(matched)
    assert report["blend"] == "hi-male-arjun:1.00" and float(report["pitch"]) > 0
    target = measure(*decode(recorded)).median_f0
    assert abs(semitones(measure(*decode(matched.content)).median_f0, target)) < 1.5


@pytest.mark.parametrize(
    ("audio", "code"),
    [
        ("not base64!", "reference_audio_invalid"),
        (
            base64.b64encode(b"ID3\x03\x00\x00\x00" + bytes(2000)).decode(),
            "reference_audio_invalid",
        ),
        (wav_b64(speech_like(150.0, 0.5), 24000), "reference_audio_too_short"),
        (wav_b64(np.zeros(48000, np.float32), 24000), "reference_audio_silent"),
        (wav_b64(speech_like(150.0, 21.0, rate=8000), 8000), "reference_audio_too_long"),
        ("A" * 900_004, "reference_audio_too_large"),
        (wav_b64(np.full(48000, 0.5, np.float32), 16000), "reference_audio_not_speech"),
        (wav_b64(SQUARE_1KHZ, 16000), "reference_audio_not_speech"),
        (wav_b64(speech_like(530.0, 3.0, rate=16000), 16000), "reference_audio_not_speech"),
        (wav_b64(speech_like(1.0, 3.0, rate=100), 100), "reference_audio_invalid"),
    ],
)
async def test_bad_reference_audio_gets_a_clear_code(
    client: httpx.AsyncClient, auth: dict[str, str], audio: str, code: str
) -> None:
    response = await client.post(
        "/v1/audio/speech", headers=auth, json={"input": HI, "reference_audio": audio}
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["code"], error["param"]) == (code, "reference_audio")


async def test_a_stereo_reference_at_any_rate_is_heard(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    mono = speech_like(120.0, 3.0, rate=44100)
    stereo = np.stack([mono, mono], axis=1)
    matched = await spoken(client, auth, reference_audio=wav_b64(stereo, 44100))
    assert float(design(matched)["target_f0"]) == pytest.approx(120.0, rel=0.03)


async def test_one_mode_at_a_time(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await client.post(
        "/v1/audio/speech",
        headers=auth,
        json={
            "input": HI,
            "voice_description": "deep",
            "reference_audio": wav_b64(speech_like(120.0, 2.0), 24000),
        },
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_value"


async def second_key(state: IngressState) -> dict[str, str]:
    project = state.store.create_project("other")
    return {"Authorization": f"Bearer {state.store.create_key(project)}"}


async def test_a_project_keeps_its_own_voice_across_calls(
    state: IngressState, client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    created = await client.post(
        "/v1/voices",
        headers=auth,
        json={"id": "narrator", "name": "Narrator", "voice_description": "a deep calm male voice"},
    )
    assert created.status_code == 201, created.text
    record = created.json()
    assert record["custom"] is True and record["gender"] == "male" and record["languages"] == ["hi"]
    assert record["design"]["mode"] == "description"

    # listed for the project's keys only; others and the public do not see it
    own = [v["id"] for v in (await client.get("/v1/voices", headers=auth)).json()["data"]]
    public = [v["id"] for v in (await client.get("/v1/voices")).json()["data"]]
    other = await second_key(state)
    theirs = [v["id"] for v in (await client.get("/v1/voices", headers=other)).json()["data"]]
    assert "narrator" in own and "narrator" not in public and "narrator" not in theirs
    assert (await client.get("/v1/voices/narrator", headers=auth)).json()["custom"] is True
    assert (await client.get("/v1/voices/narrator", headers=other)).status_code == 404

    # the same voice, call after call (and the other project cannot use it)
    first = await spoken(client, auth, voice="narrator")
    again = await spoken(client, auth, voice="narrator")
    assert first.content == again.content
    assert design(first)["mode"] == "custom" and design(first)["voice"] == "narrator"
    assert measure(*decode(first.content)).median_f0 < 150
    refused = await client.post(
        "/v1/audio/speech", headers=other, json={"input": HI, "voice": "narrator"}
    )
    assert refused.status_code == 404 and refused.json()["error"]["code"] == "voice_not_found"

    # it speaks the language it was built in
    english = await client.post(
        "/v1/audio/speech",
        headers=auth,
        json={"input": "Hello", "voice": "narrator", "language": "en"},
    )
    assert english.status_code == 400 and english.json()["error"]["code"] == "unsupported_language"
    assert "'narrator'" in english.json()["error"]["message"]

    # deleted: gone, its audio in the speech cache with it (it was heard from there)
    assert again.headers["x-service-cache"] == "hit"
    assert (await client.delete("/v1/voices/narrator", headers=auth)).status_code == 204
    gone = await client.post(
        "/v1/audio/speech", headers=auth, json={"input": HI, "voice": "narrator"}
    )
    assert gone.status_code == 404
    assert (await client.delete("/v1/voices/narrator", headers=auth)).status_code == 404


async def test_a_custom_voice_from_a_reference_and_its_refusals(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    recorded = (await spoken(client, auth, voice="hi-female-beta")).content
    created = await client.post(
        "/v1/voices",
        headers=auth,
        json={"id": "like-beta", "reference_audio": base64.b64encode(recorded).decode()},
    )
    assert created.status_code == 201 and created.json()["design"]["mode"] == "reference"
    assert created.json()["gender"] == "female"
    for body, code in [
        ({"id": "default", "voice_description": "deep"}, "invalid_value"),  # a registered id
        ({"id": "plain"}, "missing_field"),
        ({"id": "Bad Id", "voice_description": "deep"}, "invalid_value"),
    ]:
        response = await client.post("/v1/voices", headers=auth, json=body)
        assert response.status_code == 400 and response.json()["error"]["code"] == code, body
    described_again = await client.post(
        "/v1/audio/speech",
        headers=auth,
        json={"input": HI, "voice": "like-beta", "voice_description": "fast"},
    )
    assert described_again.status_code == 400
    assert (await client.post("/v1/voices", json={"id": "x"})).status_code == 401


def test_a_custom_voice_on_the_websocket(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from tests.unit.serve_app.conftest import DEV_KEY

    state = make_state(tmp_path)
    client = TestClient(create_app(state))
    headers = {"Authorization": f"Bearer {DEV_KEY}"}
    created = client.post(
        "/v1/voices", headers=headers, json={"id": "agent", "voice_description": "a fast man"}
    )
    assert created.status_code == 201
    ours = "/v1/audio/speech/stream-input/agent?response_format=pcm"
    elevenlabs = "/v1/text-to-speech/agent/stream-input?output_format=pcm_24000"
    for url, auth in [(ours, headers), (elevenlabs, {"xi-api-key": DEV_KEY})]:
        with client.websocket_connect(url, headers=auth) as ws:
            ws.send_json({"text": " "})
            ws.send_json({"text": HI})
            ws.send_json({"text": ""})
            audio = b""
            while True:
                message = ws.receive_json()
                if message.get("isFinal"):
                    break
                assert "error" not in message, message
                audio += base64.b64decode(message["audio"] or "")
        samples = np.frombuffer(audio, "<i2").astype(np.float32) / 32768
        assert measure(samples, 24000).median_f0 < 160, url
