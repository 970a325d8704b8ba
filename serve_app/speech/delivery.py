"""A request's audio on its way to one client, and the bill it is paid from.

Every transport delivers through a :class:`Delivery`, so metering is written once:
an HTTP framing iterates it and turns chunks into bytes; a WebSocket session, whose
contexts make their own audio, reports each chunk it has sent. However the delivery
ends (completed, failed, the client gone, the task cancelled), :meth:`Delivery.aclose`
stops the audio and settles the bill exactly once.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncGenerator, AsyncIterator

from deployments.messages import EncodedChunk
from serve_app.speech.admission import Ticket
from serve_app.speech.billing import Bill, Meter
from serve_app.speech.checked import Voicing, elapsed_ms
from serve_app.speech.metrics import Metrics
from serve_app.speech.vocabulary import RequestUsage


class Delivery:
    """Audio for one client, metered as it is delivered and settled once.

    ``voicing`` names the request's voice in the metrics when it settles (a session
    sets it once its first text has chosen one); ``ticket``, the request's admission
    place, is given back when it settles.
    """

    def __init__(
        self,
        meter: Meter,
        metrics: Metrics,
        bill: Bill,
        received_at: float,
        voicing: Voicing | None = None,
        ticket: Ticket | None = None,
    ) -> None:
        self.bill = bill
        self.voicing = voicing
        self._meter = meter
        self._metrics = metrics
        self._received_at = received_at
        self._audio: AsyncIterator[EncodedChunk] | None = None
        self._source: AsyncIterator[EncodedChunk] | None = None  # what _audio reads
        self._ticket = ticket
        self._readers: list[AsyncGenerator[EncodedChunk, None]] = []
        self._usage: RequestUsage | None = None
        self._synthesis_began: float | None = None

    def synthesising(self) -> None:
        """Its synthesis begins now: if none of its audio reaches the client (it makes
        no sound, or the client leaves first), the time until it settles is synthesis
        the key spent without audio (``unproductive_seconds_per_minute``)."""
        self._synthesis_began = time.monotonic()

    def failed_by_the_service(self) -> None:
        """Its synthesis failed on the service's side (an engine's error, no replica in
        time): the time it ran is not the key's to spend."""
        self._synthesis_began = None

    def spent_without_audio(self, seconds: float) -> None:
        """Synthesis for it ran ``seconds`` and made no audio (a session's piece that
        was silent, or cleared or cut off first): the key's, when it settles."""
        self.bill.unproductive_ms += seconds * 1000

    def attach(self, audio: AsyncIterator[EncodedChunk], first: EncodedChunk | None) -> None:
        """The audio to deliver once it has begun: ``first``, already taken from
        ``audio`` (None if there was none), then the rest of it."""
        self._source = audio
        self._audio = _prepend(first, audio)

    def __aiter__(self) -> AsyncIterator[EncodedChunk]:
        """The audio; each chunk counts as delivered once the reader comes back for the
        next (it has sent this one on), or the audio ends after it."""
        reader = self._metered()
        self._readers.append(reader)
        return reader

    async def _metered(self) -> AsyncGenerator[EncodedChunk, None]:
        if self._audio is None:
            return
        async for chunk in self._audio:
            yield chunk
            await self.delivered(chunk)

    async def collect(self) -> list[EncodedChunk]:
        """The whole audio at once, for a buffered answer: counted as delivered only
        when all of it is in hand, so a failure midway charges nothing."""
        parts = [chunk async for chunk in self._audio] if self._audio is not None else []
        for chunk in parts:
            self.bill.add(chunk)
        return parts

    async def delivered(self, chunk: EncodedChunk, stream: int = 0) -> None:
        """Count ``chunk`` (of ``stream``, for a bill of several texts) as received."""
        await self._meter.delivered(self.bill, chunk, stream)

    async def extend(self, characters: int) -> None:
        """Grow the hold by ``characters`` more (a session's next text); 402 if short."""
        await self._meter.extend(self.bill, characters)

    async def shrink(self, characters: int) -> None:
        """Release the hold of ``characters`` that will not be said (a barge-in)."""
        await self._meter.shrink(self.bill, characters)

    def spoken(self, stream: int) -> int:
        """Characters of ``stream`` whose audio has been delivered."""
        return self.bill.spoken.get(stream, 0)

    def usage(self) -> RequestUsage:
        """What has been delivered so far, and its price."""
        return self._meter.usage(self.bill)

    async def aclose(self) -> RequestUsage:
        """Stop the audio and settle: charge what was delivered, or release the hold if
        nothing was. Later calls return the same usage."""
        if self._usage is not None:
            return self._usage
        try:
            # the readers, then the audio they read, then its source: synthesis stops now,
            # not when the garbage collector finds the generators
            for stream in (*self._readers, self._audio, self._source):
                close = getattr(stream, "aclose", None)
                if close is not None:
                    with contextlib.suppress(RuntimeError):  # still running: its owner closes it
                        await close()
            if self.bill.chunks == 0 and self._synthesis_began is not None:
                self.spent_without_audio(time.monotonic() - self._synthesis_began)
            self._usage = usage = await self._meter.settle(self.bill)
        finally:
            if self._ticket is not None:
                self._ticket.release()
                self._ticket = None
        if self.voicing is not None:
            params = self.voicing.params
            self._metrics.finished(
                params.voice,
                params.language,
                usage.characters,
                usage.audio_ms / 1000,
                elapsed_ms(self._received_at) / 1000,
            )
        return usage


async def _prepend(
    first: EncodedChunk | None, rest: AsyncIterator[EncodedChunk]
) -> AsyncGenerator[EncodedChunk, None]:
    if first is None:
        return
    yield first
    async for chunk in rest:
        yield chunk
