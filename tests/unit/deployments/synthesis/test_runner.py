"""The Synthesiser's runner with real eSpeak voices: health follows the engine."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pytest

from deployments.messages import (
    Prosody,
    Segment,
    SynthesisParams,
    SynthesisWork,
)
from deployments.synthesis.runner import (
    BROKEN_AFTER,
    MAX_CHUNK_SECONDS,
    EngineBroken,
    SynthesisRunner,
)

TEXT = "नमस्ते दुनिया।"
WORK = SynthesisWork((Segment(0, TEXT, 0, len(TEXT)),), SynthesisParams("hi-espeak-aditi", "hi"))


async def speak(runner: SynthesisRunner) -> int:
    return sum([chunk.samples.size async for chunk in runner.synthesise(WORK)])


async def test_an_engine_that_keeps_failing_fails_the_health_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runner = SynthesisRunner({"voice_engines": ["espeak"]})
    assert await speak(runner) > 0
    runner.check_health()
    engine = runner._synthesiser._engines["espeak"]

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the device is gone")

    with monkeypatch.context() as patched:
        patched.setattr(engine, "synthesise", broken)
        for failed in range(1, BROKEN_AFTER + 1):
            with pytest.raises(RuntimeError):
                await speak(runner)
            if failed < BROKEN_AFTER:
                runner.check_health()  # a failure or two: a bad request, not a broken engine
        with pytest.raises(EngineBroken, match="the device is gone"):
            runner.check_health()
    assert await speak(runner) > 0  # it works again: healthy again
    runner.check_health()


async def test_a_segment_longer_than_a_message_leaves_in_pieces() -> None:
    """A long sentence at half speed lasts longer than one Serve message may hold
    (4 MiB: ~43 s of float32 at 24 kHz): it leaves in pieces, in order, whole."""
    runner = SynthesisRunner({"voice_engines": ["espeak"]})
    text = " ".join(["नमस्ते दुनिया आज मौसम बहुत अच्छा है"] * 12)
    params = SynthesisParams("hi-espeak-aditi", "hi", speed=0.5)
    work = SynthesisWork((Segment(0, text, 0, len(text)),), params)
    chunks = [chunk async for chunk in runner.synthesise(work)]
    longest = MAX_CHUNK_SECONDS * chunks[0].sample_rate
    assert len(chunks) >= 2 and all(c.samples.size <= longest for c in chunks)
    assert {c.segment for c in chunks} == {0}
    assert chunks[0].words and not any(c.words for c in chunks[1:])
    whole = sum(c.samples.size for c in chunks) / chunks[0].sample_rate
    assert whole > MAX_CHUNK_SECONDS
    # each piece says how much of the segment is heard by its end: what bills its text
    heard = np.cumsum([c.samples.size for c in chunks]) / sum(c.samples.size for c in chunks)
    assert [c.through for c in chunks] == pytest.approx(list(heard))
    assert chunks[-1].through == 1.0


def test_every_engine_speaks_once_before_the_runner_is_ready() -> None:
    """The first request is not the engine's first call (which is slower)."""
    runner = SynthesisRunner({"voice_engines": ["espeak", "piper"]})
    assert set(runner.warmed_up) == {"espeak", "piper"}
    assert all(seconds > 0 for seconds in runner.warmed_up.values())
    assert SynthesisRunner({"voice_engines": ["espeak"], "warm_up": False}).warmed_up == {}


async def test_concurrent_streams_share_forward_passes_in_order() -> None:
    """Kokoro on torch batches: three streams of two segments each take fewer forward
    passes than segments, each stream's audio in its own order, timed and aligned."""
    pytest.importorskip("torch", reason="the kokoro-torch extra is not installed")

    runner = SynthesisRunner(
        {
            "voice_engines": ["kokoro"],
            "engines": {"kokoro": {"backend": "torch"}},
            "warm_up": False,
        }
    )
    texts = ("नमस्ते।", "आज मौसम अच्छा है।")

    def work(voice: str) -> SynthesisWork:
        segments = tuple(Segment(i, t, 0, len(t)) for i, t in enumerate(texts))
        return SynthesisWork(segments, SynthesisParams(voice, "hi", with_alignment=True))

    async def stream(voice: str) -> list[int]:
        chunks = [chunk async for chunk in runner.synthesise(work(voice))]
        assert all(c.alignment is not None and c.samples.size for c in chunks)
        return [c.segment for c in chunks]

    engine = next(e for e in runner.info().engines if e.name == "kokoro")
    calls = engine.extra["model_calls"]
    voices = ("default", "hi-female-beta", "hi-male-omega")
    assert await asyncio.gather(*(stream(v) for v in voices)) == [[0, 1]] * 3
    engine = next(e for e in runner.info().engines if e.name == "kokoro")
    assert engine.extra["model_calls"] - calls < 2 * len(voices)


