"""SSML on every surface that takes it: opt-in per request, breaks heard as silence in
every format, billed by the text a listener hears, malformed markup a 400 that says
where."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import httpx
import numpy as np
import pytest
import soundfile
from starlette.testclient import TestClient

from deployments.normaliser.normaliser import heard_characters, heard_phonemes
from serve_app.ingress.api import create_app
from serve_app.ingress.state import IngressState
from tests.conftest import pcm_seconds
from tests.unit.serve_app.conftest import DEV_KEY, ESPEAK, make_state

PLAIN = "नमस्ते दुनिया। आज मौसम अच्छा है।"
PAUSED = '<speak>नमस्ते दुनिया।<break time="2s"/>आज मौसम अच्छा है।</speak>'


def silences(pcm: bytes | np.ndarray, rate: int, below: int = 1) -> list[float]:
    """Seconds of each run of 16-bit samples under ``below`` (1: exact zeros), longest
    first."""
    samples = np.frombuffer(pcm, np.int16) if isinstance(pcm, bytes) else pcm
    zero = np.abs(samples.astype(np.int32)) < below
    edges = np.flatnonzero(np.diff(np.concatenate([[0], zero.astype(np.int8), [0]])))
    runs = edges[1::2] - edges[::2]
    return sorted((float(run) / rate for run in runs), reverse=True)


def longest_silence(pcm: bytes | np.ndarray, rate: int, below: int = 1) -> float:
    """Seconds of the longest run of 16-bit samples under ``below`` (1: exact zeros)."""
    return max(silences(pcm, rate, below), default=0.0)


async def speak(client: httpx.AsyncClient, auth: dict[str, str], **body: object) -> httpx.Response:
    base = {"voice": ESPEAK, "sample_rate": 24000, "stream": False}
    return await client.post("/v1/audio/speech", headers=auth, json={**base, **body})


async def test_a_break_is_silence_of_its_length_in_every_format(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    plain = await speak(client, auth, input=PLAIN)
    paused = await speak(client, auth, input=PAUSED, text_type="ssml")
    assert plain.status_code == paused.status_code == 200, paused.text
    assert longest_silence(paused.content, 24000) >= 1.9 > longest_silence(plain.content, 24000)
    extra = pcm_seconds(paused.content, 24000) - pcm_seconds(plain.content, 24000)
    assert 1.7 < extra < 2.6  # eSpeak's own sentence pause is replaced, not added to
    for fmt in ("mp3", "wav", "opus"):
        encoded = await speak(
            client, auth, input=PAUSED, text_type="ssml", response_format=fmt, sample_rate=None
        )
        assert encoded.status_code == 200, (fmt, encoded.text)
        audio, rate = soundfile.read(io.BytesIO(encoded.content), dtype="int16")
        # lossy codecs leave a little noise in silence: under -50 dBFS counts
        assert longest_silence(audio, rate, below=100) >= 1.8, fmt
        assert len(audio) / rate > pcm_seconds(plain.content, 24000) + 1.7, fmt


async def test_markup_is_read_only_when_asked_and_billed_by_what_is_heard(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    before = (await client.get("/v1/account/usage", headers=auth)).json()["usage"]["characters"]
    said = await speak(client, auth, input=PAUSED, text_type="ssml")
    after = (await client.get("/v1/account/usage", headers=auth)).json()["usage"]["characters"]
    assert said.status_code == 200
    assert after - before == len("नमस्ते दुनिया।आज मौसम अच्छा है।")
    shown = await client.post(
        "/v1/text/normalize", headers=auth, json={"input": PAUSED, "text_type": "ssml"}
    )
    segments = shown.json()["segments"]
    assert [PAUSED[s["start"] : s["end"]] for s in segments] == [
        "नमस्ते दुनिया।",
        "आज मौसम अच्छा है।",
    ]
    assert segments[0]["pause_after_ms"] == 2000 and segments[0]["prosody"] is None
    as_text = await client.post("/v1/text/normalize", headers=auth, json={"input": PAUSED})
    assert "<" in as_text.json()["text"]  # plain text is never markup


@pytest.mark.parametrize(
    ("markup", "code", "says"),
    [
        ("<speak>\n<p>नमस्ते</speak>", "invalid_value", "line 2, column"),
        ('<!DOCTYPE speak [<!ENTITY a "aaaa">]><speak>&a;</speak>', "invalid_value", "DTD"),
        ("<speak><audio src='x.wav'/></speak>", "invalid_value", "<audio> is not supported"),
        ('<speak><lang xml:lang="xx">a</lang></speak>', "unsupported_language", "xx"),
        ('<speak><break time="1s"/></speak>', "empty_input", "nothing to speak"),
    ],
)
async def test_markup_that_cannot_be_spoken_is_a_400_that_says_why(
    client: httpx.AsyncClient, auth: dict[str, str], markup: str, code: str, says: str
) -> None:
    for path, voice in (("/v1/audio/speech", {"voice": ESPEAK}), ("/v1/text/normalize", {})):
        refused = await client.post(
            path, headers=auth, json={"input": markup, "text_type": "ssml", **voice}
        )
        error = refused.json()["error"]
        assert refused.status_code == 400 and error["code"] == code, refused.text
        assert says in error["message"] and error["param"] == "input"


async def test_prosody_changes_pace_and_volume(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    plain = await speak(client, auth, input=PLAIN)
    slow = await speak(
        client, auth, input=f'<prosody rate="x-slow" volume="x-soft">{PLAIN}</prosody>',
        text_type="ssml",
    )  # fmt: skip
    assert pcm_seconds(slow.content, 24000) > 1.4 * pcm_seconds(plain.content, 24000)
    peak = np.abs(np.frombuffer(slow.content, np.int16)).max()
    assert peak < 0.4 * np.abs(np.frombuffer(plain.content, np.int16)).max()


async def test_elevenlabs_text_with_breaks_when_ssml_parsing_is_enabled(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    """ElevenLabs' users write ``<break/>`` into their text, without ``<speak>``."""
    text = 'नमस्ते दुनिया। <break time="1.5s" /> आज मौसम अच्छा है।'
    url = f"/v1/text-to-speech/{ESPEAK}?output_format=pcm_24000"
    parsed = await client.post(f"{url}&enable_ssml_parsing=true", headers=auth, json={"text": text})
    assert parsed.status_code == 200, parsed.text
    assert longest_silence(parsed.content, 24000) >= 1.45  # (a resampler's edge)


