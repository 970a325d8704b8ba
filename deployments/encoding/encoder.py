"""From a stream of audio chunks to a stream of encoded chunks, for one request."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Callable
from typing import ParamSpec, TypeVar

from deployments.encoding.session import EncodingSession
from deployments.messages import AudioChunk, EncodedChunk, EncodeJob
from deployments.synthesis.alignment import Alignment

P = ParamSpec("P")
T = TypeVar("T")


async def encode_stream(
    chunks: AsyncIterable[AudioChunk], job: EncodeJob
) -> AsyncIterator[EncodedChunk]:
    """Encode ``chunks`` as ``job.output`` asks, yielding only non-empty byte chunks.

    Samples and text whose bytes are still inside the encoder (an MP3 frame being
    filled, a WAV file being written) are reported with the chunk that carries them.
    """
    segment_ends = {s.index: s.end for s in job.synthesis.segments}
    session: EncodingSession | None = None
    pending_samples = 0
    pending_alignment: Alignment | None = None
    end_char = 0
    async for chunk in chunks:
        if session is None:
            session = EncodingSession(job.output, chunk.sample_rate)
        if chunk.alignment is not None:
            offset_ms = pending_samples * 1000 // session.sample_rate
            pending_alignment = (
                chunk.alignment
                if pending_alignment is None
                else pending_alignment.followed_by(chunk.alignment, offset_ms)
            )
        data, samples = await _run(session.offload, session.encode, chunk.samples)
        pending_samples += samples
        end_char = segment_ends[chunk.segment]
        if data:
            yield EncodedChunk(
                data, session.sample_rate, pending_samples, end_char, pending_alignment
            )
            pending_samples, pending_alignment = 0, None
    if session is None:
        return
    data, samples = await _run(session.offload, session.finish)
    pending_samples += samples
    if data or pending_samples:
        yield EncodedChunk(data, session.sample_rate, pending_samples, end_char, pending_alignment)


async def _run(offload: bool, call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``call`` on a worker thread if ``offload``, else here: a thread hop costs more
    than a copy, and the event loop must never wait on real encoding work."""
    if offload:
        return await asyncio.to_thread(call, *args, **kwargs)
    return call(*args, **kwargs)
