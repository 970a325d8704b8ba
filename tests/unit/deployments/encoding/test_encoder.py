import asyncio
from collections.abc import AsyncIterator

import numpy as np
import pytest

from deployments.encoding.audio_path import AudioPath
from deployments.encoding.encoder import encode_stream
from deployments.messages import (
    AudioChunk,
    EncodeWork,
    OutputParams,
    Segment,
    SynthesisParams,
    SynthesisWork,
)
from deployments.timings import Alignment
from tests.conftest import decode

RATE = 22050
SEGMENTS = (Segment(0, "a,", 0, 2), Segment(1, "b.", 3, 5), Segment(2, "c!", 6, 8))


def work(fmt: str, sample_rate: int | None = None, volume: float = 1.0) -> EncodeWork:
    return EncodeWork(
        SynthesisWork(SEGMENTS, SynthesisParams("default", "hi")),
        OutputParams(fmt, sample_rate, volume),
    )


async def chunks() -> AsyncIterator[AudioChunk]:
    for segment in SEGMENTS:
        yield AudioChunk(np.full(RATE // 2, 0.25, dtype=np.float32), RATE, segment.index)


def run(work: EncodeWork) -> list:
    async def collect() -> list:
        return [c async for c in encode_stream(chunks(), work)]

    return asyncio.run(collect())


@pytest.mark.parametrize("rate", [None, 8000, 48000])
def test_pcm_chunk_per_segment_with_sample_and_text_accounting(rate: int | None) -> None:
    out = run(work("pcm", rate))
    out_rate = rate or RATE
    assert [c.end_char for c in out[:3]] == [2, 5, 8]
    total = sum(c.audio_samples for c in out)
    assert total == sum(len(c.data) for c in out) // 2
    assert abs(total - 1.5 * out_rate) <= 2
    assert all(c.sample_rate == out_rate for c in out)


def test_wav_arrives_as_one_file_and_mp3_as_one_stream() -> None:
    (wav,) = run(work("wav"))
    samples, rate = decode(wav.data)
    assert (rate, samples.size, wav.audio_samples, wav.end_char) == (
        RATE,
        int(1.5 * RATE),
        int(1.5 * RATE),
        8,
    )
    mp3 = run(work("mp3"))
    samples, rate = decode(b"".join(c.data for c in mp3))
    assert abs(samples.size / rate - 1.5) < 0.1
    assert sum(c.audio_samples for c in mp3) == int(1.5 * RATE)


def test_volume_scales_samples() -> None:
    path = AudioPath(OutputParams("pcm", None, volume=2.0), RATE)
    data, n = path.encode(np.full(10, 0.25, dtype=np.float32))
    assert n == 10
    assert np.frombuffer(data, "<i2")[0] == round(0.5 * 32767)


@pytest.mark.parametrize("fmt, rate", [("pcm", 16000), ("mp3", None)])
def test_alignment_keeps_the_input_clock_through_a_resampler_or_frames(
    fmt: str, rate: int | None
) -> None:
    """A resampler or an MP3 frame holds back the end of a segment: the next segment's
    characters still start where its audio does, half a second in."""

    async def aligned() -> AsyncIterator[AudioChunk]:
        async for chunk in chunks():
            times = Alignment(("x",), (0,), (100,))
            yield AudioChunk(chunk.samples, chunk.sample_rate, chunk.segment, (), times)

    async def collect() -> list:
        return [c async for c in encode_stream(aligned(), work(fmt, rate))]

    out = asyncio.run(collect())
    clock, starts = 0, []
    for chunk in out:
        if chunk.alignment is not None:
            starts += [clock + t for t in chunk.alignment.char_start_times_ms]
        clock += chunk.audio_samples * 1000 // chunk.sample_rate
    assert len(starts) == 3, starts
    assert all(abs(s - e) <= 1 for s, e in zip(starts, [0, 500, 1000], strict=True)), starts


@pytest.mark.parametrize("fmt", ["mp3", "wav", "pcm", "opus", "flac", "ulaw"])
def test_a_stream_of_no_samples_is_no_audio_at_all(fmt: str) -> None:
    """An input whose every sound is none the voice has (an IPA string of emoji) gives
    chunks of no samples: no bytes come out, not even a header, and MP3's encoder is
    not asked to flush a stream it never began (LAME refuses: it was a 500)."""

    async def silent() -> AsyncIterator[AudioChunk]:
        for segment in SEGMENTS:
            yield AudioChunk(np.zeros(0, dtype=np.float32), RATE, segment.index)

    async def collect() -> list:
        return [c async for c in encode_stream(silent(), work(fmt))]

    assert asyncio.run(collect()) == []


def test_a_piece_of_a_long_segment_bills_its_share_of_the_text() -> None:
    """A segment's audio in four pieces (a long sentence, cut to fit a message): each
    encoded piece carries the characters its share of the audio speaks, so a client
    that hangs up after the first is billed a quarter (it was billed all of it)."""
    long = (Segment(0, "x" * 400, 0, 400),)
    pieces = [
        AudioChunk(np.full(RATE, 0.25, dtype=np.float32), RATE, 0, through=(i + 1) / 4)
        for i in range(4)
    ]

    async def chunks() -> AsyncIterator[AudioChunk]:
        for piece in pieces:
            yield piece

    async def collect() -> list:
        encode = EncodeWork(
            SynthesisWork(long, SynthesisParams("default", "hi")), OutputParams("pcm")
        )
        return [c async for c in encode_stream(chunks(), encode)]

    assert [c.end_char for c in asyncio.run(collect())] == [100, 200, 300, 400]
