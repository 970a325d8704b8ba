"""ElevenLabs' text-to-speech REST endpoints, driven by the elevenlabs SDK itself,
unchanged, against the app in process (the serve tier does it over a real socket)."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator

import httpx
import numpy as np
import pytest
from elevenlabs import VoiceSettings
from elevenlabs.client import AsyncElevenLabs
from elevenlabs.core.api_error import ApiError

from deployments.voice_design.analysis import measure
from serve_app.http.errors import InvalidRequest
from serve_app.ingress.api import create_app
from serve_app.ingress.state import IngressState
from serve_app.speech.vocabulary import CustomVoiceRequest
from serve_app.speech.voice_saving import save_voice
from serve_app.surfaces.elevenlabs.serving import output_format
from tests.conftest import decode, pcm_seconds
from tests.unit.serve_app.conftest import DEV_KEY, ESPEAK

HI = "नमस्ते, आपका ऑर्डर कल शाम तक पहुँच जाएगा।"
RACHEL = "21m00Tcm4TlvDq8ikWAM"  # ElevenLabs' premade voice, mapped to ours


def sdk_for(state: IngressState, key: str = DEV_KEY) -> AsyncElevenLabs:
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(state)))
    return AsyncElevenLabs(api_key=key, base_url="http://test", httpx_client=http)


@pytest.fixture
async def sdk(state: IngressState) -> AsyncIterator[AsyncElevenLabs]:
    yield sdk_for(state)


async def audio_of(stream: AsyncIterator[bytes]) -> bytes:
    return b"".join([chunk async for chunk in stream])


async def test_convert_defaults_to_mp3_at_44_1_khz(sdk: AsyncElevenLabs) -> None:
    data = await audio_of(sdk.text_to_speech.convert(RACHEL, text=HI, model_id="eleven_flash_v2_5"))
    samples, rate = decode(data)
    assert rate == 44100 and 1.5 < samples.size / rate < 8.0


@pytest.mark.parametrize(
    ("fmt", "rate"), [("pcm_16000", 16000), ("pcm_24000", 24000), ("ulaw_8000", 8000)]
)
async def test_stream_at_the_asked_format(sdk: AsyncElevenLabs, fmt: str, rate: int) -> None:
    # the formats are under test: eSpeak speaks in milliseconds (Rachel, Kokoro: above)
    data = await audio_of(
        sdk.text_to_speech.stream(
            ESPEAK,
            text=HI,
            model_id="eleven_multilingual_v2",
            output_format=fmt,  # type: ignore[arg-type]
            voice_settings=VoiceSettings(stability=0.5, similarity_boost=0.8, speed=1.0),
        )
    )
    if fmt.startswith("pcm"):
        assert 1.5 < pcm_seconds(data, rate) < 8.0
    else:
        samples, decoded_rate = decode(data, "ulaw")
        assert decoded_rate == rate and 1.5 < samples.size / rate < 8.0


@pytest.mark.parametrize("voice", [ESPEAK, RACHEL])
async def test_timestamps_time_the_characters_of_an_aligning_voice(
    sdk: AsyncElevenLabs, voice: str
) -> None:
    """eSpeak times its words by its events, Kokoro by its durations: every line
    carries audio, and its characters' times run forward from the start of the audio."""
    pieces = [
        piece
        async for piece in sdk.text_to_speech.stream_with_timestamps(
            voice, text=HI, output_format="pcm_22050"
        )
    ]
    pcm = b"".join(base64.b64decode(p.audio_base_64 or "") for p in pieces)
    assert 1.5 < pcm_seconds(pcm, 22050) < 8.0
    starts = [
        t for p in pieces if p.alignment for t in p.alignment.character_start_times_seconds or []
    ]
    assert starts and starts == sorted(starts) and starts[-1] < pcm_seconds(pcm, 22050)
    whole = await sdk.text_to_speech.convert_with_timestamps(
        voice, text=HI, output_format="pcm_22050"
    )
    assert whole.alignment is not None
    assert "".join(whole.alignment.characters).replace(" ", "") == HI.replace(" ", "")


async def test_a_voice_without_timings_sends_null_alignment(sdk: AsyncElevenLabs) -> None:
    pytest.importorskip("piper", reason="the piper extra is not installed")
    whole = await sdk.text_to_speech.convert_with_timestamps("en-us-joe", text="Hello there.")
    assert whole.alignment is None and whole.audio_base_64


async def test_errors_are_the_sdk_s_own(state: IngressState, sdk: AsyncElevenLabs) -> None:
    with pytest.raises(ApiError) as refused:
        await audio_of(sdk_for(state, "sk-proj-x-y").text_to_speech.convert(RACHEL, text=HI))
    assert refused.value.status_code == 401
    with pytest.raises(ApiError) as missing:
        await audio_of(sdk.text_to_speech.convert("no-such-voice", text=HI))
    assert missing.value.status_code == 404


def test_output_formats() -> None:
    assert output_format(None).format == "mp3"
    assert output_format("mp3_22050_32").bitrate_kbps == 32
    assert output_format("opus_48000_64").sample_rate == 48000
    for bad in ("wav_44100", "ulaw_16000", "pcm_24000_64", "mp3_44100", "opus_24000_32"):
        with pytest.raises(InvalidRequest):
            output_format(bad)


async def test_capabilities_list_what_is_accepted_and_not_applied(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    compat = (await client.get("/v1/capabilities", headers=auth)).json()["compatibility"]
    assert "voice_settings.stability" in compat["elevenlabs"]["ignored_fields"]
    assert "eleven_flash_v2_5" in compat["elevenlabs"]["models"]
    assert compat["openai"]["voices"]["alloy"] == "default"


async def test_a_project_s_own_voice_by_its_id(state: IngressState, sdk: AsyncElevenLabs) -> None:
    await save_voice(
        state.speech,
        CustomVoiceRequest(id="agent", voice_description="a deep male voice"),
        state.store.find_project("dev"),
    )
    data = await audio_of(sdk.text_to_speech.convert("agent", text=HI, output_format="pcm_24000"))
    samples = np.frombuffer(data, "<i2").astype(np.float32) / 32768
    assert measure(samples, 24000).median_f0 < 160
    with pytest.raises(ApiError) as unknown:
        await audio_of(sdk.text_to_speech.convert("NoSuchVoice123", text=HI))
    assert unknown.value.status_code == 404
