"""A request's cached audio spoken in its place among the synthesised segments: in the
segments' order, what comes before the next segment to synthesise at once, and the
synthesised audio brought back for the cache."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace

import numpy as np

from deployments.encoding.encoder import encode_work
from deployments.messages import (
    AudioChunk,
    CachedAudio,
    EncodeWork,
    OutputParams,
    Segment,
    SynthesisParams,
    SynthesisWork,
)
from deployments.timings import Alignment

RATE = 22050
SEGMENTS = tuple(Segment(i, f"s{i}.", 4 * i, 4 * i + 3) for i in range(4))


def chunk(index: int, value: float) -> AudioChunk:
    return AudioChunk(np.full(RATE // 10, value, np.float32), RATE, index)


def work(cached: dict[int, float], keep: bool = True) -> EncodeWork:
    audio = CachedAudio(frozenset(cached), tuple(chunk(i, v) for i, v in sorted(cached.items())))
    return EncodeWork(
        SynthesisWork(SEGMENTS, SynthesisParams("default", "hi")),
        OutputParams("pcm"),
        cached=audio,
        keep_audio=keep,
    )


def levels(data: bytes) -> list[float]:
    """Each 0.1 s of ``data`` (16-bit PCM) as its level, rounded."""
    samples = np.frombuffer(data, np.int16).astype(np.float32) / 32767
    parts = np.split(samples, samples.size // (RATE // 10))
    return [round(float(part.mean()), 2) for part in parts]


async def test_cached_and_synthesised_segments_come_in_order_with_their_text() -> None:
    job = work({0: 0.1, 2: 0.3})
    assert [s.index for s in job.to_synthesise.segments] == [1, 3]

    async def synthesised() -> AsyncIterator[AudioChunk]:
        for index in (1, 3):
            yield chunk(index, 0.2 if index == 1 else 0.4)

    out = [c async for c in encode_work(job, synthesised())]
    assert levels(b"".join(c.data for c in out)) == [0.1, 0.2, 0.3, 0.4]
    heard = [c for c in out if c.data]
    assert [c.end_char for c in heard] == [3, 7, 11, 15]  # billed as the text is heard
    # each synthesised chunk brought back on a chunk of its own, after the audio holding it
    assert [(bool(c.data), [s.segment for s in c.spoken]) for c in out] == [
        (True, []),
        (True, []),
        (False, [1]),
        (True, []),
        (True, []),
        (False, [3]),
    ]


async def test_audio_brought_back_is_a_chunk_a_message() -> None:
    """A buffered format holds all its audio to the end: what comes back then is still
    one synthesised chunk a message (a Serve stream's message holds 4 MiB)."""
    job = replace(work({}), output=OutputParams("wav"))

    async def synthesised() -> AsyncIterator[AudioChunk]:
        for index in range(4):
            yield chunk(index, 0.1)

    out = [c async for c in encode_work(job, synthesised())]
    back = [c.spoken for c in out if c.spoken]
    assert [[s.segment for s in spoken] for spoken in back] == [[0], [1], [2], [3]]


async def test_cached_audio_before_the_next_segment_to_synthesise_is_heard_at_once() -> None:
    job = work({0: 0.1, 1: 0.2})
    go = asyncio.Event()

    async def slow() -> AsyncIterator[AudioChunk]:
        await go.wait()  # the new sentence takes its time
        for index in (2, 3):
            yield chunk(index, 0.3)

    stream = encode_work(job, slow())
    first, second = await anext(stream), await anext(stream)
    assert (first.end_char, second.end_char) == (3, 7) and not go.is_set()
    go.set()
    rest = [c async for c in stream if c.data]
    assert [c.end_char for c in rest] == [11, 15]


async def test_work_without_keeping_its_audio_brings_none_back() -> None:
    async def synthesised() -> AsyncIterator[AudioChunk]:
        yield chunk(3, 0.4)

    out = [c async for c in encode_work(work({0: 0.1, 1: 0.2, 2: 0.3}, keep=False), synthesised())]
    assert all(not c.spoken for c in out) and len(out) == 4


async def test_audio_kept_is_asked_for_every_timing_the_listener_hears_those_asked() -> None:
    """Kept audio serves every later request, so its synthesis asks for every timing;
    the request that made it (no alignment asked) is framed without them."""
    job = work({})
    asked = job.to_synthesise.params
    assert (asked.with_alignment, asked.with_phonemes) == (True, True)
    assert not replace(job, keep_audio=False).to_synthesise.params.with_alignment
    aligned = Alignment(("s",), (0,), (100,))

    async def synthesised() -> AsyncIterator[AudioChunk]:
        for index in range(4):
            yield replace(chunk(index, 0.1), alignment=aligned)

    out = [c async for c in encode_work(job, synthesised())]
    assert all(c.alignment is None for c in out if c.data)
    assert all(s.alignment == aligned for c in out for s in c.spoken)
