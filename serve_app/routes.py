"""HTTP and WebSocket routes: parse, delegate, format. The logic lives elsewhere."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request, WebSocket
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from deployments.encoding.writers import FORMATS, content_type
from serve_app.accounts import ApiKey
from serve_app.elevenlabs_speech import ElevenSpeechRequest, from_elevenlabs
from serve_app.errors import (
    Overloaded,
    ServiceError,
    install_error_handlers,
    parse_body,
    read_json,
    validate,
)
from serve_app.middleware import ReaderPaceMiddleware, RequestContextMiddleware
from serve_app.openai_speech import OpenAISpeechRequest, from_openai, is_openai_request
from serve_app.origins import allow_origins
from serve_app.protocol import (
    Capabilities,
    CustomVoiceRequest,
    ErrorResponse,
    HealthStatus,
    ModelList,
    NormalizeRequest,
    NormalizeResponse,
    Readiness,
    SegmentRecord,
    SpeechRequest,
    UsageResponse,
    VoiceList,
    VoiceRecord,
)
from serve_app.responses import (
    OpenAIEvents,
    SpecEvents,
    buffered,
    raw_audio,
    sse,
    timestamped,
)
from serve_app.state import IngressState
from serve_app.stream_input import ELEVEN, ELEVEN_MULTI, StreamInputSession

# The body is parsed whatever the Content-Type says (curl -d sends a form type);
# this documents it in the OpenAPI schema all the same.
SPEECH_BODY = {
    "requestBody": {
        "required": True,
        "description": "SPEC.md's request; or OpenAI's, when `model` is an OpenAI model id "
        "(tts-1, tts-1-hd, gpt-4o-mini-tts, ...), answered as OpenAI answers.",
        "content": {
            "application/json": {
                "schema": {
                    "anyOf": [
                        SpeechRequest.model_json_schema(),
                        OpenAISpeechRequest.model_json_schema(),
                    ]
                }
            }
        },
    }
}
PLAYGROUND = Path(__file__).parent / "static"
PLAYGROUND_HEADERS = {
    # the page loads only its own files and speaks only to this service
    "content-security-policy": "default-src 'self'; media-src 'self' blob:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "cache-control": "no-cache",
}
NORMALIZE_BODY = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": NormalizeRequest.model_json_schema()}},
    }
}
ELEVEN_BODY = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": ElevenSpeechRequest.model_json_schema()}},
    }
}
VOICE_BODY = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": CustomVoiceRequest.model_json_schema()}},
    }
}
# ElevenLabs' text-to-speech endpoints: (path suffix, streamed, with timings, summary).
ELEVEN_ROUTES = (
    ("", False, False, "ElevenLabs' text to speech: the audio"),
    ("/stream", True, False, "ElevenLabs' streamed text to speech: the audio as it is made"),
    ("/with-timestamps", False, True, "With character timings: one JSON object"),
    ("/stream/with-timestamps", True, True, "With character timings: a JSON object a line"),
)
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse} for status in (400, 401, 402, 403, 404, 413, 429, 500, 503)
}
# What a speech request answers with: audio (raw, chunked or buffered) or SSE events.
SPEECH_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "Audio as response_format and stream ask, or SSE events.",
        "content": {
            **{
                content_type(fmt, "{sample_rate}").split(";")[0]: {
                    "schema": {"type": "string", "format": "binary"}
                }
                for fmt in FORMATS
            },
            "text/event-stream": {"schema": {"type": "string"}},
        },
    }
}


def create_app(state: IngressState) -> FastAPI:
    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        maintenance = asyncio.create_task(state.maintain_ledger())
        yield
        maintenance.cancel()

    app = FastAPI(
        lifespan=lifespan,
        title="Speech synthesis service",
        version="1",
        description="Text in, speech out: buffered, chunked, SSE. See SPEC.md.",
        responses=ERRORS,
    )
    install_error_handlers(app, state.metrics.rejected)
    allow_origins(app, state.config.allowed_origins)
    app.add_middleware(
        ReaderPaceMiddleware,
        send_timeout_s=state.config.send_timeout_s,
        send_buffer_bytes=state.config.send_buffer_bytes,
    )
    app.add_middleware(RequestContextMiddleware, max_body_bytes=state.config.max_body_bytes)
    any_key = Depends(state.auth.require(None))
    speech_key = Depends(state.auth.require("speech"))
    usage_key = Depends(state.auth.require("usage"))

    app.mount("/playground", StaticFiles(directory=PLAYGROUND), name="playground")

    @app.get("/", include_in_schema=False)
    async def playground() -> FileResponse:
        """The browser playground (public: the user pastes a key, kept in the browser)."""
        return FileResponse(PLAYGROUND / "index.html", headers=PLAYGROUND_HEADERS)

    @app.get("/health")
    async def health() -> HealthStatus:
        return HealthStatus()

    @app.get("/ready", dependencies=[any_key])
    async def ready() -> Readiness:
        try:
            catalog = await state.refresh_catalog()
        except ServiceError as e:
            raise Overloaded("not_ready", "The speech pipeline is not ready.") from e
        return catalog.readiness().model_copy(update={"replica": state.replica_status()})

    @app.get("/v1/models", dependencies=[any_key])
    async def models() -> ModelList:
        return (await state.catalog()).models()

    @app.get("/v1/capabilities", dependencies=[any_key], response_model_exclude_none=True)
    async def capabilities() -> Capabilities:
        catalog = await state.catalog()
        return catalog.capabilities().model_copy(update={"compatibility": state.compat.describe()})

    @app.get("/v1/voices", response_model_exclude_none=True)
    async def voices(request: Request) -> VoiceList:
        """Public voices; with a key, its project's own voices too (SPEC.md: public)."""
        return await state.voice_list(await state.optional_project(request.headers))

    @app.post(
        "/v1/voices", status_code=201, openapi_extra=VOICE_BODY, response_model_exclude_none=True
    )
    async def create_voice(request: Request, key: ApiKey = speech_key) -> VoiceRecord:
        """Save a voice built from a description or a reference as the project's own."""
        body = parse_body(CustomVoiceRequest, await request.body())
        return (await state.speech.save_voice(body, key.project_id)).record()

    @app.get("/v1/voices/{voice_id}", response_model_exclude_none=True)
    async def voice(voice_id: str, request: Request) -> VoiceRecord:
        project_id = await state.optional_project(request.headers)
        return await state.voice_record(voice_id, project_id)

    @app.delete("/v1/voices/{voice_id}", status_code=204)
    async def delete_voice(voice_id: str, key: ApiKey = speech_key) -> None:
        await state.delete_voice(voice_id, key.project_id)

    @app.get("/v1/account/usage")
    async def account_usage(key: ApiKey = usage_key) -> UsageResponse:
        return UsageResponse.of(await state.usage(key.project_id))

    @app.post(
        "/v1/audio/speech",
        response_model=None,
        openapi_extra=SPEECH_BODY,
        responses=SPEECH_RESPONSES,
    )
    async def create_speech(request: Request, key: ApiKey = speech_key) -> Any:
        """SPEC.md's speech request; a request naming an OpenAI model is read and
        answered as OpenAI's (serve_app/openai_speech.py)."""
        document = read_json(await request.body())
        headers: dict[str, str] = {}
        events: SpecEvents | OpenAIEvents = SpecEvents()
        if is_openai_request(document, state.compat.openai):
            openai = from_openai(
                document, state.compat.openai, await state.catalog(), state.config.model_id
            )
            body, headers, events = openai.request, openai.headers(), OpenAIEvents()
        else:
            body = validate(SpeechRequest, document)
        speech = await state.speech.prepare(
            body, key, request.state.request_id, request.state.received_at
        )
        if not body.stream:
            return await buffered(state.speech, speech, headers)
        if body.stream_format == "sse":
            return await sse(state.speech, speech, events, headers)
        return await raw_audio(state.speech, speech, headers)

    @app.post("/v1/text/normalize", dependencies=[speech_key], openapi_extra=NORMALIZE_BODY)
    async def normalize(request: Request) -> NormalizeResponse:
        """What a voice will be given for a text: our addition to SPEC.md, free of charge."""
        body = parse_body(NormalizeRequest, await request.body())
        result = await state.speech.preview(body)
        return NormalizeResponse(
            language=result.language,
            representation=result.representation,
            text=result.text,
            segments=[
                SegmentRecord(text=s.text, start=s.start, end=s.end) for s in result.segments
            ],
        )

    def elevenlabs(stream: bool, timed: bool) -> Callable[..., Awaitable[Any]]:
        """An ElevenLabs text-to-speech endpoint: its request as ours, answered in its
        framing (serve_app/elevenlabs_speech.py)."""

        async def endpoint(
            request: Request,
            voice_id: str,
            output_format: str | None = None,
            key: ApiKey = speech_key,
        ) -> Any:
            eleven = from_elevenlabs(
                read_json(await request.body()),
                voice_id,
                output_format,
                stream,
                state.compat.elevenlabs,
                await state.catalog(),
                state.config.model_id,
            )
            speech = await state.speech.prepare(
                eleven.request,
                key,
                request.state.request_id,
                request.state.received_at,
                alignment=timed,
                bitrate_kbps=eleven.bitrate_kbps,
            )
            if timed:
                return await timestamped(state.speech, speech, stream)
            return await raw_audio(state.speech, speech)

        return endpoint

    for suffix, stream, timed, summary in ELEVEN_ROUTES:
        app.add_api_route(
            f"/v1/text-to-speech/{{voice_id}}{suffix}",
            elevenlabs(stream, timed),
            methods=["POST"],
            name=f"elevenlabs{suffix.replace('/', '_').replace('-', '_')}",
            summary=summary,
            response_model=None,
            openapi_extra=ELEVEN_BODY,
            responses=None if timed else SPEECH_RESPONSES,
            tags=["ElevenLabs-compatible"],
        )

    @app.websocket("/v1/audio/speech/stream-input/{voice_id}")
    async def stream_input(websocket: WebSocket, voice_id: str) -> None:
        await StreamInputSession(websocket, state, voice_id).run()

    @app.websocket("/v1/text-to-speech/{voice_id}/stream-input")
    async def eleven_stream_input(websocket: WebSocket, voice_id: str) -> None:
        await StreamInputSession(websocket, state, voice_id, ELEVEN).run()

    @app.websocket("/v1/text-to-speech/{voice_id}/multi-stream-input")
    async def eleven_multi_stream_input(websocket: WebSocket, voice_id: str) -> None:
        await StreamInputSession(websocket, state, voice_id, ELEVEN_MULTI).run()

    return app
