"""ElevenLabs' text-to-speech endpoints and WebSockets, answered as ElevenLabs answers,
so that its SDK and the agent frameworks' plugins work by changing the base URL.
Routes at module level (``router``), given the services (``surfaces/dependencies.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, WebSocket

from serve_app.http.body import read_json
from serve_app.http.cache_control import cache_allowed
from serve_app.surfaces.dependencies import SpeechKey, State
from serve_app.surfaces.elevenlabs.protocol import LOCATORS, ElevenSpeechRequest
from serve_app.surfaces.elevenlabs.serving import from_elevenlabs, timestamped
from serve_app.surfaces.elevenlabs.websocket import ELEVEN, ELEVEN_MULTI
from serve_app.surfaces.framing import AUDIO_RESPONSES, json_body, raw_audio
from serve_app.surfaces.websocket.session import StreamInputSession

router = APIRouter(tags=["ElevenLabs-compatible"])
PATH = "/v1/text-to-speech/{voice_id}"
BODY = json_body(ElevenSpeechRequest)


@dataclass(frozen=True)
class Options:
    """The query of ElevenLabs' text-to-speech request."""

    output_format: str | None = None  # codec_rate_bitrate: mp3_44100_128, pcm_16000, ...
    enable_ssml_parsing: bool = False
    phoneme_timestamps: bool = False  # ours: timings of the phonemes too


Query = Annotated[Options, Depends()]


# ElevenLabs' text-to-speech endpoints: path -> (streamed, with character timings, summary)
ROUTES = {
    PATH: (False, False, "ElevenLabs' text to speech: the audio"),
    f"{PATH}/stream": (True, False, "ElevenLabs' streamed text to speech: the audio as it is made"),
    f"{PATH}/with-timestamps": (False, True, "With character timings: one JSON object"),
    f"{PATH}/stream/with-timestamps": (True, True, "With character timings: a JSON object a line"),
}


# ElevenLabs' text-to-speech request, answered as ElevenLabs answers it at the path it
# came to (ROUTES): the audio, streamed or whole, or with character timings. (A comment,
# not a docstring: the OpenAPI document's summaries say it per path.)
async def text_to_speech(
    request: Request, voice_id: str, query: Query, key: SpeechKey, state: State
) -> Any:
    stream, timed, _ = ROUTES[request.scope["route"].path]
    eleven = from_elevenlabs(
        read_json(await request.body()),
        voice_id,
        query.output_format,
        stream,
        state.compat.elevenlabs,
        await state.catalog(),
        state.config.model_id,
        ssml=query.enable_ssml_parsing,
        phonemes=query.phoneme_timestamps,
    )
    speech = await state.speech.prepare(
        eleven.request,
        key,
        request.state.request_id,
        request.state.received_at,
        alignment=timed,
        bitrate_kbps=eleven.bitrate_kbps,
        dictionaries_param=LOCATORS,
        cache=cache_allowed(request.headers),
    )
    # ElevenLabs' clients chain requests by this header (previous_request_ids)
    named = {"request-id": request.state.request_id}
    if timed:
        return await timestamped(state.speech, speech, stream, named)
    return await raw_audio(state.speech, speech, named)


for path, (_, timed, summary) in ROUTES.items():
    router.add_api_route(
        path,
        text_to_speech,
        methods=["POST"],
        name="elevenlabs" + path.removeprefix(PATH).replace("/", "_").replace("-", "_"),
        summary=summary,
        response_model=None,
        openapi_extra=BODY,
        responses=None if timed else AUDIO_RESPONSES,
    )


@router.websocket(f"{PATH}/stream-input")
async def eleven_stream_input(websocket: WebSocket, voice_id: str, state: State) -> None:
    await StreamInputSession(websocket, state, voice_id, ELEVEN).run()


@router.websocket(f"{PATH}/multi-stream-input")
async def eleven_multi_stream_input(websocket: WebSocket, voice_id: str, state: State) -> None:
    await StreamInputSession(websocket, state, voice_id, ELEVEN_MULTI).run()
