"""WS /v1/audio/speech/stream-input/{voice_id}: text in as it is written, audio out.

The message shapes follow ElevenLabs' ``stream-input`` (API.md section 7). Three
tasks share a session: the receiver buffers text and cuts it into pieces, the
producer synthesises pieces in order (the next piece synthesises while the last
is being sent), and the sender encodes and sends audio in input order.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import time
from collections.abc import Coroutine
from dataclasses import replace
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.websockets import WebSocket, WebSocketDisconnect

from deployments.encoding.encoder import StreamEncoder
from deployments.encoding.writers import FLOAT_FORMAT, float_samples
from deployments.messages import EncodedChunk, EncodeJob, SynthesisJob
from serve_app.accounts import ApiKey
from serve_app.admission import Ticket
from serve_app.auth import authorization_of
from serve_app.billing import Bill
from serve_app.errors import (
    BodyTooLarge,
    InternalError,
    InvalidRequest,
    PermissionDenied,
    RateLimited,
    ServiceError,
    check_depth,
    from_validation_error,
)
from serve_app.origins import origin_allowed
from serve_app.protocol import (
    VoiceOptions,
    WsAudioMessage,
    WsFinalMessage,
    WsInputMessage,
    WsQuery,
)
from serve_app.speech import Voicing, elapsed_ms, speakable, with_alignment
from serve_app.state import IngressState
from serve_app.text_buffer import Piece, TextBuffer

logger = logging.getLogger("serve_app")
M = TypeVar("M", bound=BaseModel)

POLICY_VIOLATION = 1008
SERVER_ERROR = 1011
_DONE = None


class MessageRate:
    """A token bucket: ``per_s`` messages a second on average, ``2 * per_s`` at once."""

    def __init__(self, per_s: float) -> None:
        self._per_s = per_s
        self._burst = 2 * per_s
        self._tokens = self._burst
        self._at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self._tokens = min(self._burst, self._tokens + (now - self._at) * self._per_s)
        self._at = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True


class StreamInputSession:
    def __init__(self, websocket: WebSocket, state: IngressState, voice_id: str) -> None:
        self._ws = websocket
        self._state = state
        self._voice_id = voice_id
        self._request_id: str = websocket.scope["state"]["request_id"]
        self._pieces: asyncio.Queue[Piece | None] = asyncio.Queue()
        self._audio: asyncio.Queue[tuple[Piece, EncodedChunk] | None] = asyncio.Queue(maxsize=8)
        self._bill: Bill | None = None
        self._close_reason = ""
        self._started = websocket.scope["state"]["received_at"]
        self._rate = MessageRate(state.config.ws_max_messages_per_s)

    async def run(self) -> None:
        """Serve the session to its end. Every way out settles what was delivered,
        before the socket is closed."""
        await self._ws.accept()
        error: ServiceError | None = None
        client_left = False
        ticket: Ticket | None = None
        try:
            ticket = self._state.admission.enter()
            first = await self._open()
            if first is None:
                self._close_reason = "inactivity timeout"
            else:
                await self._serve(first)
        except WebSocketDisconnect:
            client_left = True  # synthesis has stopped with the tasks; the bill settles below
        except ServiceError as e:
            error = e
        except Exception:
            logger.exception("stream-input session %s failed", self._request_id)
            error = InternalError()
        finally:
            if ticket is not None:
                ticket.release()
            if self._bill is not None:
                await self._state.speech.settle(self._bill, self._voicing, self._started)
        if error is not None:
            await self._fail(error)
        elif not client_left:
            await self._ws.close(1000, self._close_reason)

    async def _open(self) -> WsInputMessage | None:
        """Authenticate, check the voice and query, and place the session's hold.

        Returns the first message, or None if none came before the timeout.
        """
        if not origin_allowed(self._ws.headers, self._state.config.allowed_origins):
            raise PermissionDenied(
                "origin_not_allowed",
                f"Pages of {self._ws.headers.get('origin')} may not open this socket "
                "(the service's allowed_origins).",
            )
        query = self._parse(WsQuery, dict(self._ws.query_params))
        header = authorization_of(self._ws.headers)
        key = await self._authenticate(header) if header else None
        first = await self._next_message(query.inactivity_timeout)
        if first is None:
            return None
        if key is None:
            key = await self._authenticate(first.authorization)
        settings = first.voice_settings
        options = VoiceOptions.model_validate(
            {
                "model": query.model,
                "language": query.language,
                "voice": self._voice_id,
                "response_format": query.response_format,
                "quality": query.quality,
                "sample_rate": query.sample_rate,
                **(settings.model_dump() if settings else {}),
            }
        )
        self._voicing = await self._state.speech.choose(options, stream=True)
        self._query = query
        self._bill = await self._state.meter.hold(key, 0)
        return first

    async def _authenticate(self, authorization: str | None) -> ApiKey:
        return await self._state.auth.authorise(authorization, "speech")

    async def _serve(self, first: WsInputMessage) -> None:
        schedule = (
            tuple(first.generation_config.chunk_length_schedule)
            if first.generation_config
            else None
        )
        buffer = TextBuffer(schedule) if schedule else TextBuffer()
        await _all_or_none(self._receive(first, buffer), self._produce(), self._send())
        assert self._bill is not None
        usage = self._state.meter.usage(self._bill)
        await self._ws.send_text(WsFinalMessage(usage=usage).model_dump_json())

    async def _receive(self, first: WsInputMessage, buffer: TextBuffer) -> None:
        message: WsInputMessage | None = first
        limit = self._state.config.ws_max_buffered_chars
        while message is not None:
            if message.text == "":
                self._close_reason = "end of input"
                break
            ready: list[Piece | None] = list(buffer.add(message.text))
            if message.flush:
                ready.append(buffer.flush())
            elif message.try_trigger_generation:
                ready.append(buffer.try_trigger())
            for piece in ready:
                if piece is not None:
                    await self._pieces.put(piece)
            if len(buffer) > limit:
                raise InvalidRequest(
                    "input_too_long",
                    f"More than {limit} characters wait for a sentence end.",
                    "text",
                )
            message = await self._next_message(self._query.inactivity_timeout)
            if message is not None and (message.authorization or message.voice_settings):
                raise InvalidRequest(
                    "invalid_value", "Settings and the key belong in the first message only."
                )
        if message is None:
            self._close_reason = "inactivity timeout"
        rest = buffer.flush()
        if rest is not None:
            await self._pieces.put(rest)
        await self._pieces.put(_DONE)

    async def _produce(self) -> None:
        """Synthesise pieces in order; each piece's audio goes to the sender as it comes."""
        assert self._bill is not None
        speech, meter = self._state.speech, self._state.meter
        # The pieces' samples at the session's rate, gain applied; the sender encodes
        # them as one stream (one MP3 file however many pieces).
        samples = replace(self._voicing.output, format=FLOAT_FORMAT)
        voicing: Voicing = with_alignment(self._voicing, samples)
        while (piece := await self._pieces.get()) is not None:
            text = speech.check_text(piece.text, "text")
            normalised = await speech.normalise(text, voicing, "text")
            if not speakable(normalised):
                continue  # punctuation alone: nothing to say, nothing to bill
            await meter.extend(self._bill, len(piece.text))
            job = EncodeJob(SynthesisJob(normalised.segments, voicing.params), voicing.output)
            async for chunk in speech.pipeline.encode(job):
                await self._audio.put((piece, chunk))
        await self._audio.put(_DONE)

    async def _send(self) -> None:
        """Encode and send in order: one encoder for the session, as for an HTTP
        response (one continuous MP3 stream however many pieces)."""
        output = replace(self._voicing.output, sample_rate=None, volume=1.0)  # done upstream
        encoder = StreamEncoder(output, self._voicing.sample_rate)
        index = 0
        while (item := await self._audio.get()) is not None:
            piece, chunk = item
            samples = float_samples(chunk.data)
            encoded = await encoder.add(samples, piece.start + chunk.end_char, chunk.alignment)
            if encoded is not None:
                await self._send_audio(index, encoded)
                index += 1
        if (tail := await encoder.finish()) is not None:
            await self._send_audio(index, tail)

    async def _send_audio(self, index: int, chunk: EncodedChunk) -> None:
        assert self._bill is not None
        if index == 0:
            self._state.metrics.first_audio(
                elapsed_ms(self._started), "websocket", self._query.response_format
            )
        if chunk.data:
            alignment = chunk.alignment.as_wire() if chunk.alignment else None
            audio = base64.b64encode(chunk.data).decode("ascii")
            message = WsAudioMessage(audio=audio, index=index, alignment=alignment)
            await self._ws.send_text(message.model_dump_json())
        await self._state.meter.delivered(self._bill, chunk)

    async def _next_message(self, silence_s: float) -> WsInputMessage | None:
        """The next client frame, parsed; None if the client stayed silent too long."""
        try:
            async with asyncio.timeout(silence_s):
                frame = await self._ws.receive()
        except TimeoutError:
            return None
        if frame["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(frame.get("code", 1000))
        if not self._rate.take():
            per_s = self._state.config.ws_max_messages_per_s
            raise RateLimited(
                "rate_limited", f"A session may send {per_s:g} messages a second on average."
            )
        raw = frame.get("text")
        if raw is None:
            raw = (frame.get("bytes") or b"").decode("utf-8", errors="replace")
        encoded = raw.encode("utf-8", errors="surrogatepass")
        if len(encoded) > self._state.config.ws_max_message_bytes:
            raise BodyTooLarge(
                "body_too_large",
                f"A message may hold {self._state.config.ws_max_message_bytes} bytes.",
            )
        check_depth(encoded)
        try:
            document = json.loads(raw)
        except json.JSONDecodeError as e:
            raise InvalidRequest("invalid_json", f"The message is not valid JSON: {e}.") from None
        return self._parse(WsInputMessage, document)

    @staticmethod
    def _parse(model: type[M], document: object) -> M:
        try:
            return model.model_validate(document)
        except ValidationError as e:
            raise from_validation_error(e) from None

    async def _fail(self, error: ServiceError) -> None:
        """Send the error frame, then close: 1008 for the client's fault, 1011 for ours."""
        code = POLICY_VIOLATION if error.status < 500 else SERVER_ERROR
        self._state.metrics.rejected(error.code)
        try:
            await self._ws.send_text(json.dumps(error.body(self._request_id)))
            await self._ws.close(code, error.code)
        except (WebSocketDisconnect, RuntimeError):
            pass  # the client is already gone


async def _all_or_none(*jobs: Coroutine[Any, Any, None]) -> None:
    """Run ``jobs`` together; if one fails, cancel the rest and raise its error.

    (Like ``asyncio.TaskGroup``, but without cancelling the calling task, which
    would reach the server's own cancel scopes.)
    """
    tasks = [asyncio.create_task(job) for job in jobs]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        for task in done:
            if (error := task.exception()) is not None:
                raise error
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
