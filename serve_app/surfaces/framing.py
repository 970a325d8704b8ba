"""Framing a checked speech request for HTTP, shared by the surfaces: raw chunked audio, SSE
events (each surface brings its own event names), or one buffered body.

Each framer peeks at the first chunk before it commits to a 200, counts as delivered
only what the server has sent on, and settles the bill however the stream ends.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import AsyncIterator
from typing import Any, Protocol

import anyio
from pydantic import BaseModel
from starlette.responses import Response, StreamingResponse
from starlette.types import Send

from deployments.encoding import FORMATS, content_type
from deployments.timings import Timings
from serve_app.http.errors import ServiceError
from serve_app.speech.checked import CheckedRequest, elapsed_ms
from serve_app.speech.delivery import Delivery
from serve_app.speech.service import SpeechService
from serve_app.speech.vocabulary import RequestUsage

SSE_CONTENT_TYPE = "text/event-stream"
# One event of a speech request's SSE stream, as a client's SSE parser gives it.
SSE_EVENT: dict[str, Any] = {
    "type": "object",
    "description": "One Server-Sent Event: `event` names it (`audio.delta`, `audio.done`, "
    "`error`; OpenAI's requests get `data` lines only, of type `speech.audio.delta` and "
    "`speech.audio.done`), `data` is one JSON document.",
    "required": ["data"],
    "properties": {
        "event": {"type": "string", "enum": ["audio.delta", "audio.done", "error"]},
        "data": {"type": "string", "contentMediaType": "application/json"},
    },
}
# What a speech request answers with: audio (raw, chunked or buffered) or SSE events.
AUDIO_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "Audio as response_format and stream ask, or SSE events.",
        "content": {
            **{
                content_type(fmt, "{sample_rate}").split(";")[0]: {
                    "schema": {"type": "string", "format": "binary"}
                }
                for fmt in FORMATS
            },
            SSE_CONTENT_TYPE: {"schema": SSE_EVENT},
        },
    }
}


def json_body(model: type[BaseModel]) -> dict[str, Any]:
    """OpenAPI's description of a required JSON body of ``model`` (routes read the body
    themselves, whatever its Content-Type says, so FastAPI cannot infer it)."""
    return {
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": model.model_json_schema()}},
        }
    }


class DeliveryResponse(StreamingResponse):
    """A StreamingResponse of a delivery's audio that, however the stream ends
    (completed, failed, or the client gone), closes its body and then the delivery,
    which settles the bill."""

    def __init__(self, content: AsyncIterator[bytes], delivery: Delivery, **kwargs: Any) -> None:
        super().__init__(content, **kwargs)
        self._delivery = delivery

    async def stream_response(self, send: Send) -> None:
        try:
            await super().stream_response(send)
        finally:
            with anyio.CancelScope(shield=True):
                close = getattr(self.body_iterator, "aclose", None)
                if close is not None:
                    await close()
                await self._delivery.aclose()


class SseEvents(Protocol):
    """A surface's SSE events: one per audio chunk, one at the end, one for a failure."""

    def delta(
        self, index: int, audio: str, ttfa_ms: float | None, timings: Timings | None = None
    ) -> bytes:
        """An audio chunk's event (``timings``: its phonemes and visemes, when asked)."""
        ...

    def done(self, chunks: int, usage: RequestUsage) -> bytes: ...

    def error(self, body: dict[str, object]) -> bytes: ...


def sse_event(name: str, payload: BaseModel | dict[str, object]) -> bytes:
    data = (
        payload.model_dump_json(exclude_none=True)
        if isinstance(payload, BaseModel)
        else json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    )
    return f"event: {name}\ndata: {data}\n\n".encode()


async def raw_audio(
    service: SpeechService, speech: CheckedRequest, extra_headers: dict[str, str] | None = None
) -> Response:
    delivery = await service.deliver(speech, "http")

    async def body() -> AsyncIterator[bytes]:
        async for chunk in delivery:
            yield chunk.data

    return DeliveryResponse(
        body(),
        delivery,
        media_type=speech.voicing.content_type,
        headers={**speech.headers(), **(extra_headers or {})},
    )


async def sse(
    service: SpeechService,
    speech: CheckedRequest,
    events: SseEvents,
    extra_headers: dict[str, str] | None = None,
) -> Response:
    delivery = await service.deliver(speech, "sse")
    ttfa_ms = elapsed_ms(speech.received_at)

    async def body() -> AsyncIterator[bytes]:
        index = 0
        try:
            async for chunk in delivery:
                delta = base64.b64encode(chunk.data).decode("ascii")
                first_ms = ttfa_ms if index == 0 else None
                yield events.delta(index, delta, first_ms, chunk.timings)
                index += 1
            yield events.done(index, delivery.usage())
        except ServiceError as e:
            yield events.error(e.body(speech.request_id))

    headers = {**speech.headers(), "x-accel-buffering": "no", **(extra_headers or {})}
    return DeliveryResponse(body(), delivery, media_type=SSE_CONTENT_TYPE, headers=headers)


async def buffered(
    service: SpeechService, speech: CheckedRequest, extra_headers: dict[str, str] | None = None
) -> Response:
    started = time.perf_counter()
    delivery = await service.deliver(speech, "buffered")
    try:
        parts = await delivery.collect()
    finally:
        usage = await delivery.aclose()  # a failure charges nothing: nothing was delivered
    headers = {
        **speech.headers(),
        "x-service-generation-ms": str(round(elapsed_ms(started))),
        "x-service-cost-deci-micros": str(usage.cost_deci_micros),
        **(extra_headers or {}),
    }
    body = b"".join(chunk.data for chunk in parts)
    return Response(body, media_type=speech.voicing.content_type, headers=headers)
