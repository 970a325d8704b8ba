"""A stream session: the text a client streams in (over a WebSocket), in one or more
contexts, each a :class:`~serve_app.speech.streams.text_stream.TextStream`; the
session's one voicing, chosen by its first text; its one bill, held as text arrives,
counted as audio is sent, released where a context is cleared, settled once.

The surface that owns the socket reads its messages and writes its frames; it hands
the session text (:meth:`StreamSession.add`), barge-ins (:meth:`StreamSession.clear`)
and ends, and is handed back two things: audio to send (``send_audio``) and notices
(``send_notice``: a named flush done, a context cleared, a context ended). Nothing
else of the bill or the voice goes through the surface.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from deployments.messages import EncodedChunk
from serve_app.accounts import ApiKey
from serve_app.speech.checked import Voicing
from serve_app.speech.delivery import Delivery
from serve_app.speech.service import SpeechService
from serve_app.speech.streams.contexts import Contexts
from serve_app.speech.streams.text_stream import TextStream, TextStreamSettings
from serve_app.speech.vocabulary import RequestUsage, VoiceOptions

# (context id, its message index, the chunk): send it; the session counts it delivered
# once this returns
SendAudio = Callable[[str, int, EncodedChunk], Awaitable[None]]
# (what: "flush_done", "cleared" or "ended", context id, the flush's id or None)
SendNotice = Callable[[str, str, str | None], Awaitable[None]]


@dataclass(frozen=True)
class StreamVoice:
    """How a session's voice is chosen: the client's ``options``; ``by_script``: where
    they name no language, the first text's script chooses it (ElevenLabs' clients
    send none); what errors call the dictionaries field, and the MP3 bit rate."""

    options: VoiceOptions
    by_script: bool = False
    dictionaries_param: str = "pronunciation_dictionaries"
    bitrate_kbps: int | None = None

    @property
    def known(self) -> bool:
        """Whether the voice can be chosen (and checked) before any text has arrived."""
        return not self.by_script or self.options.language is not None


class StreamSession:
    """One client's streamed text to audio: its contexts, voicing, bill and settlement.

    ``multi``: contexts end one by one (``close_context``), each with an "ended" notice;
    ``received_at`` (the monotonic clock) is when the session began, for its metrics.
    Audio and notices are sent under one lock, so a context cleared meanwhile stops
    between chunks, never between a chunk's sending and its counting.
    """

    def __init__(
        self,
        speech: SpeechService,
        send_audio: SendAudio,
        send_notice: SendNotice,
        *,
        multi: bool,
        max_contexts: int,
        received_at: float,
    ) -> None:
        self._speech = speech
        self._send_audio = send_audio
        self._send_notice = send_notice
        self._received_at = received_at
        self._send_lock = asyncio.Lock()
        self._contexts = Contexts(
            self, speech, max_contexts, self._notify_context, self._send_lock, multi
        )
        self._voice: StreamVoice | None = None
        self._project_id: str | None = None
        self._voicing: Voicing | None = None
        self._delivery: Delivery | None = None  # the session's one bill, once opened

    async def open(self, key: ApiKey, settings: TextStreamSettings, voice: StreamVoice) -> None:
        """Settle what the session's query and first message set; check the voice now
        where it is known; open the bill (402 if the balance is spent)."""
        self._project_id = key.project_id
        self._contexts.settings = settings
        self._voice = voice
        if voice.known:
            await self.voicing_for("")
        self._delivery = await self._speech.open_delivery(key, self._received_at)

    # -- the client's text, turns and ends --

    async def add(
        self,
        context_id: str,
        text: str,
        flush: bool = False,
        trigger: bool = False,
        flush_id: str | None = None,
        schedule: tuple[int, ...] | None = None,
    ) -> None:
        """``text`` for the context ``context_id`` (opened by it, cut by ``schedule``):
        see :meth:`TextStream.add`."""
        context = self._contexts.open(context_id, schedule)
        await context.add(text, flush, trigger, flush_id)

    async def clear(self, context_id: str) -> None:
        """Barge-in: see :meth:`Contexts.clear` (answered with a "cleared" notice)."""
        await self._contexts.clear(context_id)

    async def close_context(self, context_id: str) -> None:
        """No more text for ``context_id``: it speaks what it holds, then ends."""
        if (context := self._contexts.get(context_id)) is not None:
            await context.end()

    async def end(self) -> None:
        """No more input: every context speaks what it holds, then ends."""
        await self._contexts.end_all()

    async def failure(self) -> BaseException | None:
        """The first context's failure, or None once the input has ended without one."""
        return await self._contexts.failures.get()

    async def close(self) -> RequestUsage | None:
        """Stop every context (what they spent goes on the bill), then settle it (None:
        the session never opened one). Later calls return the same usage."""
        await self._contexts.cancel_all()
        if self._delivery is None:
            return None
        self._delivery.voicing = self._voicing
        return await self._delivery.aclose()

    # -- where its contexts' text is voiced and paid for, and their audio goes
    # (text_stream.TextStreamSink) --

    async def voicing_for(self, text: str) -> Voicing:
        """The session's voicing, chosen once, when the first ``text`` is known."""
        if self._voicing is None:
            voice = self._voice
            assert voice is not None
            options = voice.options
            if voice.by_script and options.language is None:
                language = (await self._speech.catalog()).policy.language_of(text)
                options = options.model_copy(update={"language": language})
            self._voicing = await self._speech.choose(
                options, True, self._project_id, voice.dictionaries_param, voice.bitrate_kbps
            )
        return self._voicing

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

    async def send_audio(self, context: TextStream, index: int, chunk: EncodedChunk) -> None:
        """Send ``chunk`` and count it delivered, both under the send lock."""
        assert self._delivery is not None
        async with self._send_lock:
            await self._send_audio(context.id, index, chunk)
            await asyncio.shield(self._delivery.delivered(chunk, context.stream_number))

    async def send_flush_done(self, context: TextStream, flush_id: str) -> None:
        async with self._send_lock:
            await self._send_notice("flush_done", context.id, flush_id)

    async def _notify_context(self, what: str, context_id: str) -> None:
        async with self._send_lock:
            await self._send_notice(what, context_id, None)
