"""Text in as it is written, audio out, over a WebSocket: three protocols, one session.

- ours, ``/v1/audio/speech/stream-input/{voice_id}``, in the
  message shapes of ElevenLabs' ``stream-input``;
- ElevenLabs' ``/v1/text-to-speech/{voice_id}/stream-input``: the same, with its
  query (``output_format``, ``model_id``, ``language_code``) and names;
- ElevenLabs' ``/v1/text-to-speech/{voice_id}/multi-stream-input``: several
  contexts on one socket (``context_id``), each its own ordered audio, ended with
  ``close_context`` (answered ``{"isFinal": true, "contextId": ...}``);
  ``{"text": ""}`` is a keep-alive there, ``close_socket`` ends the session.

What differs between them (the query, the frames, the names) is each surface's
:class:`~serve_app.surfaces.websocket.wire.WireProtocol`; the session is the same.
Each context is a :class:`~serve_app.speech.streams.text_stream.TextStream` of the speech
layer: a buffer that cuts its text into pieces, a producer that checks, voices,
reads, pays for and synthesises pieces in order (the next while the last is sent),
and a sender that encodes them as one stream and hands them here to send in input
order; the session's contexts are opened, cleared (barge-in) and ended in
contexts.py. The session reads messages and writes frames. Turns: a named
flush (``flush_id``) is answered ``flushDone`` after its last audio, ``clear``
``cleared`` once its context has stopped. One bill per session, one :class:`Delivery`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import time
from typing import Any, TypeVar

from pydantic import BaseModel
from starlette.websockets import WebSocket, WebSocketDisconnect

from deployments.messages import EncodedChunk
from serve_app.accounts import ApiKey
from serve_app.http.auth import authorization_of
from serve_app.http.body import read_json, validate
from serve_app.http.errors import (
    AuthenticationFailed,
    BodyTooLarge,
    InternalError,
    InvalidRequest,
    PermissionDenied,
    RateLimited,
    ServiceError,
)
from serve_app.http.origins import origin_allowed
from serve_app.speech.admission import Ticket, client_address
from serve_app.speech.checked import Voicing, elapsed_ms
from serve_app.speech.delivery import Delivery
from serve_app.speech.streams.text_stream import TextStream, TextStreamSettings, all_or_none
from serve_app.speech.vocabulary import VoiceOptions
from serve_app.surfaces.native.protocol import WsFinalMessage
from serve_app.surfaces.services import Services
from serve_app.surfaces.websocket.contexts import Contexts
from serve_app.surfaces.websocket.message_rate import MessageRate
from serve_app.surfaces.websocket.wire import ClientMessage, WireProtocol

logger = logging.getLogger("serve_app")


M = TypeVar("M", bound=BaseModel)

POLICY_VIOLATION = 1008
SERVER_ERROR = 1011
DEFAULT_CONTEXT = ""
# sessions' settlements under way: a task the loop holds only weakly must be kept
_SETTLING: set[asyncio.Future[None]] = set()


class StreamInputSession:
    """One WebSocket: its key, its query, its contexts, and one bill settled at the end."""

    def __init__(
        self, websocket: WebSocket, state: Services, voice_id: str, wire: WireProtocol
    ) -> None:
        self._ws = websocket
        self._state = state
        self._voice_id = voice_id
        self._wire = wire
        self._request_id: str = websocket.scope["state"]["request_id"]
        self._delivery: Delivery | None = None  # the session's one bill, once it has a key
        self._close_reason = ""
        self._started = websocket.scope["state"]["received_at"]
        self._rate = MessageRate(state.config.ws_max_messages_per_s)
        self._send_lock = asyncio.Lock()
        self._contexts = Contexts(self, state, self._send_json, self._send_lock, wire.multi)
        self._ssml = False  # the query says
        self._phonemes = False  # the query asks for phoneme timings
        self._sent_any = False
        self._error_sent = False
        self._options: VoiceOptions | None = None
        self._bitrate_kbps: int | None = None
        self._voicing: Voicing | None = None
        self._project_id: str | None = None
        self._format = "pcm"
        self._inactivity_s = 20.0

    # -- where its contexts' text is voiced and paid for, and their audio goes
    # (text_stream.TextStreamSink) --

    async def extend_bill(self, characters: int) -> None:
        assert self._delivery is not None
        await self._delivery.extend(characters)

    def spent_without_audio(self, seconds: float) -> None:
        if self._delivery is not None:
            self._delivery.spent_without_audio(seconds)

    async def release_unsent(self, context: TextStream) -> None:
        if self._delivery is None:
            return
        unsent = context.held - self._delivery.spoken(context.stream_number)
        if unsent > 0:
            context.held -= unsent
            await self._delivery.shrink(unsent)

    async def run(self) -> None:
        """Serve the session to its end. Every way out settles what was delivered,
        before the socket is closed. A socket costs an admission place only once it
        has shown a valid key; until then it is one of the few its address may have
        waiting, for at most ``ws_auth_timeout_s``."""
        await self._ws.accept()
        error: ServiceError | None = None
        client_left = False
        ticket: Ticket | None = None
        try:
            fields = self._read_query()
            key, first = await self._authenticate_session()
            ticket = self._state.admission.enter()
            first = first or await self._next_message()
            if first is None:
                self._close_reason = "inactivity timeout"
            else:
                await self._open(key, first, fields)
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
            # settled to the end in a task of its own, even where this one is cancelled
            # (the server stopping; a test client that leaves): else the session's hold
            # stayed open, what it spent unrecorded
            settling = asyncio.ensure_future(self._settle())
            _SETTLING.add(settling)
            settling.add_done_callback(_SETTLING.discard)
            await asyncio.shield(settling)
        if error is not None:
            await self._fail(error)
        elif not client_left:
            await self._ws.close(1000, self._close_reason)

    async def _settle(self) -> None:
        """Stop the contexts (what they spent on the bill), then settle the bill."""
        await self._contexts.cancel_all()
        if self._delivery is not None:
            self._delivery.voicing = self._voicing
            await self._delivery.aclose()

    def _read_query(self) -> dict[str, object]:
        """The origin and the URL's query checked; the options the query sets."""
        if not origin_allowed(self._ws.headers, self._state.config.allowed_origins):
            raise PermissionDenied(
                "origin_not_allowed",
                f"Pages of {self._ws.headers.get('origin')} may not open this socket "
                "(the service's allowed_origins).",
            )
        query = self._wire.read_query(dict(self._ws.query_params), self._voice_id, self._state)
        self._inactivity_s = query.inactivity_s
        self._bitrate_kbps = query.bitrate_kbps
        self._format = query.response_format
        self._ssml = query.ssml
        self._phonemes = query.phonemes
        self._contexts.auto_mode = query.auto_mode
        return dict(query.fields)

    async def _authenticate_session(self) -> tuple[ApiKey, ClientMessage | None]:
        """The caller's key: from the upgrade request's headers, or from a first
        message that must come within ``ws_auth_timeout_s`` (then returned too), the
        socket meanwhile one of the few its address may have waiting."""
        header = authorization_of(self._ws.headers)
        deadline = self._state.config.ws_auth_timeout_s
        if header:
            try:
                return await self._authenticate(header), None
            except (AuthenticationFailed, PermissionDenied) as refused:
                await self._refuse_when_heard(refused, deadline)
                raise
        first = await self._wait_without_key(deadline)
        if first is None:
            raise AuthenticationFailed(
                "missing_api_key",
                f"No API key within {deadline:g} s of opening the socket: send it in the "
                "upgrade request's Authorization header or in the first message.",
            )
        return await self._authenticate(self._wire.key_of(first)), first

    async def _refuse_when_heard(self, refused: ServiceError, deadline_s: float) -> None:
        """The refusal of the upgrade request's key at once, the close only once the
        client has sent something (or after ``deadline_s``): a client that sets its
        stream up as the socket opens and sends only then (LiveKit's ElevenLabs plugin)
        misses a close that comes before, and waits for audio forever."""
        try:
            await self._send_error(refused)
        except RuntimeError:
            return  # the client is already gone
        # what it sends is not read; past its address's places, it is closed at once
        with contextlib.suppress(ServiceError):
            await self._wait_without_key(deadline_s)

    async def _wait_without_key(self, deadline_s: float) -> ClientMessage | None:
        """The client's next message within ``deadline_s`` (None: none came), the socket
        meanwhile one of the few its address may have waiting (:class:`RateLimited`
        past them)."""
        with self._state.unauthenticated.place(client_address(self._ws.scope)):
            return await self._next_message(min(deadline_s, self._inactivity_s))

    async def _open(self, key: ApiKey, first: ClientMessage, fields: dict[str, object]) -> None:
        """Check the voice and the first message's settings; place the session's hold."""
        self._project_id = key.project_id
        settings = first.voice_settings
        if settings is not None:
            fields |= settings.model_dump()
        located = self._wire.dictionaries_of(first)
        if located is not None:
            fields["pronunciation_dictionaries"] = located
        # what the options refuse is the client's mistake: an error message and 1008
        self._options = validate(VoiceOptions, fields)
        rules = await self._state.dictionaries.rules_for(
            key.project_id, self._options.pronunciation_dictionaries, self._wire.dictionaries_param
        )
        self._contexts.settings = TextStreamSettings(
            self._ssml, self._phonemes, rules, self._state.config.ws_max_buffered_chars
        )
        if self._wire.voice_known(self._options):
            await self.voicing_for("")  # the voice is known: check it now
        self._delivery = await self._state.speech.open_delivery(key, self._started)

    async def voicing_for(self, text: str) -> Voicing:
        """The session's voicing, chosen once, when the first ``text`` is known (the
        protocol may choose by it: ElevenLabs' clients send no language)."""
        if self._voicing is None:
            assert self._options is not None
            options = await self._wire.options_for(self._options, text, self._voice_id, self._state)
            self._voicing = await self._state.speech.choose(
                options, True, self._project_id, self._wire.dictionaries_param, self._bitrate_kbps
            )
        return self._voicing

    async def _authenticate(self, authorization: str | None) -> ApiKey:
        return await self._state.auth.authorise(authorization, "speech")

    async def _serve(self, first: ClientMessage) -> None:
        await all_or_none(self._receive(first), self._supervise())
        if not self._wire.multi:
            assert self._delivery is not None
            # settled before the client is told: the usage it reads is in the ledger
            self._delivery.voicing = self._voicing
            usage = await self._delivery.aclose()
            await self._ws.send_text(WsFinalMessage(usage=usage).model_dump_json())

    async def _supervise(self) -> None:
        """Fail the session with the first context that fails."""
        if (error := await self._contexts.failures.get()) is not None:
            raise error

    async def _receive(self, first: ClientMessage) -> None:
        message: ClientMessage | None = first
        multi = self._wire.multi
        ends_at = time.monotonic() + self._state.config.ws_max_session_s
        while message is not None:
            if time.monotonic() >= ends_at:
                self._close_reason = "maximum session length"
                break
            context_id = getattr(message, "context_id", None) or DEFAULT_CONTEXT
            if getattr(message, "close_socket", False):
                self._close_reason = "close_socket"
                break
            if message.clear:
                await self._contexts.clear(context_id)
            if message.clear and not message.text and not message.flush_id:
                pass  # a clear alone (its empty text does not end the input)
            elif getattr(message, "close_context", False):
                if (context := self._contexts.get(context_id)) is not None:
                    await context.end()
            elif message.text == "" and not (multi and message.flush) and not message.flush_id:
                if not multi:  # stream-input: the end of the input
                    self._close_reason = "end of input"
                    break
                # multi-stream-input: a keep-alive
            elif message.text is not None or message.flush_id is not None:
                context = self._contexts.open(context_id, message)
                await context.add(
                    message.text or "",
                    message.flush,
                    message.try_trigger_generation,
                    message.flush_id,
                )
            message = await self._next_message(ends_at=ends_at)
            if message is not None and not multi and self._has_settings(message):
                raise InvalidRequest(
                    "invalid_value", "Settings and the key belong in the first message only."
                )
        if message is None and not self._close_reason:
            self._close_reason = (
                "maximum session length" if time.monotonic() >= ends_at else "inactivity timeout"
            )
        await self._contexts.end_all()

    async def send_audio(self, context: TextStream, index: int, chunk: EncodedChunk) -> None:
        """Send ``chunk`` and count it delivered, both under the send lock: a context
        cleared meanwhile (:meth:`Contexts.clear`) stops between chunks, never between
        a chunk's sending and its counting."""
        assert self._delivery is not None
        if not self._sent_any:
            self._sent_any = True
            self._state.metrics.first_audio(elapsed_ms(self._started), "websocket", self._format)
        message = None
        if chunk.data:
            alignment = chunk.alignment.as_wire() if chunk.alignment else None
            audio = base64.b64encode(chunk.data).decode("ascii")
            message = self._wire.audio_message(index, audio, alignment, context.id)
            if chunk.timings is not None:
                message |= chunk.timings.as_wire()
        async with self._send_lock:
            if message is not None:
                await self._ws.send_text(json.dumps(message, separators=(",", ":")))
            await asyncio.shield(self._delivery.delivered(chunk, context.stream_number))

    async def send_flush_done(self, context: TextStream, flush_id: str) -> None:
        done = {"flushDone": True, "flushId": flush_id}
        await self._send_json(self._contexts.acknowledgement(done, context.id))

    def _has_settings(self, message: ClientMessage) -> bool:
        return bool(
            message.voice_settings
            or self._wire.key_of(message)
            or self._wire.dictionaries_of(message) is not None
        )

    async def _send_json(self, payload: dict[str, Any]) -> None:
        async with self._send_lock:  # contexts send from their own tasks
            await self._ws.send_text(json.dumps(payload, separators=(",", ":")))

    async def _next_message(
        self, timeout_s: float | None = None, ends_at: float | None = None
    ) -> ClientMessage | None:
        """The next client frame, parsed; None if the client stayed silent too long
        (``timeout_s``, else the session's inactivity timeout) or the session's time
        (``ends_at``, on the monotonic clock) is up."""
        wait_s = timeout_s or self._inactivity_s
        if ends_at is not None:
            wait_s = max(0.0, min(wait_s, ends_at - time.monotonic()))
        try:
            async with asyncio.timeout(wait_s):
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
        encoded = raw.encode("utf-8")
        if len(encoded) > self._state.config.ws_max_message_bytes:
            raise BodyTooLarge(
                "body_too_large",
                f"A message may hold {self._state.config.ws_max_message_bytes} bytes.",
            )
        return self._wire.read_message(read_json(encoded, "message"))

    async def _fail(self, error: ServiceError) -> None:
        """Send the error frame, then close: 1008 for the client's fault, 1011 for ours."""
        code = POLICY_VIOLATION if error.status < 500 else SERVER_ERROR
        try:
            if not self._error_sent:
                await self._send_error(error)
            await self._ws.close(code, error.code)
        except (WebSocketDisconnect, RuntimeError):
            pass  # the client is already gone

    async def _send_error(self, error: ServiceError) -> None:
        """The error frame (counted once, however the socket then ends)."""
        self._error_sent = True
        self._state.metrics.rejected(error.code)
        await self._ws.send_text(json.dumps(error.body(self._request_id)))