@pytest.mark.parametrize(
    "url",
    [
        f"/v1/audio/speech/stream-input/{ESPEAK}?text_type=ssml",
        f"/v1/text-to-speech/{ESPEAK}/stream-input?output_format=pcm_24000&enable_ssml_parsing=true",
    ],
    ids=["ours", "elevenlabs"],
)
def test_a_websocket_of_ssml_hears_breaks_across_its_messages(
    state: IngressState, url: str
) -> None:
    with (
        TestClient(create_app(state)) as client,
        client.websocket_connect(url, headers={"Authorization": f"Bearer {DEV_KEY}"}) as ws,
    ):
        for text in [
            " ",
            "<speak>नमस्ते दुनिया। <break ",
            'time="1500ms"/> <prosody rate="fast">आज',
            " मौसम अच्छा है।</prosody></speak>",
            '<break time="2500ms"/>',  # a piece alone (flushed): heard before the next text
            "फिर मिलेंगे।",
            "",
        ]:
            ws.send_json({"text": text, "flush": text.endswith(">")})
        audio = b""
        while not (message := ws.receive_json()).get("isFinal"):
            assert "error" not in message, message
            audio += base64.b64decode(message["audio"])
    longest, second = silences(audio, 24000)[:2]
    assert longest >= 2.45 and second >= 1.45  # (a resampler's edge)


def test_markup_alone_cannot_pile_up_on_a_websocket(tmp_path: Path) -> None:
    """Breaks flushed by themselves wait in the session's buffer for text to speak,
    counted as buffered text: past the buffer's limit, input_too_long."""
    state = make_state(tmp_path, ws_max_buffered_chars=1_000)
    url = f"/v1/audio/speech/stream-input/{ESPEAK}?text_type=ssml"
    with (
        TestClient(create_app(state)) as client,
        client.websocket_connect(url, headers={"Authorization": f"Bearer {DEV_KEY}"}) as ws,
    ):
        ws.send_json({"text": " "})
        for _ in range(3):
            ws.send_json({"text": '<break time="0ms"/>' * 20, "flush": True})
        error = ws.receive_json()["error"]
    assert error["code"] == "input_too_long" and error["param"] == "text"


async def test_ssml_phonemes_reach_the_default_voice(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    """``<phoneme>`` takes the dictionaries' path: the segment carries the IPA, and the
    default (Kokoro) voice says it differently from the plain name."""
    plain = "मेरा नाम राहुल है।"
    marked = '<speak>मेरा नाम <phoneme alphabet="ipa" ph="ʃjaːm">राहुल</phoneme> है।</speak>'
    shown = await client.post(
        "/v1/text/normalize", headers=auth, json={"input": marked, "text_type": "ssml"}
    )
    (segment,) = shown.json()["segments"]
    assert segment["phonemes"] == [{"start": 9, "end": 14, "phonemes": "ʃjaːm", "alphabet": "ipa"}]
    said = await client.post(
        "/v1/audio/speech",
        headers=auth,
        json={"input": marked, "text_type": "ssml", "stream": False},
    )
    unmarked = await client.post(
        "/v1/audio/speech", headers=auth, json={"input": plain, "stream": False}
    )
    assert said.status_code == unmarked.status_code == 200
    assert said.content != unmarked.content


async def test_a_long_sub_alias_is_billed_as_heard(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    """<sub alias="(a long text)">क</sub> three times: billed for what is said."""
    alias = " ".join(["नमस्ते"] * 25)
    markup = "<speak>" + f'<sub alias="{alias}">क</sub> ' * 3 + "</speak>"
    before = (await client.get("/v1/account/usage", headers=auth)).json()["usage"]["characters"]
    said = await speak(client, auth, input=markup, text_type="ssml", voice=ESPEAK, stream=False)
    after = (await client.get("/v1/account/usage", headers=auth)).json()["usage"]["characters"]
    assert said.status_code == 200, said.text
    assert after - before >= 3 * heard_characters(alias)


async def test_a_long_phoneme_string_is_billed_as_heard(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    """<phoneme ph="(a sentence of IPA)">x</phoneme>: billed for its sounds, as the
    sentence written out would be (7.8 s of audio was billed one character)."""
    ipa = "nəməsteː aːp keːseː hɛ̃ː " * 6
    markup = f"<speak><phoneme alphabet='ipa' ph='{ipa}'>x</phoneme></speak>"
    before = (await client.get("/v1/account/usage", headers=auth)).json()["usage"]["characters"]
    said = await speak(client, auth, input=markup, text_type="ssml", voice="default")
    after = (await client.get("/v1/account/usage", headers=auth)).json()["usage"]["characters"]
    assert said.status_code == 200, said.text
    assert after - before >= heard_phonemes(ipa) > 80
