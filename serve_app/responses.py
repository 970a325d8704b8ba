"""Framing a speech job for the wire: raw chunked audio, SSE events, or one buffered body.

Each framer peeks at the first chunk before it commits to a 200, counts as delivered
only what the server has sent on, and settles the bill however the stream ends.
"""

from __future__ import annotations

import base64
import functools
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
from pydantic import BaseModel
from starlette.responses import Response, StreamingResponse
from starlette.types import Send

from deployments.synthesis.alignment import Alignment
from serve_app.elevenlabs_speech import timestamps
from serve_app.errors import ServiceError
from serve_app.protocol import AudioDelta, AudioDone, RequestUsage
from serve_app.speech import SpeechJob, SpeechService, elapsed_ms

SSE_CONTENT_TYPE = "text/event-stream"


class SettlingStreamingResponse(StreamingResponse):
    """A StreamingResponse that, however the stream ends (completed, failed, or the
    client gone), closes its body iterator and then settles the job's bill."""

    def __init__(
        self, content: AsyncIterator[bytes], settle: Callable[[], Awaitable[object]], **kwargs: Any
    ) -> None:
        super().__init__(content, **kwargs)
        self._settle = settle

    async def stream_response(self, send: Send) -> None:
        try:
            await super().stream_response(send)
        finally:
            with anyio.CancelScope(shield=True):
                close = getattr(self.body_iterator, "aclose", None)
                if close is not None:
                    await close()
                await self._settle()


def sse_event(name: str, payload: BaseModel | dict[str, object]) -> bytes:
    data = (
        payload.model_dump_json(exclude_none=True)
        if isinstance(payload, BaseModel)
        else json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    )
    return f"event: {name}\ndata: {data}\n\n".encode()


async def raw_audio(
    service: SpeechService, speech: SpeechJob, extra_headers: dict[str, str] | None = None
) -> Response:
    stream = await service.open(speech, "http")

    async def body() -> AsyncIterator[bytes]:
        async for chunk in stream:
            yield chunk.data
            await service.meter.delivered(speech.bill, chunk)

    return SettlingStreamingResponse(
        body(),
        functools.partial(service.finish, speech),
        media_type=speech.voicing.content_type,
        headers={**speech.headers(), **(extra_headers or {})},
    )


class SpecEvents:
    """SPEC.md's SSE events: ``audio.delta`` (index, base64 delta, ttfa_ms first),
    ``audio.done`` (chunks, usage), ``error``."""

    def delta(self, index: int, audio: str, ttfa_ms: float | None) -> bytes:
        return sse_event("audio.delta", AudioDelta(index=index, delta=audio, ttfa_ms=ttfa_ms))

    def done(self, chunks: int, usage: RequestUsage) -> bytes:
        return sse_event("audio.done", AudioDone(chunks=chunks, usage=usage))

    def error(self, body: dict[str, object]) -> bytes:
        return sse_event("error", body)


class OpenAIEvents:
    """OpenAI's speech SSE events, data lines only: ``speech.audio.delta`` with
    ``audio``, then ``speech.audio.done`` (with our usage: we bill characters, not
    tokens), or ``error``."""

    def delta(self, index: int, audio: str, ttfa_ms: float | None) -> bytes:
        return _data({"type": "speech.audio.delta", "audio": audio})

    def done(self, chunks: int, usage: RequestUsage) -> bytes:
        return _data({"type": "speech.audio.done", "usage": usage.model_dump()})

    def error(self, body: dict[str, object]) -> bytes:
        return _data({"type": "error", **body})


def _data(payload: dict[str, object]) -> bytes:
    return f"data: {json.dumps(payload, ensure_ascii=False, separators=(',', ':'))}\n\n".encode()


async def sse(
    service: SpeechService,
    speech: SpeechJob,
    events: SpecEvents | OpenAIEvents,
    extra_headers: dict[str, str] | None = None,
) -> Response:
    stream = await service.open(speech, "sse")
    ttfa_ms = elapsed_ms(speech.received_at)

    async def body() -> AsyncIterator[bytes]:
        index = 0
        try:
            async for chunk in stream:
                delta = base64.b64encode(chunk.data).decode("ascii")
                yield events.delta(index, delta, ttfa_ms if index == 0 else None)
                await service.meter.delivered(speech.bill, chunk)
                index += 1
            yield events.done(index, service.meter.usage(speech.bill))
        except ServiceError as e:
            yield events.error(e.body(speech.request_id))

    headers = {**speech.headers(), "x-accel-buffering": "no", **(extra_headers or {})}
    return SettlingStreamingResponse(
        body(),
        functools.partial(service.finish, speech),
        media_type=SSE_CONTENT_TYPE,
        headers=headers,
    )


async def buffered(
    service: SpeechService, speech: SpeechJob, extra_headers: dict[str, str] | None = None
) -> Response:
    started = time.perf_counter()
    stream = await service.open(speech, "buffered")
    try:
        parts = [chunk async for chunk in stream]
    except BaseException:
        await service.finish(speech)  # nothing was delivered: nothing is charged
        raise
    for chunk in parts:
        speech.bill.add(chunk)
    usage = await service.finish(speech)
    headers = {
        **speech.headers(),
        "x-service-generation-ms": str(round(elapsed_ms(started))),
        "x-service-cost-deci-micros": str(usage.cost_deci_micros),
        **(extra_headers or {}),
    }
    body = b"".join(chunk.data for chunk in parts)
    return Response(body, media_type=speech.voicing.content_type, headers=headers)


async def timestamped(service: SpeechService, speech: SpeechJob, stream: bool) -> Response:
    """ElevenLabs' audio with timestamps: one JSON object (``stream`` false) or one a
    line, each ``{"audio_base64", "alignment", "normalized_alignment"}`` with times in
    seconds from the start of the audio (alignment null where the engine gives none)."""
    audio = await service.open(speech, "http")
    rate = speech.voicing.sample_rate

    def piece(data: bytes, alignment: dict[str, object] | None) -> dict[str, object]:
        return {
            "audio_base64": base64.b64encode(data).decode("ascii"),
            "alignment": alignment,
            "normalized_alignment": alignment,
        }

    if not stream:
        try:
            parts = [chunk async for chunk in audio]
        except BaseException:
            await service.finish(speech)
            raise
        merged: Alignment | None = None
        offset = 0
        for chunk in parts:
            speech.bill.add(chunk)
            if chunk.alignment is not None:
                merged = (
                    chunk.alignment
                    if merged is None
                    else merged.followed_by(chunk.alignment, offset)
                )
            offset += chunk.audio_samples * 1000 // rate
        await service.finish(speech)
        body = piece(b"".join(c.data for c in parts), timestamps(merged, 0))
        return Response(json.dumps(body), media_type="application/json", headers=speech.headers())

    async def lines() -> AsyncIterator[bytes]:
        offset_ms = 0
        async for chunk in audio:
            line = piece(chunk.data, timestamps(chunk.alignment, offset_ms))
            yield json.dumps(line).encode() + b"\n"
            offset_ms += chunk.audio_samples * 1000 // rate
            await service.meter.delivered(speech.bill, chunk)

    return SettlingStreamingResponse(
        lines(),
        functools.partial(service.finish, speech),
        media_type="application/json",
        headers=speech.headers(),
    )
