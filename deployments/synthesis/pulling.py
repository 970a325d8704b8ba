"""A job's segments asked of a remote Synthesiser one at a time, so that synthesis
runs at most one segment ahead of whoever reads the audio.

A Serve stream is drained by Serve's transport, not by its reader: between two
replicas its buffers hold tens of seconds of audio, and with user code on its own
thread (Serve's default without ``RAY_SERVE_THROUGHPUT_OPTIMIZED``) a replica's
generator runs to its end whether anybody reads it or not. So a remote reader asks
for each segment as its own call, the next one while the current one is read: the
reader's asking is the Synthesiser's lease. A reader that stops (an AudioEncoder
that died, a client that reads nothing) stops synthesis after the segment in
flight, and a request never holds more than one call on the Synthesiser.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any

from deployments.messages import AudioChunk, SynthesisJob

Speak = Callable[[SynthesisJob], AsyncIterator[AudioChunk]]


async def segment_by_segment(speak: Speak, job: SynthesisJob) -> AsyncGenerator[AudioChunk, None]:
    """The audio of ``job``, each segment from its own ``speak`` call: segment i+1 is
    asked for when segment i has arrived, and segment i+2 only once the reader has
    taken segment i. Closing the generator cancels the call in flight."""
    if not job.segments:
        return
    calls = (SynthesisJob((segment,), job.params) for segment in job.segments)
    pending: asyncio.Task[list[AudioChunk]] | None = asyncio.ensure_future(
        _collect(speak(next(calls)))
    )
    try:
        while pending is not None:
            chunks = await pending
            following = next(calls, None)
            pending = asyncio.ensure_future(_collect(speak(following))) if following else None
            for chunk in chunks:
                yield chunk
    finally:
        if pending is not None and not pending.done():
            pending.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pending


async def _collect(audio: AsyncIterator[AudioChunk]) -> list[AudioChunk]:
    """Every chunk of one segment's call (a long segment's audio comes in pieces;
    the reader waits for its first anyway), the call closed however it ends."""
    try:
        return [chunk async for chunk in audio]
    finally:
        close = getattr(audio, "aclose", None)
        if close is not None:
            await close()


async def serve_stream(response: Any) -> AsyncGenerator[Any, None]:
    """The items of a Serve streaming response, which is cancelled however the reading
    ends (done, failed, or the reader closed us): the replica stops speaking."""
    try:
        async for item in response:
            yield item
    finally:
        response.cancel()
