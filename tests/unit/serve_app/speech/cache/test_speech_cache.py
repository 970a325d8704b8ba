"""The speech cache in front of a real pipeline (eSpeak NG, in process): a repeated
prompt is heard without synthesis, a request of cached and new sentences synthesises only
the new ones, in order, and nothing crosses projects."""

from __future__ import annotations

import contextlib
from dataclasses import replace

import pytest

from deployments.messages import (
    AudioChunk,
    EncodedChunk,
    EncodeWork,
    OutputParams,
    SynthesisParams,
    SynthesisWork,
)
from deployments.reading import ReadingOptions
from deployments.synthesis import SynthesisRunner, VoiceConfig
from serve_app.speech.cache import MemoryCache, SpeechCache, Status
from serve_app.speech.pipeline import LocalNormalisation, LocalSynthesis, Pipeline

VOICE = "hi-espeak-aditi"
PARAMS = SynthesisParams(VOICE, "hi", tenant="project-a")
WELCOME = "आपका स्वागत है।"
BALANCE = "आपका बैलेंस ₹500 है।"


class CountingSynthesis(LocalSynthesis):
    """The Synthesiser in this process, telling which segments it was given."""

    def __init__(self, runner: SynthesisRunner) -> None:
        super().__init__(runner)
        self.texts: list[str] = []

    def synthesise(self, work: SynthesisWork):  # type: ignore[no-untyped-def]
        self.texts += [segment.text for segment in work.segments]
        return super().synthesise(work)


@pytest.fixture(scope="module")
def runner() -> SynthesisRunner:
    return SynthesisRunner({"voice_engines": ["espeak"], "warm_up": False})


@pytest.fixture
def synthesis(runner: SynthesisRunner) -> CountingSynthesis:
    return CountingSynthesis(runner)


@pytest.fixture
def pipeline(synthesis: CountingSynthesis) -> Pipeline:
    return Pipeline(LocalNormalisation(), None, [synthesis], synthesis)


@pytest.fixture
def cache() -> SpeechCache:
    return SpeechCache(MemoryCache(64 << 20, ttl_s=3600), "service-v1")


def voice_of(runner: SynthesisRunner) -> VoiceConfig:
    return next(v for v in runner.info().voices if v.id == VOICE)


async def work_of(pipeline: Pipeline, text: str, params: SynthesisParams) -> EncodeWork:
    normalised = await pipeline.normalise(text, ReadingOptions(params.language, "balanced"))
    return EncodeWork(SynthesisWork(normalised.segments, params), OutputParams("pcm"))


async def speak(
    cache: SpeechCache, pipeline: Pipeline, text: str, params: SynthesisParams = PARAMS
) -> tuple[Status, list[EncodedChunk]]:
    work = await work_of(pipeline, text, params)
    voice = next(v for v in (await pipeline.synthesisers()).voices if v.id == params.voice)
    lookup = await cache.lookup(work.synthesis, voice)
    stream = cache.recorded(lookup, pipeline.encode(lookup.applied(work)))
    chunks = [chunk async for chunk in stream]
    return lookup.status, chunks


def audio(chunks: list[EncodedChunk]) -> bytes:
    return b"".join(chunk.data for chunk in chunks)


async def test_a_repeated_prompt_is_heard_from_the_cache_without_synthesis(
    cache: SpeechCache, pipeline: Pipeline, synthesis: CountingSynthesis
) -> None:
    text = f"नमस्ते, {WELCOME}"
    status, first = await speak(cache, pipeline, text)
    assert status == "miss" and synthesis.texts
    spoken = list(synthesis.texts)
    status, again = await speak(cache, pipeline, text)
    assert status == "hit"
    assert synthesis.texts == spoken  # the Synthesiser was not asked again
    assert audio(again) == audio(first)
    # billed alike: the same characters heard by the end
    assert again[-1].end_char == first[-1].end_char == len(text)
    assert all(not chunk.spoken for chunk in again + first)


async def test_cached_and_new_sentences_are_spoken_in_order_only_the_new_ones_synthesised(
    cache: SpeechCache, pipeline: Pipeline, synthesis: CountingSynthesis
) -> None:
    _, welcome = await speak(cache, pipeline, WELCOME)
    synthesis.texts.clear()
    status, both = await speak(cache, pipeline, f"{WELCOME} {BALANCE}")
    assert status == "partial"
    assert synthesis.texts == ["आपका बैलेंस पाँच सौ रुपये है।"]
    assert audio(both).startswith(audio(welcome))  # the cached sentence first, as it was
    ends = [chunk.end_char for chunk in both]
    assert ends == sorted(ends) and ends[-1] == len(f"{WELCOME} {BALANCE}")
    synthesis.texts.clear()
    status, _ = await speak(cache, pipeline, f"{BALANCE} {WELCOME}")
    assert status == "hit" and synthesis.texts == []  # each sentence kept on its own


