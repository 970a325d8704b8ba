"""ElevenLabs' text-to-speech endpoints and WebSockets, answered as ElevenLabs answers,
so that its SDK and the agent frameworks' plugins work by changing the base URL."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import Depends, FastAPI, Request, WebSocket

from serve_app.accounts import ApiKey
from serve_app.http.body import read_json
from serve_app.surfaces.elevenlabs.dictionaries import attach_dictionaries
from serve_app.surfaces.elevenlabs.protocol import LOCATORS, ElevenSpeechRequest
from serve_app.surfaces.elevenlabs.serving import from_elevenlabs, timestamped
from serve_app.surfaces.elevenlabs.websocket import ELEVEN, ELEVEN_MULTI
from serve_app.surfaces.framing import AUDIO_RESPONSES, json_body, raw_audio
from serve_app.surfaces.services import Services
from serve_app.surfaces.websocket.session import StreamInputSession

# ElevenLabs' text-to-speech endpoints: (path suffix, streamed, with timings, summary).
ELEVEN_ROUTES = (
    ("", False, False, "ElevenLabs' text to speech: the audio"),
    ("/stream", True, False, "ElevenLabs' streamed text to speech: the audio as it is made"),
    ("/with-timestamps", False, True, "With character timings: one JSON object"),
    ("/stream/with-timestamps", True, True, "With character timings: a JSON object a line"),
)


def attach_router(app: FastAPI, state: Services) -> None:
    speech_key = Depends(state.auth.require("speech"))

    def endpoint_for(stream: bool, timed: bool) -> Callable[..., Awaitable[Any]]:
        """ElevenLabs' text-to-speech request, answered as ElevenLabs answers it (the
        audio, streamed or whole, or with character timestamps)."""

        async def endpoint(
            request: Request,
            voice_id: str,
            output_format: str | None = None,
            enable_ssml_parsing: bool = False,
            phoneme_timestamps: bool = False,
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
                ssml=enable_ssml_parsing,
                phonemes=phoneme_timestamps,
            )
            speech = await state.speech.prepare(
                eleven.request,
                key,
                request.state.request_id,
                request.state.received_at,
                alignment=timed,
                bitrate_kbps=eleven.bitrate_kbps,
                dictionaries_param=LOCATORS,
            )
            # ElevenLabs' clients chain requests by this header (previous_request_ids)
            named = {"request-id": request.state.request_id}
            if timed:
                return await timestamped(state.speech, speech, stream, named)
            return await raw_audio(state.speech, speech, named)

        return endpoint

    for suffix, stream, timed, summary in ELEVEN_ROUTES:
        app.add_api_route(
            f"/v1/text-to-speech/{{voice_id}}{suffix}",
            endpoint_for(stream, timed),
            methods=["POST"],
            name=f"elevenlabs{suffix.replace('/', '_').replace('-', '_')}",
            summary=summary,
            response_model=None,
            openapi_extra=json_body(ElevenSpeechRequest),
            responses=None if timed else AUDIO_RESPONSES,
            tags=["ElevenLabs-compatible"],
        )

    attach_dictionaries(app, state)

    @app.websocket("/v1/text-to-speech/{voice_id}/stream-input")
    async def eleven_stream_input(websocket: WebSocket, voice_id: str) -> None:
        await StreamInputSession(websocket, state, voice_id, ELEVEN).run()

    @app.websocket("/v1/text-to-speech/{voice_id}/multi-stream-input")
    async def eleven_multi_stream_input(websocket: WebSocket, voice_id: str) -> None:
        await StreamInputSession(websocket, state, voice_id, ELEVEN_MULTI).run()
