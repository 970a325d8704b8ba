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
Here the socket is read and written: its key, its message rate, its frames. What the
text becomes (its contexts, voicing, bill and settlement) is the speech layer's
:class:`~serve_app.speech.streams.session.StreamSession`, which hands back audio to
send and notices to write. Turns: a named flush (``flush_id``) is answered
``flushDone`` after its last audio, ``clear`` ``cleared`` once its context has stopped.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import time
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from deployments.messages import EncodedChunk
from serve_app.accounts import ApiKey
from serve_app.http.auth import authorization_of
from serve_app.http.body import read_json, validate
from serve_app.http.cache_control import cache_allowed
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
from serve_app.speech.checked import elapsed_ms
from serve_app.speech.streams.session import StreamSession, StreamVoice
from serve_app.speech.streams.text_stream import TextStreamSettings, all_or_none
from serve_app.speech.vocabulary import VoiceOptions
from serve_app.surfaces.native.protocol import WsFinalMessage
from serve_app.surfaces.services import Services
from serve_app.surfaces.websocket.message_rate import MessageRate
from serve_app.surfaces.websocket.wire import ClientMessage, SessionQuery, WireProtocol

logger = logging.getLogger("serve_app")


POLICY_VIOLATION = 1008
SERVER_ERROR = 1011
DEFAULT_CONTEXT = ""
# sessions' settlements under way: a task the loop holds only weakly must be kept
_SETTLING: set[asyncio.Future[None]] = set()


class StreamInputSession:
    """One WebSocket: its key, its query, its messages and frames; what its text
    becomes is its :class:`StreamSession`'s."""

    def __init__(
        self, websocket: WebSocket, state: Services, voice_id: str, wire: WireProtocol
    ) -> None:
        self._ws = websocket
        self._state = state
        self._voice_id = voice_id
        self._wire = wire
        self._request_id: str = websocket.scope["state"]["request_id"]
        self._close_reason = ""
        self._started = websocket.scope["state"]["received_at"]
        self._rate = MessageRate(state.config.ws_max_messages_per_s)
        self._speech = StreamSession(
            state.speech,
            self._send_audio,
            self._send_notice,
            multi=wire.multi,
            max_contexts=state.config.ws_max_contexts,
            received_at=self._started,
        )
        self._query: SessionQuery | None = None
        self._sent_any = False
        self._error_sent = False
        self._format = "pcm"
        self._inactivity_s = 20.0

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
        await self._speech.close()

    def _read_query(self) -> dict[str, object]:
        """The origin and the URL's query checked; the options the query sets."""
        if not origin_allowed(self._ws.headers, self._state.config.allowed_origins):
            raise PermissionDenied(
                "origin_not_allowed",
                f"Pages of {self._ws.headers.get('origin')} may not open this socket "
                "(the service's allowed_origins).",
            )
        query = self._wire.read_query(dict(self._ws.query_params), self._voice_id, self._state)
        self._query = query
        self._inactivity_s = query.inactivity_s
        self._format = query.response_format
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
        """Read the first message's settings; the stream session checks the voice
        (where it is known before any text) and places the session's hold."""
        query, wire = self._query, self._wire
        assert query is not None
        voice_settings = first.voice_settings
        if voice_settings is not None:
            fields |= voice_settings.model_dump()
        located = wire.dictionaries_of(first)
        if located is not None:
            fields["pronunciation_dictionaries"] = located
        # what the options refuse is the client's mistake: an error message and 1008
        options = validate(VoiceOptions, fields)
        rules = await self._state.dictionaries.rules_for(
            key.project_id, options.pronunciation_dictionaries, wire.dictionaries_param
        )
        limit = self._state.config.ws_max_buffered_chars
        # the query's ``cache=false`` or the upgrade request's Cache-Control: no speech cache
        cache = query.cache and cache_allowed(self._ws.headers)
        settings = TextStreamSettings(
            query.ssml, query.phonemes, rules, limit, query.auto_mode, cache
        )
        voice = StreamVoice(
            await wire.session_options(options, self._voice_id, self._state),
            wire.language_by_script,
            wire.dictionaries_param,
            query.bitrate_kbps,
        )
        await self._speech.open(key, settings, voice)

    async def _authenticate(self, authorization: str | None) -> ApiKey:
        return await self._state.auth.authorise(authorization, "speech")

    async def _serve(self, first: ClientMessage) -> None:
        await all_or_none(self._receive(first), self._supervise())
        if not self._wire.multi:
            # settled before the client is told: the usage it reads is in the ledger
            usage = await self._speech.close()
            assert usage is not None
            await self._ws.send_text(WsFinalMessage(usage=usage).model_dump_json())

    async def _supervise(self) -> None:
        """Fail the session with the first context that fails."""
        if (error := await self._speech.failure()) is not None:
            raise error

    async def _receive(self, first: ClientMessage) -> None:
        message: ClientMessage | None = first
        multi = self._wire.multi
        speech = self._speech
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
                await speech.clear(context_id)
            if message.clear and not message.text and not message.flush_id:
                pass  # a clear alone (its empty text does not end the input)
            elif getattr(message, "close_context", False):
                await speech.close_context(context_id)
            elif message.text == "" and not (multi and message.flush) and not message.flush_id:
                if not multi:  # stream-input: the end of the input
                    self._close_reason = "end of input"
                    break
                # multi-stream-input: a keep-alive
            elif message.text is not None or message.flush_id is not None:
                config = message.generation_config
                await speech.add(
                    context_id,
                    message.text or "",
                    message.flush,
                    message.try_trigger_generation,
                    message.flush_id,
                    tuple(config.chunk_length_schedule) if config else None,
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
        await speech.end()

    async def _send_audio(self, context_id: str, index: int, chunk: EncodedChunk) -> None:
        """The ``index``-th audio message of ``context_id`` (the stream session sends
        audio and notices one at a time, and counts the chunk delivered after)."""
        if not self._sent_any:
            self._sent_any = True
            self._state.metrics.first_audio(elapsed_ms(self._started), "websocket", self._format)
        if chunk.data:
            alignment = chunk.alignment.as_wire() if chunk.alignment else None
            audio = base64.b64encode(chunk.data).decode("ascii")
            message = self._wire.audio_message(index, audio, alignment, context_id)
            if chunk.timings is not None:
                message |= chunk.timings.as_wire()
            await self._send_json(message)

    async def _send_notice(self, what: str, context_id: str, flush_id: str | None) -> None:
        """A context's notice: its named flush done, its clear done, its end (only where
        a socket has several contexts, each named in what is said of it)."""
        multi = self._wire.multi
        if what == "ended":
            message: dict[str, Any] = {"isFinal": True}
        elif what == "cleared":
            message = {"cleared": True}
        else:
            message = {"flushDone": True, "flushId": flush_id}
        await self._send_json(message | {"contextId": context_id} if multi else message)

    def _has_settings(self, message: ClientMessage) -> bool:
        return bool(
            message.voice_settings
            or self._wire.key_of(message)
            or self._wire.dictionaries_of(message) is not None
        )

    async def _send_json(self, payload: dict[str, Any]) -> None:
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
