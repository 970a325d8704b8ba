"""A text stream: text that arrives in pieces (a WebSocket context's messages),
buffered, cut where sentences end, each piece checked, voiced, read, paid for and
spoken in order, and its audio encoded as one stream and handed to its sink (the
session that owns it) to send. The surface only reads messages and writes frames."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from dataclasses import dataclass, replace
from typing import Any, Protocol

from deployments.encoding import StreamEncoder
from deployments.messages import (
    AudioChunk,
    EncodedChunk,
    OutputParams,
    billed_ends,
    billed_through,
)
from deployments.normaliser import without_tags
from deployments.reading import PronunciationRule
from serve_app.http.errors import InsufficientBalance, InvalidRequest
from serve_app.speech.admission import Ticket
from serve_app.speech.checked import Voicing, with_alignment
from serve_app.speech.service import SpeechService
from serve_app.speech.streams.text_buffer import Piece, TextBuffer

_DONE = None
# Pieces (each at most a schedule's length, ~290 characters, or a sentence) that may
# wait to be spoken: past it, a text stream's add waits for room, so a client that sends
# text faster than it is spoken is read as fast as it is spoken (nothing is dropped,
# nothing piles up).
MAX_QUEUED_PIECES = 32
# The session's hold grows as text arrives, in blocks of at least this many
# characters (one ledger write per block, not per message of a word or two).
HOLD_BLOCK_CHARS = 256


@dataclass(frozen=True)
class FlushMark:
    """Where a named flush falls among a text stream's pieces: acknowledged once the audio
    of everything before it has been sent."""

    flush_id: str


@dataclass(frozen=True)
class TextStreamSettings:
    """What a session's query and first message settle for all its text streams: SSML
    texts, phoneme timings, the dictionaries' rules, the longest text that may wait
    for a sentence end, ``auto_mode`` (no chunk schedule: pieces end at sentences
    and flushes), and whether pieces spoken before may come from the speech cache."""

    ssml: bool = False
    phonemes: bool = False
    rules: tuple[PronunciationRule, ...] = ()
    max_buffered_chars: int = 8192
    auto_mode: bool = False
    cache: bool = True


class TextStreamSink(Protocol):
    """Where a text stream's text is voiced and paid for, and its audio goes: its session."""

    async def voicing_for(self, text: str) -> Voicing:
        """The voicing for ``text`` (the first text settles the session's)."""
        ...

    async def extend_bill(self, characters: int) -> None:
        """Grow the session's hold by ``characters`` more; 402 if the balance is short."""
        ...

    async def release_unsent(self, text: TextStream) -> None:
        """Release the hold of what ``text`` was held for and has not sent (it was
        cleared: what it dropped will not be said)."""
        ...

    async def send_audio(self, text: TextStream, index: int, chunk: EncodedChunk) -> None:
        """Send ``chunk``, the ``index``-th message of ``text``, and count it delivered."""
        ...

    async def send_flush_done(self, text: TextStream, flush_id: str) -> None:
        """Tell the client the audio of the flush ``flush_id`` has all been sent."""
        ...

    def spent_without_audio(self, seconds: float) -> None:
        """A piece's synthesis ran ``seconds`` and made no audio (it was silent, or its
        stream was cleared or closed first): the key's unproductive time."""
        ...


