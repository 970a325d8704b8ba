"""A job's segments asked one at a time of a real runner (eSpeak): the same audio as
one call, and synthesis never more than a segment ahead of the reader."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator

import pytest

from deployments.messages import AudioChunk, Segment, SynthesisJob, SynthesisParams
from deployments.synthesis.engine import EngineError
from deployments.synthesis.pulling import segment_by_segment
from deployments.synthesis.runner import SynthesisRunner

SENTENCES = ("नमस्ते दुनिया।", "आज मौसम अच्छा है।", "कल बारिश होगी।", "फिर मिलेंगे।", "धन्यवाद।")
PARAMS = SynthesisParams("hi-espeak-aditi", "hi")


def job_of(sentences: tuple[str, ...], params: SynthesisParams = PARAMS) -> SynthesisJob:
    segments, start = [], 0
    for i, text in enumerate(sentences):
        segments.append(Segment(i, text, start, start + len(text)))
        start += len(text) + 1
    return SynthesisJob(tuple(segments), params)


@pytest.fixture(scope="module")
def runner() -> SynthesisRunner:
    return SynthesisRunner({"voice_engines": ["espeak"], "warm_up": False})


class Recorded:
    """The runner as a remote Synthesiser: which segments were asked, which calls
    were closed before their end."""

    def __init__(self, runner: SynthesisRunner) -> None:
        self.runner = runner
        self.asked: list[int] = []
        self.finished: list[int] = []
        self.closed: list[int] = []

    async def speak(self, job: SynthesisJob) -> AsyncGenerator[AudioChunk, None]:
        (segment,) = job.segments  # one segment a call
        self.asked.append(segment.index)
        try:
            async for chunk in self.runner.synthesize(job):
                yield chunk
            self.finished.append(segment.index)
        finally:
            if segment.index not in self.finished:
                self.closed.append(segment.index)


async def test_the_audio_is_that_of_one_call(runner: SynthesisRunner) -> None:
    job = job_of(SENTENCES)
    whole = [chunk async for chunk in runner.synthesize(job)]
    pulled = [chunk async for chunk in segment_by_segment(Recorded(runner).speak, job)]
    assert [c.segment for c in pulled] == [c.segment for c in whole] == list(range(5))
    for mine, theirs in zip(pulled, whole, strict=True):  # eSpeak varies by a sample or two
        assert abs(mine.samples.size - theirs.samples.size) <= 0.01 * theirs.samples.size
        assert mine.words == theirs.words


async def test_synthesis_runs_one_segment_ahead_of_the_reader(runner: SynthesisRunner) -> None:
    """A reader that takes segment 0 and then reads nothing more: segment 1 is spoken
    ahead, nothing after it, however long the reader waits."""
    recorded = Recorded(runner)
    audio = segment_by_segment(recorded.speak, job_of(SENTENCES))
    first = await anext(audio)
    assert first.segment == 0
    await asyncio.sleep(0.5)  # eSpeak speaks a sentence in milliseconds
    assert recorded.asked == [0, 1] and recorded.finished == [0, 1]
    second = await anext(audio)
    assert second.segment == 1
    await asyncio.sleep(0.2)
    assert recorded.asked == [0, 1, 2]
    await audio.aclose()
    assert recorded.asked == [0, 1, 2] and not recorded.closed


async def test_closing_the_reader_cancels_the_call_in_flight(runner: SynthesisRunner) -> None:
    recorded = Recorded(runner)
    entered = asyncio.Event()

    async def slow(job: SynthesisJob) -> AsyncGenerator[AudioChunk, None]:
        if job.segments[0].index == 1:  # a segment that takes long to speak
            entered.set()
            await asyncio.sleep(60)
        async for chunk in recorded.speak(job):
            yield chunk

    audio = segment_by_segment(slow, job_of(SENTENCES))
    assert (await anext(audio)).segment == 0
    await asyncio.wait_for(entered.wait(), 5)
    await asyncio.wait_for(audio.aclose(), 5)
    assert recorded.asked == [0]  # segment 1 never reached the runner: cancelled waiting


async def test_a_segment_that_fails_ends_the_audio_with_its_error(
    runner: SynthesisRunner,
) -> None:
    recorded = Recorded(runner)
    job = job_of(SENTENCES, SynthesisParams("no-such-voice", "hi"))
    with pytest.raises(EngineError):
        async with contextlib.aclosing(segment_by_segment(recorded.speak, job)) as audio:
            async for _ in audio:
                pass
    assert recorded.asked == [0]


async def test_no_segments_no_calls(runner: SynthesisRunner) -> None:
    recorded = Recorded(runner)
    empty = SynthesisJob((), PARAMS)
    assert [c async for c in segment_by_segment(recorded.speak, empty)] == []
    assert recorded.asked == []
