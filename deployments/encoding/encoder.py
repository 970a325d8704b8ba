"""From audio chunks to encoded chunks: one response's encoder, and the stream form of it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Callable
from contextlib import aclosing
from typing import ParamSpec, TypeVar

import numpy as np

from deployments.encoding.audio_path import AudioPath
from deployments.messages import (
    AudioChunk,
    CachedAudio,
    EncodedChunk,
    EncodeWork,
    OutputParams,
    SynthesisWork,
    billed_ends,
    billed_through,
)
from deployments.timings import Alignment, Timings

P = ParamSpec("P")
T = TypeVar("T")


class StreamEncoder:
    """Encodes one response's audio as ``output`` asks, with what each chunk carries.

    Samples and text whose bytes are still inside the encoder (an MP3 frame being
    filled, a WAV file being written) are reported with the chunk that carries
    them. Used by every transport: an HTTP response's whole audio
    (:func:`encode_stream`), or a WebSocket session's pieces one after another.
    """

    def __init__(self, output: OutputParams, input_rate: int) -> None:
        self._path = AudioPath(output, input_rate)
        self.sample_rate = self._path.sample_rate
        self._input_rate = input_rate
        self._heard = 0  # input samples added so far
        self._sent = 0  # output samples of the chunks already taken
        self._samples = 0
        self._alignment: Alignment | None = None
        self._aligned = False  # whether the stream carries alignment at all
        self._timings: Timings | None = None
        self._timed = False  # whether it carries phoneme timings at all
        self._end_char = 0

    async def add(
        self,
        samples: np.ndarray,
        end_char: int,
        alignment: Alignment | None = None,
        timings: Timings | None = None,
    ) -> EncodedChunk | None:
        """Encode ``samples``, which speak the text up to ``end_char``; the chunk that
        is ready, if any."""
        if alignment is not None or timings is not None:
            # Where these samples start, from the pending chunk's start: on the input's
            # clock, since a resampler or an MP3 frame holds back some of what came before.
            started_ms = self._heard * 1000 // self._input_rate
            offset_ms = max(0, started_ms - self._sent * 1000 // self.sample_rate)
            if alignment is not None:
                self._aligned = True
                before = self._alignment or Alignment((), (), ())
                self._alignment = before.followed_by(alignment, offset_ms)
            if timings is not None:
                self._timed = True
                self._timings = (self._timings or Timings()).followed_by(timings, offset_ms)
        path = self._path
        self._heard += samples.size
        data, count = await _run(path.offload, path.encode, samples)
        self._samples += count
        self._end_char = end_char
        return self._take(data) if data else None

    async def finish(self) -> EncodedChunk | None:
        """The encoder's last bytes and what they carry, if any."""
        data, count = await _run(self._path.offload, self._path.finish)
        self._samples += count
        return self._take(data) if data or self._samples else None

    def _take(self, data: bytes) -> EncodedChunk:
        alignment = self._alignment
        if alignment is None and self._aligned:
            # audio past the last character (a resampler's or encoder's tail): an
            # aligned stream says "no new characters", not "no alignment"
            alignment = Alignment((), (), ())
        timings = self._timings or (Timings() if self._timed else None)
        chunk = EncodedChunk(
            data, self.sample_rate, self._samples, self._end_char, alignment, timings
        )
        self._sent += self._samples
        self._samples, self._alignment, self._timings = 0, None, None
        return chunk


async def encode_stream(
    chunks: AsyncIterable[AudioChunk], work: EncodeWork
) -> AsyncGenerator[EncodedChunk, None]:
    """Encode ``chunks`` as ``work.output`` asks, yielding only non-empty byte chunks;
    nothing at all (not even a container's header) where they hold no sample."""
    ends = billed_ends(work.synthesis.segments)
    encoder: StreamEncoder | None = None
    async for chunk in chunks:
        if encoder is None and not chunk.samples.size:
            continue  # no sound yet: a stream that never makes one is no audio file
        if encoder is None:
            encoder = StreamEncoder(work.output, chunk.sample_rate)
        end_char = billed_through(chunk, ends)
        encoded = await encoder.add(chunk.samples, end_char, chunk.alignment, chunk.timings)
        if encoded is not None:
            yield encoded
    if encoder is not None and (tail := await encoder.finish()) is not None:
        yield tail


async def encode_work(
    work: EncodeWork, audio: AsyncIterator[AudioChunk] | None
) -> AsyncGenerator[EncodedChunk, None]:
    """``work`` encoded: ``audio`` (its segments without cached audio, synthesised;
    None where every segment has some) in order with its cached audio. Where the work
    keeps its audio, the synthesised chunks (with every timing the voice gives:
    ``EncodeWork.to_synthesise``) come back after the encoded chunk that
    holds them, each on a chunk of its own without bytes (``EncodedChunk.spoken``):
    one message of a Serve stream holds 4 MiB, which a chunk of audio fits and an
    encoder's worth of them (a buffered WAV holds it all to the end) may not."""
    kept: list[AudioChunk] = []

    async def spoken() -> AsyncGenerator[AudioChunk, None]:
        async for chunk in audio or _nothing():
            if work.keep_audio:  # kept with every timing, heard with those asked for
                kept.append(chunk)
                chunk = chunk.as_asked(work.synthesis.params)
            yield chunk

    def brought_back(rate: int, end_char: int) -> list[EncodedChunk]:
        back = [EncodedChunk(b"", rate, 0, end_char, spoken=(chunk,)) for chunk in kept]
        kept.clear()
        return back

    heard = spoken()
    ordered = interleaved(work.cached, heard, work.to_synthesise)
    encoded_stream = encode_stream(ordered, work)
    last: EncodedChunk | None = None
    # closed however this ends, outermost first: nothing waits for the collector
    async with aclosing(heard), aclosing(ordered), aclosing(encoded_stream):
        async for last in encoded_stream:
            yield last
            for back in brought_back(last.sample_rate, last.end_char):
                yield back
    if kept:  # what the encoder's tail held, or audio that made no bytes
        rate = last.sample_rate if last is not None else kept[0].sample_rate
        for back in brought_back(rate, last.end_char if last is not None else 0):
            yield back


async def interleaved(
    cached: CachedAudio | None,
    audio: AsyncIterator[AudioChunk] | None,
    synthesised: SynthesisWork,
) -> AsyncGenerator[AudioChunk, None]:
    """The chunks of a request in its segments' order: ``cached`` audio of some, and
    ``audio``, the rest's (``synthesised``; None: there is none) as it comes. Cached
    audio before the next segment still to come is yielded at once (a cached greeting
    is heard while the sentence after it is synthesised)."""
    pending = list(cached.chunks) if cached is not None else []
    to_come = [segment.index for segment in synthesised.segments]

    def ready() -> list[AudioChunk]:
        frontier = to_come[0] if to_come else None
        taken = [c for c in pending if frontier is None or c.segment < frontier]
        del pending[: len(taken)]
        return taken

    for chunk in ready():
        yield chunk
    async for chunk in audio or _nothing():
        yield chunk
        if chunk.through >= 1.0:  # its segment is done, and any joined into it
            to_come[:] = [index for index in to_come if index > chunk.segment]
        for early in ready():
            yield early
    for chunk in pending:
        yield chunk


async def _nothing() -> AsyncGenerator[AudioChunk, None]:
    return
    yield


async def _run(offload: bool, call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``call`` on a worker thread if ``offload``, else here: a thread hop costs more
    than a copy, and the event loop must never wait on real encoding work."""
    if offload:
        return await asyncio.to_thread(call, *args, **kwargs)
    return call(*args, **kwargs)
