"""The pipeline routes each voice to where its engine runs, with real engines in process;
it bounds the wait for a Synthesiser replica that starts from zero, and does not wake
one to list what it has."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator
from dataclasses import replace

import pytest

from deployments.messages import (
    AudioChunk,
    EncodeWork,
    NormalisedText,
    OutputParams,
    SynthesisParams,
    SynthesisWork,
)
from deployments.reading import ReadingOptions
from deployments.synthesis.runner import SynthesisRunner
from deployments.synthesis.synthesiser import SynthesiserInfo
from serve_app.http.errors import Overloaded
from serve_app.speech.pipeline import (
    FIRST_AUDIO_RETRY_S,
    LocalEncoding,
    LocalNormalisation,
    LocalSynthesis,
    Pipeline,
)
from tests.waiting import HANG_S


async def test_voices_of_ingress_engines_are_spoken_here_the_rest_there() -> None:
    here = LocalSynthesis(SynthesisRunner({"voice_engines": ["espeak"]}))
    there = LocalSynthesis(SynthesisRunner({"voice_engines": ["kokoro"]}))
    order = ["default", "hi-espeak-aditi"]
    pipeline = Pipeline(LocalNormalisation(), LocalEncoding(there), [here, there], here, order)
    loaded = await pipeline.synthesisers()
    assert [voice.id for voice in loaded.voices][:2] == order  # the registry's order
    engines = {voice.id: voice.engine for voice in loaded.voices}
    assert engines["default"] == "kokoro" and engines["hi-espeak-aditi"] == "espeak"
    assert {info.name for info in loaded.engines} == {"espeak", "kokoro"}

    text = await pipeline.normalise("नमस्ते, आप कैसे हैं?", ReadingOptions("hi", "balanced"))
    rates = {}
    for voice in ("default", "hi-espeak-aditi"):
        work = EncodeWork(
            SynthesisWork(text.segments, SynthesisParams(voice, "hi")), OutputParams("pcm")
        )
        chunks = [chunk async for chunk in pipeline.encode(work)]
        assert chunks and sum(c.audio_samples for c in chunks) > 0
        rates[voice] = chunks[0].sample_rate
    assert rates == {"default": 24000, "hi-espeak-aditi": 22050}


class StartingReplica(LocalSynthesis):
    """A Synthesiser deployment's replica as it starts from zero: its first audio only
    after ``start_s``; counts how often it is asked what it has loaded."""

    def __init__(self, runner: SynthesisRunner, start_s: float) -> None:
        super().__init__(runner)
        self.start_s = start_s
        self.asked = 0
        self.closed = asyncio.Event()

    async def info(self) -> SynthesiserInfo:
        self.asked += 1
        return await super().info()

    async def synthesise(self, work: SynthesisWork) -> AsyncGenerator[AudioChunk, None]:
        try:
            await asyncio.sleep(self.start_s)
            async for chunk in super().synthesise(work):
                yield chunk
        finally:
            self.closed.set()


@pytest.fixture(scope="module")
def kokoro() -> SynthesisRunner:
    return SynthesisRunner({"voice_engines": ["kokoro"]})


def _work(text: NormalisedText) -> EncodeWork:
    return EncodeWork(
        SynthesisWork(text.segments, SynthesisParams("default", "hi")), OutputParams("pcm")
    )


def starting(
    kokoro: SynthesisRunner, start_s: float, wait_s: float
) -> tuple[StartingReplica, Pipeline]:
    """A pipeline whose Synthesiser deployment takes ``start_s`` to start, bounded by ``wait_s``."""
    replica = StartingReplica(kokoro, start_s)
    encoding = LocalEncoding(replica)
    return replica, Pipeline(LocalNormalisation(), encoding, [replica], first_audio_wait_s=wait_s)


async def test_a_request_waits_for_a_starting_replica_within_its_bound(
    kokoro: SynthesisRunner,
) -> None:
    """The replica takes a second to start; the bound (a hang's, not the host's speed:
    Kokoro's first audio on a starved host took over 5 s) lets the request wait."""
    _, pipeline = starting(kokoro, start_s=1.0, wait_s=HANG_S)
    text = await pipeline.normalise("नमस्ते।", ReadingOptions("hi", "balanced"))
    started = time.monotonic()
    chunks = [chunk async for chunk in pipeline.encode(_work(text))]
    assert chunks and sum(c.audio_samples for c in chunks) > 0
    assert time.monotonic() - started >= 1.0  # it waited for the start


async def test_past_its_bound_a_request_is_told_to_retry_and_stops_waiting(
    kokoro: SynthesisRunner,
) -> None:
    replica, pipeline = starting(kokoro, start_s=30, wait_s=0.2)
    text = await pipeline.normalise("नमस्ते।", ReadingOptions("hi", "balanced"))
    started = time.monotonic()
    with pytest.raises(Overloaded) as raised:
        async for _ in pipeline.encode(_work(text)):
            pass
    assert time.monotonic() - started < replica.start_s  # told before the replica started
    assert raised.value.code == "overloaded"
    assert raised.value.headers["Retry-After"] == str(FIRST_AUDIO_RETRY_S)
    await asyncio.wait_for(replica.closed.wait(), HANG_S)  # the remote call was cancelled
    # the raw stream (a WebSocket context's) has the same bound
    with pytest.raises(Overloaded):
        async for _ in pipeline.synthesise(_work(text).synthesis):
            pass


async def test_work_no_listener_waits_for_waits_past_the_bound(kokoro: SynthesisRunner) -> None:
    """A long-form job's chunk (background work) waits behind every live stream by
    design: a busy hour's wait for its first audio is not an overload that fails it."""
    _, pipeline = starting(kokoro, start_s=1.0, wait_s=0.2)
    text = await pipeline.normalise("नमस्ते।", ReadingOptions("hi", "balanced"))
    work = _work(text)
    work = replace(
        work,
        synthesis=replace(work.synthesis, params=replace(work.synthesis.params, background=True)),
    )
    chunks = [chunk async for chunk in pipeline.encode(work)]
    assert chunks and sum(c.audio_samples for c in chunks) > 0
    raw = [chunk async for chunk in pipeline.synthesise(work.synthesis)]
    assert raw and sum(c.samples.size for c in raw) > 0


async def test_a_deployment_scaled_to_zero_is_not_woken_to_say_what_it_has(
    kokoro: SynthesisRunner,
) -> None:
    here = LocalSynthesis(SynthesisRunner({"voice_engines": ["espeak"]}))
    there = StartingReplica(kokoro, start_s=0)
    pipeline = Pipeline(LocalNormalisation(), LocalEncoding(there), [here, there], here)
    running = await pipeline.synthesisers()
    assert there.asked == 1 and running.scaled_to_zero == ()
    asleep = await pipeline.synthesisers(remote_running=False)
    assert there.asked == 1  # its last answer stands
    assert asleep.scaled_to_zero == ("kokoro",)
    assert {v.id for v in asleep.voices} == {v.id for v in running.voices}
    await pipeline.synthesisers(remote_running=True)
    assert there.asked == 2


async def test_a_deployment_that_never_answered_is_asked_even_at_zero(
    kokoro: SynthesisRunner,
) -> None:
    there = StartingReplica(kokoro, start_s=0)
    pipeline = Pipeline(LocalNormalisation(), LocalEncoding(there), [there])
    loaded = await pipeline.synthesisers(remote_running=False)
    assert there.asked == 1 and loaded.scaled_to_zero == ()
