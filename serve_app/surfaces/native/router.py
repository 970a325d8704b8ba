"""Our own API: health, readiness, models, capabilities, voices, usage, speech (which
also answers OpenAI's speech requests), normalisation and the stream-input WebSocket.
Routes at module level (``router``): each parses and delegates to the services it is
given (``surfaces/dependencies.py``); the logic lives in the speech room."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, WebSocket

from serve_app.accounts.records import UsageResponse
from serve_app.http.body import parse_body, read_json, validate
from serve_app.http.cache_control import cache_allowed
from serve_app.http.errors import Overloaded, ServiceError
from serve_app.speech.vocabulary import (
    CustomVoiceRequest,
    NormalizeRequest,
    SpeechRequest,
    VoiceRecord,
)
from serve_app.speech.voice_saving import save_voice
from serve_app.surfaces.dependencies import ANY_KEY, SpeechKey, State, UsageKey
from serve_app.surfaces.framing import (
    AUDIO_RESPONSES,
    SseEvents,
    buffered,
    json_body,
    raw_audio,
    sse,
)
from serve_app.surfaces.native import discovery
from serve_app.surfaces.native.capabilities import Capabilities
from serve_app.surfaces.native.events import SpecEvents
from serve_app.surfaces.native.normalize import NormalizeResponse
from serve_app.surfaces.native.protocol import HealthStatus, ModelList, Readiness, VoiceList
from serve_app.surfaces.native.websocket import NATIVE
from serve_app.surfaces.openai.protocol import OpenAISpeechRequest
from serve_app.surfaces.openai.serving import OpenAIEvents, from_openai, is_openai_request
from serve_app.surfaces.websocket.session import StreamInputSession

# The body is parsed whatever the Content-Type says (curl -d sends a form type);
# this documents it in the OpenAPI schema all the same.
SPEECH_BODY = {
    "requestBody": {
        "required": True,
        "description": "Our speech request; or OpenAI's, when `model` is an OpenAI model id "
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


router = APIRouter()


@router.get("/health")
async def health() -> HealthStatus:
    return HealthStatus()


@router.get("/ready", dependencies=[ANY_KEY])
async def ready(state: State) -> Readiness:
    try:
        catalog = await state.refresh_catalog()
    except ServiceError as e:
        raise Overloaded("not_ready", "The speech pipeline is not ready.") from e
    return discovery.readiness(catalog).model_copy(update={"replica": state.replica_status()})


@router.get("/v1/models", dependencies=[ANY_KEY])
async def models(state: State) -> ModelList:
    return discovery.models(await state.catalog())


@router.get("/v1/capabilities", dependencies=[ANY_KEY], response_model_exclude_none=True)
async def capabilities(state: State) -> Capabilities:
    catalog = await state.catalog()
    compatibility = state.compat.describe()
    return discovery.capabilities(catalog).model_copy(update={"compatibility": compatibility})


@router.get("/v1/voices", response_model_exclude_none=True)
async def voices(request: Request, state: State) -> VoiceList:
    """Public voices; with a key, its project's own voices too."""
    project_id = await state.auth.project_of(request.headers)
    return VoiceList(data=await state.voices.listed(await state.catalog(), project_id))


@router.post(
    "/v1/voices",
    status_code=201,
    openapi_extra=json_body(CustomVoiceRequest),
    response_model_exclude_none=True,
)
async def create_voice(request: Request, key: SpeechKey, state: State) -> VoiceRecord:
    """Save a voice built from a description or a reference as the project's own."""
    body = parse_body(CustomVoiceRequest, await request.body())
    return (await save_voice(state.speech, body, key.project_id)).record()


@router.get("/v1/voices/{voice_id}", response_model_exclude_none=True)
async def voice(voice_id: str, request: Request, state: State) -> VoiceRecord:
    project_id = await state.auth.project_of(request.headers)
    return await state.voices.record(await state.catalog(), voice_id, project_id)


@router.delete("/v1/voices/{voice_id}", status_code=204)
async def delete_voice(voice_id: str, key: SpeechKey, state: State) -> None:
    await state.voices.remove(key.project_id, voice_id)


@router.get("/v1/account/usage")
async def account_usage(key: UsageKey, state: State) -> UsageResponse:
    return await state.speech.meter.account(key.project_id)


@router.post(
    "/v1/audio/speech",
    response_model=None,
    openapi_extra=SPEECH_BODY,
    responses=AUDIO_RESPONSES,
)
async def create_speech(request: Request, key: SpeechKey, state: State) -> Any:
    """Speech for a text: raw chunked audio, Server-Sent Events or one buffered
    body. A request whose `model` is an OpenAI model id is read and answered as
    OpenAI's API would."""
    document = read_json(await request.body())
    headers: dict[str, str] = {}
    events: SseEvents = SpecEvents()
    if is_openai_request(document, state.compat.openai):
        openai = from_openai(
            document, state.compat.openai, await state.catalog(), state.config.model_id
        )
        body, headers, events = openai.request, openai.headers(), OpenAIEvents()
    else:
        body = validate(SpeechRequest, document)
    speech = await state.speech.prepare(
        body,
        key,
        request.state.request_id,
        request.state.received_at,
        cache=cache_allowed(request.headers),
    )
    if not body.stream:
        return await buffered(state.speech, speech, headers)
    if body.stream_format == "sse":
        return await sse(state.speech, speech, events, headers)
    return await raw_audio(state.speech, speech, headers)


@router.post("/v1/text/normalize", openapi_extra=json_body(NormalizeRequest))
async def normalize(request: Request, key: SpeechKey, state: State) -> NormalizeResponse:
    """What a voice will be given for a text: our own addition, free of charge."""
    body = parse_body(NormalizeRequest, await request.body())
    return NormalizeResponse.of(await state.speech.preview(body, key.project_id))


@router.websocket("/v1/audio/speech/stream-input/{voice_id}")
async def stream_input(websocket: WebSocket, voice_id: str, state: State) -> None:
    await StreamInputSession(websocket, state, voice_id, NATIVE).run()