async def test_raw_audio_of_a_mix_is_the_cached_sentence_then_the_new_one_synthesised(
    cache: SpeechCache, pipeline: Pipeline, synthesis: CountingSynthesis
) -> None:
    """The audio a text stream encodes itself (a WebSocket's pieces): the same mix."""

    async def heard(text: str) -> tuple[Status, list[AudioChunk]]:
        work = (await work_of(pipeline, text, PARAMS)).synthesis
        voice = next(v for v in (await pipeline.synthesisers()).voices if v.id == VOICE)
        lookup = await cache.lookup(work, voice)
        stream = cache.kept(lookup, pipeline.synthesise(lookup.spoken(work), lookup.cached))
        return lookup.status, [chunk async for chunk in stream]

    _, welcome = await heard(WELCOME)
    synthesis.texts.clear()
    status, both = await heard(f"{WELCOME} {BALANCE}")
    assert status == "partial" and synthesis.texts == ["आपका बैलेंस पाँच सौ रुपये है।"]
    assert [c.segment for c in both] == sorted(c.segment for c in both)
    first = [c for c in both if c.segment == both[0].segment]
    assert [c.samples.tobytes() for c in first] == [c.samples.tobytes() for c in welcome]
    status, _ = await heard(BALANCE)
    assert status == "hit"  # the new sentence was kept


async def test_no_audio_crosses_projects(cache: SpeechCache, pipeline: Pipeline) -> None:
    await speak(cache, pipeline, WELCOME)
    status, _ = await speak(cache, pipeline, WELCOME, replace(PARAMS, tenant="project-b"))
    assert status == "miss"
    status, _ = await speak(cache, pipeline, WELCOME, replace(PARAMS, speed=1.2))
    assert status == "miss"


async def test_timings_come_as_asked_their_words_in_each_request_s_input(
    cache: SpeechCache, pipeline: Pipeline
) -> None:
    timed = replace(PARAMS, with_phonemes=True)
    status, plain = await speak(cache, pipeline, "कुल ₹500 है।")
    assert status == "miss" and all(chunk.timings is None for chunk in plain)
    status, chunks = await speak(cache, pipeline, "कुल ₹500 है।", timed)
    assert status == "hit"  # kept with every timing though its maker asked for none
    assert any(chunk.timings is not None for chunk in chunks)
    text = "नमस्ते। कुल पाँच सौ रुपये है।"  # the second sentence reads the same
    status, chunks = await speak(cache, pipeline, text, timed)
    assert status == "partial"
    words = [
        text[p.start : p.end]
        for chunk in chunks
        if chunk.timings is not None
        for p in chunk.timings.phonemes
        if p.start >= 0
    ]
    assert {"पाँच", "सौ", "रुपये"} <= set(words) and "₹500" not in words
    assert set(words) <= set(text.split())
    status, plain = await speak(cache, pipeline, text)
    assert status == "hit" and all(chunk.timings is None for chunk in plain)


async def test_a_stream_closed_midway_keeps_only_the_sentences_it_finished(
    cache: SpeechCache, pipeline: Pipeline, synthesis: CountingSynthesis
) -> None:
    text = f"{WELCOME} {BALANCE} धन्यवाद।"
    work = await work_of(pipeline, text, PARAMS)
    voice = next(v for v in (await pipeline.synthesisers()).voices if v.id == VOICE)
    lookup = await cache.lookup(work.synthesis, voice)
    stream = cache.recorded(lookup, pipeline.encode(lookup.applied(work)))
    async with contextlib.aclosing(stream):
        await anext(stream)  # the first sentence's audio (its samples come back after it)
        await anext(stream)  # the second's begins
    assert cache.memory.stats.entries == 1  # the first sentence, heard whole; not the rest
    synthesis.texts.clear()
    status, chunks = await speak(cache, pipeline, text)
    assert status == "partial" and len(synthesis.texts) == 2
    fresh = SpeechCache(MemoryCache(64 << 20, ttl_s=3600), "service-v1")
    _, uncached = await speak(fresh, pipeline, text)
    # nothing cut short was kept (eSpeak's own length varies by a few samples a call)
    assert len(audio(chunks)) == pytest.approx(len(audio(uncached)), rel=0.01)