async def test_batches_are_launched_on_the_engine_thread_and_collected_beside_it() -> None:
    """Kokoro on torch launches a pass and collects it apart: the launch on the engine's
    thread, the wait for its audio and the trimming on a collector's, so the engine's
    thread is free for the next batch. Each stream keeps its order; a stream whose
    listener leaves while its batch is in flight ends without harm to the others."""
    pytest.importorskip("torch", reason="the kokoro-torch extra is not installed")
    runner = SynthesisRunner(
        {
            "voice_engines": ["kokoro"],
            "engines": {"kokoro": {"backend": "torch"}},
            "warm_up": False,
            "first_batch_size": 2,
        }
    )
    engine = runner._synthesiser._engines["kokoro"]
    threads: list[tuple[str, str]] = []
    launch_batch = engine.launch_batch

    def traced(items: list) -> Callable[[], list]:
        threads.append(("launch", threading.current_thread().name))
        collect = launch_batch(items)

        def collected() -> list:
            threads.append(("collect", threading.current_thread().name))
            return collect()

        return collected

    engine.launch_batch = traced
    texts = ("नमस्ते।", "धन्यवाद।")
    segments = tuple(Segment(i, t, 0, len(t)) for i, t in enumerate(texts))

    async def stream(voice: str, leave: bool) -> list[int]:
        chunks = runner.synthesise(SynthesisWork(segments, SynthesisParams(voice, "hi")))
        heard = []
        async for chunk in chunks:
            assert chunk.samples.size
            heard.append(chunk.segment)
            if leave:
                await chunks.aclose()  # its next segment's batch may be in flight
                break
        return heard

    voices = ("default", "hi-female-beta", "hi-male-omega")
    heard = await asyncio.gather(*(stream(v, leave=v == "default") for v in voices))
    assert heard == [[0], [0, 1], [0, 1]]
    assert {name for step, name in threads if step == "launch"} == {"synth-0"}
    assert {name.split("-")[0] for step, name in threads if step == "collect"} == {"collect"}
    # two first segments a batch: the three streams' first segments took two passes
    assert sum(1 for step, _ in threads if step == "launch") >= 3
    runner.check_health()


async def test_a_segment_s_pauses_and_prosody_are_heard() -> None:
    """SSML's breaks are silence at the voice's rate around the segment's speech, its
    prosody the engine's speed and a gain; the word timings move past the pause."""
    runner = SynthesisRunner({"voice_engines": ["espeak"]})
    plain = Segment(0, TEXT, 0, len(TEXT))
    shaped = replace(
        plain, pause_before_ms=500, pause_after_ms=1000, prosody=Prosody(volume=0.5, speed=0.5)
    )
    params = SynthesisParams("hi-espeak-aditi", "hi", with_alignment=True)
    (said,) = [c async for c in runner.synthesise(SynthesisWork((plain,), params))]
    (slow,) = [c async for c in runner.synthesise(SynthesisWork((shaped,), params))]
    rate = said.sample_rate
    head, tail = rate // 2, rate
    assert not slow.samples[:head].any() and not slow.samples[-tail:].any()
    speech = slow.samples[head:-tail]
    assert speech.size > 1.5 * said.samples.size  # half the speed
    assert np.abs(speech).max() == pytest.approx(np.abs(said.samples).max() / 2, rel=0.1)
    assert slow.words[0].start_ms >= 500 and slow.alignment is not None
    assert slow.alignment.char_start_times_ms[0] >= 500