class TextStream:
    """One stream's text to audio: its buffer, its pieces synthesised in order, one
    encoder (one MP3 stream however many pieces) and its message index. ``id`` is its
    WebSocket context's; ``stream_number`` numbers it among the session's streams, each
    billed for its own text."""

    def __init__(
        self,
        speech: SpeechService,
        settings: TextStreamSettings,
        sink: TextStreamSink,
        context_id: str,
        schedule: tuple[int, ...] | None,
        stream_number: int = 0,
    ) -> None:
        self.id = context_id
        self.stream_number = stream_number
        self.buffer = TextBuffer(schedule, markup=settings.ssml, rules=settings.rules)
        self._speech = speech
        self._settings = settings
        self._sink = sink
        self._output: OutputParams | None = None  # the session's, once its voicing is known
        self._pieces: asyncio.Queue[Piece | FlushMark | None] = asyncio.Queue(MAX_QUEUED_PIECES)
        # (characters of the stream's text spoken by the chunk's end, the chunk)
        self._audio: asyncio.Queue[tuple[int, AudioChunk] | FlushMark | None] = asyncio.Queue(
            maxsize=8
        )
        self.task: asyncio.Task[None] | None = None
        self.ticket: Ticket | None = None  # its own admission place, if it has one
        self.ended = False
        self.held = 0  # characters the session's hold was grown by for this stream
        self._owed = 0  # characters of it that text has taken (the rest held ahead)

    async def add(self, text: str, flush: bool, trigger: bool, flush_id: str | None = None) -> None:
        """Buffer ``text``; queue the pieces it completes (all that is buffered on a
        ``flush``, and after them the mark of a named one), waiting while
        :data:`MAX_QUEUED_PIECES` wait to be spoken."""
        if self.ended:
            raise InvalidRequest(
                "invalid_value", f"Context '{self.id}' is closed; open a new one.", "context_id"
            )
        if not len(self.buffer) and not text.strip():
            text = ""  # space before any text (the protocol's opening " "): not billed
        await self._hold(len(text))  # held as it arrives: 402 now, not when it is spoken
        ready: list[Piece | FlushMark | None] = list(self.buffer.add(text))
        if flush or flush_id is not None:
            ready.append(self.buffer.flush())
            if flush_id is not None:
                ready.append(FlushMark(flush_id))
        elif trigger:
            ready.append(self.buffer.try_trigger())
        for piece in ready:
            if piece is not None:
                await self._pieces.put(piece)
        limit = self._settings.max_buffered_chars
        if len(self.buffer) > limit:
            raise InvalidRequest(
                "input_too_long", f"More than {limit} characters wait for a sentence end.", "text"
            )

    async def _hold(self, characters: int, checked: bool = False) -> None:
        """The session's hold grown to cover ``characters`` more of this stream, a
        block ahead at a time (402 ``insufficient_balance`` if the balance cannot);
        ``checked``: grown by nothing if need be, so that the key is checked again (a
        revoked key ends the session at the next text it speaks)."""
        short = self._owed + characters - self.held
        if short <= 0 and checked:
            await self._sink.extend_bill(0)
        elif short > 0:
            grow = max(short, HOLD_BLOCK_CHARS)
            try:
                await self._sink.extend_bill(grow)
            except InsufficientBalance:
                if grow == short:
                    raise
                grow = short  # a small balance: no block ahead, just what this text needs
                await self._sink.extend_bill(grow)
            self.held += grow
        self._owed += characters

    async def end(self) -> None:
        """No more text: what is buffered is spoken, then the stream ends."""
        if self.ended:
            return
        self.ended = True
        rest = self.buffer.flush()
        if rest is not None:
            await self._pieces.put(rest)
        await self._pieces.put(_DONE)

    async def run(self) -> None:
        await all_or_none(self._produce(), self._send())

    async def _produce(self) -> None:
        """Synthesise pieces in order; each piece's audio goes to the sender as it comes,
        with the characters of this stream's text it has spoken by its end."""
        speech, settings, sink = self._speech, self._settings, self._sink
        spoken = 0  # characters of this stream's cleaned text before the piece
        while (piece := await self._pieces.get()) is not None:
            if isinstance(piece, FlushMark):
                await self._audio.put(piece)
                continue
            given = await speech.check_input(
                piece.text, "ssml" if settings.ssml else "text", "text"
            )
            text = given.text
            sample = without_tags(text) if given.ssml else text  # its script tells the language
            base = await sink.voicing_for(sample)
            self._output = base.output
            voicing = with_alignment(base, base.output, settings.phonemes)
            said = await speech.read(given, voicing, "text")
            if said is None:
                continue  # punctuation alone: nothing to say, nothing to bill
            billed = said.characters
            await self._hold(max(0, billed - len(piece.text)), checked=True)  # expansions
            ends = billed_ends(said.text.segments)
            began, made, failed = time.monotonic(), False, False
            try:
                async for chunk in speech.synthesise(said, voicing, settings.cache):
                    made = True
                    if chunk.timings is not None:  # words: offsets in all the stream's text
                        chunk = replace(chunk, timings=chunk.timings.moved(0, piece.start))
                    await self._audio.put((spoken + billed_through(chunk, ends), chunk))
            except Exception:
                failed = True  # a failure of the service's own spends nothing
                raise
            finally:
                if not made and not failed:  # silent, cleared, or the session ended first
                    sink.spent_without_audio(time.monotonic() - began)
            spoken += billed
        await self._audio.put(_DONE)

    async def _send(self) -> None:
        """Encode the pieces' audio as one stream (one MP3 stream however many pieces:
        the same encoder as an HTTP response's) and hand it to the session in order."""
        encoder: StreamEncoder | None = None
        index = 0
        while (item := await self._audio.get()) is not None:
            if isinstance(item, FlushMark):
                # a named flush ends a turn: what the encoder holds goes out (an MP3
                # stream ends; the next audio begins another), then the acknowledgement
                if encoder is not None and (tail := await encoder.finish()) is not None:
                    await self._sink.send_audio(self, index, tail)
                    index += 1
                encoder = None
                await self._sink.send_flush_done(self, item.flush_id)
                continue
            end_char, chunk = item
            if encoder is None:
                assert self._output is not None  # its piece's voicing was chosen first
                encoder = StreamEncoder(self._output, chunk.sample_rate)
            encoded = await encoder.add(chunk.samples, end_char, chunk.alignment, chunk.timings)
            if encoded is not None:
                await self._sink.send_audio(self, index, encoded)
                index += 1
        if encoder is not None and (tail := await encoder.finish()) is not None:
            await self._sink.send_audio(self, index, tail)


async def all_or_none(*coroutines: Coroutine[Any, Any, None]) -> None:
    """Run ``coroutines`` together; if one fails, cancel the rest and raise its error.

    (Like ``asyncio.TaskGroup``, but without cancelling the calling task, which
    would reach the server's own cancel scopes.)
    """
    tasks = [asyncio.create_task(c) for c in coroutines]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        for task in done:
            if (error := task.exception()) is not None:
                raise error
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
