"""POST /v1/audio/speech as OpenAI's clients use it: the openai SDK itself, unchanged,
talking to the app in process (the serve tier does the same over a real socket)."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator

import httpx2
import numpy as np
import openai
import pytest

from deployments.voice_design.analysis import measure
from serve_app.ingress.api import create_app
from serve_app.ingress.state import IngressState
from serve_app.speech.vocabulary import CustomVoiceRequest
from serve_app.speech.voice_saving import save_voice
from tests.conftest import decode, pcm_seconds
from tests.unit.serve_app.conftest import DEV_KEY, ESPEAK

HI = "नमस्ते, आपका ऑर्डर कल पहुँचेगा।"
EN = "Hello, your order arrives tomorrow."


@pytest.fixture
async def sdk(state: IngressState) -> AsyncIterator[openai.AsyncOpenAI]:
    transport = httpx2.ASGITransport(app=create_app(state))
    http = httpx2.AsyncClient(transport=transport, base_url="http://test")
    client = openai.AsyncOpenAI(
        api_key=DEV_KEY, base_url="http://test/v1", http_client=http, max_retries=0
    )
    yield client
    await client.close()


async def test_defaults_are_openai_s_mp3(sdk: openai.AsyncOpenAI) -> None:
    response = await sdk.audio.speech.create(model="gpt-4o-mini-tts", voice="alloy", input=HI)
    assert response.response.headers["content-type"] == "audio/mpeg"
    assert response.response.headers["x-service-language"] == "hi"
    samples, rate = decode(response.content)
    assert rate == 24000 and 1.0 < samples.size / rate < 6.0


async def test_pcm_is_24_khz_whatever_the_voice(sdk: openai.AsyncOpenAI) -> None:
    """Every OpenAI client assumes 24 kHz s16le for pcm, so an eSpeak voice (22.05 kHz
    native) is resampled."""
    response = await sdk.audio.speech.create(
        model="tts-1", voice=ESPEAK, input=HI, response_format="pcm"
    )
    assert response.response.headers["x-service-sample-rate"] == "24000"
    assert 1.0 < pcm_seconds(response.content, 24000) < 6.0


async def test_english_text_gets_an_english_voice_of_the_asked_gender(
    sdk: openai.AsyncOpenAI,
) -> None:
    """OpenAI's clients send no language: Latin text is English, and ash (a male voice)
    speaks it with our English male voice."""
    response = await sdk.audio.speech.create(
        model="tts-1", voice="ash", input=EN, response_format="wav"
    )
    headers = response.response.headers
    assert headers["x-service-language"] == "en" and headers["x-service-representation"] == "latin"
    samples, rate = decode(response.content)
    assert 1.0 < samples.size / rate < 6.0
    male = await sdk.audio.speech.create(
        model="tts-1", voice="ash", input=EN, response_format="pcm"
    )
    female = await sdk.audio.speech.create(
        model="tts-1", voice="nova", input=EN, response_format="pcm"
    )
    assert male.content != female.content


@pytest.mark.parametrize("fmt", ["opus", "aac", "flac", "wav"])
async def test_every_openai_format(sdk: openai.AsyncOpenAI, fmt: str) -> None:
    # the formats are under test: eSpeak (our voice id, which the SDK passes on) speaks
    # in milliseconds; OpenAI's voice names reach Kokoro in the tests above
    response = await sdk.audio.speech.create(
        model="tts-1-hd", voice=ESPEAK, input=HI, response_format=fmt
    )
    samples, rate = decode(response.content, fmt)
    assert 1.0 < samples.size / rate < 6.0


async def test_speed_over_openai_s_range_and_instructions(sdk: openai.AsyncOpenAI) -> None:
    slow = await sdk.audio.speech.create(
        model="gpt-4o-mini-tts", voice="alloy", input="नमस्ते।", response_format="pcm", speed=0.25
    )
    fast = await sdk.audio.speech.create(
        model="gpt-4o-mini-tts",
        voice="alloy",
        input="नमस्ते।",
        response_format="pcm",
        speed=4.0,
        instructions="Speak calmly.",
    )
    assert pcm_seconds(slow.content, 24000) > 2 * pcm_seconds(fast.content, 24000)
    # instructions are a voice description: applied, and what was applied is said
    design = fast.response.headers["x-service-voice-design"]
    assert "mode=description" in design and "pace=-0.5" in design
    assert "x-service-instructions" not in fast.response.headers
    assert "x-service-voice-design" not in slow.response.headers


async def test_instructions_for_a_voice_that_cannot_take_them_are_ignored_and_said(
    sdk: openai.AsyncOpenAI,
) -> None:
    # Piper voices have no description mode: the request still speaks, as asked.
    speech = await sdk.audio.speech.create(
        model="tts-1",
        voice="en-us-joe",
        input="Hello there.",
        response_format="pcm",
        instructions="Speak calmly.",
    )
    assert pcm_seconds(speech.content, 24000) > 0.3
    assert speech.response.headers["x-service-instructions"] == "ignored"
    assert "x-service-voice-design" not in speech.response.headers


async def test_streamed_sse_is_openai_s_events(sdk: openai.AsyncOpenAI) -> None:
    async with sdk.audio.speech.with_streaming_response.create(
        model="gpt-4o-mini-tts", voice="alloy", input=HI, response_format="pcm", stream_format="sse"
    ) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        events = [
            json.loads(line.removeprefix("data: "))
            async for line in response.iter_lines()
            if line.startswith("data: ")
        ]
    *deltas, done = events
    assert {e["type"] for e in deltas} == {"speech.audio.delta"} and deltas
    assert done["type"] == "speech.audio.done" and done["usage"]["characters"] == len(HI)
    pcm = b"".join(base64.b64decode(e["audio"]) for e in deltas)
    assert done["usage"]["audio_ms"] == int(pcm_seconds(pcm, 24000) * 1000)


async def test_errors_are_the_sdk_s_own(state: IngressState, sdk: openai.AsyncOpenAI) -> None:
    bad = openai.AsyncOpenAI(
        api_key="sk-proj-nobody-wrong",
        base_url="http://test/v1",
        http_client=httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=create_app(state)), base_url="http://test"
        ),
        max_retries=0,
    )
    with pytest.raises(openai.AuthenticationError):
        await bad.audio.speech.create(model="tts-1", voice="alloy", input=HI)
    with pytest.raises(openai.NotFoundError) as missing:
        await sdk.audio.speech.create(model="tts-1", voice="nobody", input=HI)
    assert missing.value.body["code"] == "voice_not_found"  # type: ignore[index]
    with pytest.raises(openai.BadRequestError):
        await sdk.audio.speech.create(model="tts-1", voice="alloy", input=HI, speed=5.0)
    await bad.close()


async def test_our_own_requests_are_unchanged(sdk: openai.AsyncOpenAI) -> None:
    """A request that names our model keeps our own defaults: raw pcm at the voice's
    rate, our SSE events."""
    response = await sdk.audio.speech.create(model="service-v1", voice="default", input=HI)
    assert response.response.headers["content-type"] == "audio/L16;rate=24000;channels=1"
    samples = np.frombuffer(response.content, dtype="<i2")
    assert samples.size > 24000


async def test_a_project_s_own_voice_by_its_id(
    state: IngressState, sdk: openai.AsyncOpenAI
) -> None:
    """A voice agent keeps its voice: the custom voice's id works as OpenAI's ``voice``."""
    voice = await save_voice(
        state.speech,
        CustomVoiceRequest(id="agent", voice_description="a deep male voice"),
        state.store.find_project("dev"),
    )
    speech = await sdk.audio.speech.create(
        model="tts-1", voice="agent", input=HI, response_format="pcm", instructions="fast"
    )
    assert speech.response.headers["x-service-voice-design"].startswith("mode=custom; voice=agent")
    assert speech.response.headers["x-service-instructions"] == "ignored"  # already built
    samples = np.frombuffer(speech.content, "<i2").astype(np.float32) / 32768
    assert measure(samples, 24000).median_f0 < 160 and voice.gender == "male"
    with pytest.raises(openai.NotFoundError):
        await sdk.audio.speech.create(model="tts-1", voice="nobody-s-voice", input=HI)
