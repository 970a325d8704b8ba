"""The client libraries voice-agent builders use, unchanged, pointed at the Serve app on
127.0.0.1 by their base URL and key alone: each gets speech of a plausible length at the
rate it assumes, and a bad key gets the client's own error."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import io
import ssl
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import openai
import pytest

from tests.conftest import decode, pcm_seconds
from tests.serve.conftest import Service
from tests.tls import self_signed_certificate
from tests.waiting import HANG_S

pytestmark = pytest.mark.serve

HI = "नमस्ते, आपका ऑर्डर कल शाम तक पहुँच जाएगा।"
EN = "Hello, your order will arrive by tomorrow evening."


def openai_client(service: Service, key: str | None = None) -> openai.OpenAI:
    return openai.OpenAI(api_key=key or service.key, base_url=f"{service.url}/v1", max_retries=0)


def test_openai_sdk_buffered_and_streamed(service: Service) -> None:
    client = openai_client(service)
    mp3 = client.audio.speech.create(model="gpt-4o-mini-tts", voice="alloy", input=HI)
    samples, rate = decode(mp3.content)
    assert rate == 24000 and 1.5 < samples.size / rate < 8.0
    with client.audio.speech.with_streaming_response.create(
        model="tts-1", voice="onyx", input=EN, response_format="pcm"
    ) as response:
        chunks = list(response.iter_bytes())
    assert len(chunks) >= 1
    assert 1.5 < pcm_seconds(b"".join(chunks), 24000) < 8.0
    with pytest.raises(openai.AuthenticationError):
        openai_client(service, "sk-proj-nobody-wrong").audio.speech.create(
            model="tts-1", voice="alloy", input=HI
        )


def livekit_patience() -> Any:
    """LiveKit's connection options with a hang's bound: its plugins give a request
    10 s by default, and beside make test-busy's neighbour a first audio took longer.
    These tests check the wire, not the pace."""
    from livekit.agents import APIConnectOptions

    return APIConnectOptions(timeout=HANG_S)


@pytest.mark.parametrize("model", ["gpt-4o-mini-tts", "tts-1"])
def test_livekit_openai_tts_without_a_room(service: Service, model: str) -> None:
    """LiveKit's OpenAI plugin asks gpt-4o-mini-tts for OpenAI's SSE events and tts-1 for
    raw audio; both decode (mp3, its default) to 24 kHz frames. No room is needed."""
    from livekit.agents import APIStatusError
    from livekit.plugins import openai as livekit_openai

    async def speak(key: str) -> tuple[int, float]:
        tts = livekit_openai.TTS(model=model, base_url=f"{service.url}/v1", api_key=key)
        try:
            frame = await tts.synthesize(HI, conn_options=livekit_patience()).collect()
        finally:
            await tts.aclose()
        return frame.sample_rate, frame.samples_per_channel / frame.sample_rate

    rate, seconds = asyncio.run(speak(service.key))
    assert rate == 24000 and 1.5 < seconds < 8.0
    with pytest.raises(APIStatusError) as refused:
        asyncio.run(speak("sk-proj-nobody-wrong"))
    assert refused.value.status_code == 401


# Pipecat ends an utterance when its audio pauses for stop_frame_timeout_s (3 s by
# default), and one whose first audio takes that long ends with an error ("completed
# with no audio"). Beside make test-busy's neighbour the first audio of this tier's
# Kokoro through the OpenAI route took 3.7 s; what these tests check is the wire
# format, not the pace (that is loadtest's), so every service here waits several
# times that. An HTTP service waits the pause out after its last audio too (a quiet
# run pays it: each of the two HTTP tests' good utterance ends PATIENCE_S after its
# audio); the WebSocket service ends its utterance at our isFinal message.
PATIENCE_S = 15.0


def run_pipecat(
    make_tts: Callable[[aiohttp.ClientSession], object], text: str
) -> tuple[list[object], list[object]]:
    """``text`` through a real Pipecat pipeline with the TTS service ``make_tts`` builds
    (given an HTTP session) in it: its audio frames (downstream) and error frames
    (upstream)."""
    from pipecat.frames.frames import EndFrame, ErrorFrame, TTSAudioRawFrame, TTSSpeakFrame
    from pipecat.pipeline.pipeline import Pipeline
    from pipecat.pipeline.runner import PipelineRunner
    from pipecat.pipeline.task import PipelineParams, PipelineTask
    from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

    class Collect(FrameProcessor):
        def __init__(self, kind: type, found: list[object]) -> None:
            super().__init__()
            self.kind, self.found = kind, found

        async def process_frame(self, frame: object, direction: FrameDirection) -> None:
            await super().process_frame(frame, direction)  # type: ignore[arg-type]
            if isinstance(frame, self.kind):
                self.found.append(frame)
            await self.push_frame(frame, direction)  # type: ignore[arg-type]

    audio: list[object] = []
    errors: list[object] = []

    async def run() -> None:
        async with aiohttp.ClientSession() as session:
            pipeline = Pipeline(
                [Collect(ErrorFrame, errors), make_tts(session), Collect(TTSAudioRawFrame, audio)]
            )
            task = PipelineTask(pipeline, params=PipelineParams(audio_out_sample_rate=24000))
            await task.queue_frames([TTSSpeakFrame(text), EndFrame()])
            await asyncio.wait_for(PipelineRunner(handle_sigint=False).run(task), HANG_S)

    asyncio.run(run())
    return audio, errors


def test_pipecat_openai_tts_service(service: Service) -> None:
    from pipecat.services.openai.tts import OpenAITTSService

    def tts(key: str) -> Callable[[aiohttp.ClientSession], object]:
        return lambda _: OpenAITTSService(
            api_key=key,
            base_url=f"{service.url}/v1",
            voice="alloy",
            model="gpt-4o-mini-tts",
            stop_frame_timeout_s=PATIENCE_S,
        )

    check_pipecat(tts(service.key), tts("sk-proj-nobody-wrong"))


def check_pipecat(
    good: Callable[[aiohttp.ClientSession], object], bad: Callable[[aiohttp.ClientSession], object]
) -> None:
    """Speech at the pipeline's 24 kHz from ``good``; an error frame and no audio from
    ``bad`` (a wrong key)."""
    audio, errors = run_pipecat(good, HI)
    assert not errors and audio
    assert {frame.sample_rate for frame in audio} == {24000}  # type: ignore[attr-defined]
    pcm = b"".join(frame.audio for frame in audio)  # type: ignore[attr-defined]
    assert 1.5 < pcm_seconds(pcm, 24000) < 8.0
    audio, errors = run_pipecat(bad, HI)
    assert not audio and errors


def test_pipecat_elevenlabs_http_tts_service(service: Service) -> None:
    """Pipecat's HTTP ElevenLabs service: /stream/with-timestamps at pcm_24000, the key
    in xi-api-key, an ElevenLabs voice id."""
    from pipecat.services.elevenlabs.tts import ElevenLabsHttpTTSService

    def tts(key: str) -> Callable[[aiohttp.ClientSession], object]:
        return lambda session: ElevenLabsHttpTTSService(
            api_key=key,
            aiohttp_session=session,
            base_url=service.url,
            settings=ElevenLabsHttpTTSService.Settings(
                voice="21m00Tcm4TlvDq8ikWAM", model="eleven_flash_v2_5"
            ),
            stop_frame_timeout_s=PATIENCE_S,
        )

    check_pipecat(tts(service.key), tts("sk-proj-nobody-wrong"))


def test_elevenlabs_sdk(service: Service) -> None:
    from elevenlabs.client import ElevenLabs
    from elevenlabs.core.api_error import ApiError

    client = ElevenLabs(api_key=service.key, base_url=service.url)
    pcm = b"".join(
        client.text_to_speech.stream(
            "21m00Tcm4TlvDq8ikWAM", text=HI, model_id="eleven_flash_v2_5", output_format="pcm_24000"
        )
    )
    assert 1.5 < pcm_seconds(pcm, 24000) < 8.0
    mp3 = b"".join(client.text_to_speech.convert("pNInz6obpgDQGcFmaJgB", text=EN))
    samples, rate = decode(mp3)
    assert rate == 44100 and 1.5 < samples.size / rate < 8.0
    with pytest.raises(ApiError) as refused:
        b"".join(
            ElevenLabs(api_key="sk-proj-x-y", base_url=service.url).text_to_speech.convert(
                "21m00Tcm4TlvDq8ikWAM", text=HI
            )
        )
    assert refused.value.status_code == 401


def test_elevenlabs_sdk_pronunciation_dictionaries(service: Service) -> None:
    """The SDK's dictionary calls, unchanged, against the running service: a PLS file in,
    the same lexicon back, and its alias heard through the whole graph by the default
    voice ('State Bank of India' is longer to say than 'S B I')."""
    from elevenlabs.client import ElevenLabs
    from elevenlabs.types import PronunciationDictionaryVersionLocator

    from deployments.normaliser import pls

    lexicon = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<lexicon version="1.0" '
        'xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" '
        'xml:lang="hi-IN"><lexeme><grapheme>SBI</grapheme>'
        "<alias>स्टेट बैंक ऑफ़ इंडिया</alias></lexeme></lexicon>"
    ).encode()
    client = ElevenLabs(api_key=service.key, base_url=service.url)
    made = client.pronunciation_dictionaries.create_from_file(
        name="bank", file=("bank.pls", io.BytesIO(lexicon), "application/pls+xml")
    )
    back = b"".join(client.pronunciation_dictionaries.download(made.id, made.version_id))
    assert pls.read(back) == pls.read(lexicon)

    def seconds(*located: PronunciationDictionaryVersionLocator) -> float:
        pcm = client.text_to_speech.convert(
            "21m00Tcm4TlvDq8ikWAM",
            text="मेरा SBI खाता।",
            output_format="pcm_24000",
            pronunciation_dictionary_locators=list(located) or None,
        )
        return pcm_seconds(b"".join(pcm), 24000)

    located = PronunciationDictionaryVersionLocator(
        pronunciation_dictionary_id=made.id, version_id=made.version_id
    )
    assert seconds(located) > seconds() + 0.5


def test_livekit_elevenlabs_tts_over_multi_stream_input(service: Service) -> None:
    """LiveKit's ElevenLabs plugin, its defaults (model, voice, mp3_22050_32) and one
    context per utterance on the multi-stream-input socket; no room needed."""
    from livekit.agents import APIError
    from livekit.plugins import elevenlabs as livekit_elevenlabs

    async def speak(key: str) -> tuple[int, float]:
        async with aiohttp.ClientSession() as session:
            tts = livekit_elevenlabs.TTS(
                api_key=key, base_url=f"{service.url}/v1", http_session=session
            )
            try:
                stream = tts.stream(conn_options=livekit_patience())
                stream.push_text(HI)
                stream.end_input()
                frames = [event.frame async for event in stream]
            finally:
                await tts.aclose()
        rate = frames[0].sample_rate
        return rate, sum(f.samples_per_channel for f in frames) / rate

    rate, seconds = asyncio.run(speak(service.key))
    assert rate == 22050 and 1.5 < seconds < 8.0
    # A wrong key: an error frame, then close 1008 once the plugin has sent its first
    # message. The plugin raises; a close that reached it before its stream registered
    # (the service closed at once before) left it waiting for audio forever. Bounded
    # here (a hang's guard): the refusal comes in milliseconds.
    with pytest.raises(APIError):
        asyncio.run(asyncio.wait_for(speak("sk-proj-nobody-wrong"), HANG_S))


def test_pipecat_elevenlabs_tts_service_over_multi_stream_input(service: Service) -> None:
    from pipecat.services.elevenlabs.tts import ElevenLabsTTSService

    def tts(key: str) -> Callable[[aiohttp.ClientSession], object]:
        return lambda _: ElevenLabsTTSService(
            api_key=key,
            url=service.url.replace("http://", "ws://"),
            settings=ElevenLabsTTSService.Settings(
                voice="21m00Tcm4TlvDq8ikWAM", model="eleven_flash_v2_5"
            ),
            stop_frame_timeout_s=PATIENCE_S,
        )

    check_pipecat(tts(service.key), tts("sk-proj-nobody-wrong"))


def test_elevenlabs_sdk_realtime_helper_behind_tls(
    service: Service, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SDK's WebSocket helper always dials wss://, as a deployment behind TLS
    serves it: here a TLS terminator on 127.0.0.1 (a self-signed certificate the
    client is told to trust) in front of the service."""
    from elevenlabs.client import ElevenLabs

    cert = self_signed_certificate(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    port = urlsplit(service.url).port
    assert port is not None
    with tls_terminator(cert, tmp_path / "key.pem", port) as tls_port:
        client = ElevenLabs(api_key=service.key, base_url=f"https://127.0.0.1:{tls_port}")
        pcm = b"".join(
            client.text_to_speech.convert_realtime(
                voice_id="21m00Tcm4TlvDq8ikWAM",
                text=iter(["नमस्ते, आपका ऑर्डर ", "कल शाम तक पहुँच जाएगा।"]),
                model_id="eleven_flash_v2_5",
                output_format="pcm_24000",
            )
        )
    assert 1.5 < pcm_seconds(pcm, 24000) < 8.0


@contextlib.contextmanager
def tls_terminator(cert: Path, key: Path, backend_port: int) -> Iterator[int]:
    """TLS on a free 127.0.0.1 port, forwarding plain TCP to ``backend_port``; yields
    the port. Runs on its own event loop in a thread, stopped on exit."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    # No TLS 1.3 session tickets. The websockets library's sync client (the
    # ElevenLabs SDK's helper) reads its TLS socket on one thread while it writes
    # the handshake on another; OpenSSL forbids that, and a ticket arriving
    # meanwhile failed the handshake (an SSL "internal error") or hung it: about 1
    # connection in 500 through this terminator, none in 3,000 without tickets.
    context.num_tickets = 0
    loop = asyncio.new_event_loop()
    started: concurrent.futures.Future[int] = concurrent.futures.Future()
    stop = asyncio.Event()

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # the backend is dialled once the request's first bytes are here, as reverse
        # proxies do: HAProxy closes a connection whose headers take longer than the
        # tier's 3 s to arrive, and a client process on a busy machine may pause
        # between its TLS handshake and its request
        first = await reader.read(65536)
        if not first:
            writer.close()
            return
        backend_reader, backend_writer = await asyncio.open_connection("127.0.0.1", backend_port)
        backend_writer.write(first)
        await asyncio.gather(pipe(reader, backend_writer), pipe(backend_reader, writer))

    async def serve() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context)
        started.set_result(server.sockets[0].getsockname()[1])
        async with server:
            await stop.wait()
        connections = asyncio.all_tasks() - {asyncio.current_task()}
        for task in connections:
            task.cancel()
        await asyncio.gather(*connections, return_exceptions=True)

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    try:
        yield started.result(timeout=HANG_S)
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(timeout=HANG_S)
