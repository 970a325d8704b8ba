"""The Synthesiser's runner with real eSpeak voices: health follows the engine."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import yaml

from deployments.messages import (
    PhonemeSpan,
    Prosody,
    Segment,
    SynthesisJob,
    SynthesisParams,
)
from deployments.synthesis.fair_queue import BACKGROUND, FIRST, LATER
from deployments.synthesis.runner import (
    BROKEN_AFTER,
    MAX_CHUNK_SECONDS,
    EngineBroken,
    SynthesisRunner,
    joined,
)

TEXT = "नमस्ते दुनिया।"
JOB = SynthesisJob((Segment(0, TEXT, 0, len(TEXT)),), SynthesisParams("hi-espeak-aditi", "hi"))


async def speak(runner: SynthesisRunner) -> int:
    return sum([chunk.samples.size async for chunk in runner.synthesize(JOB)])


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
        patched.setattr(engine, "synthesize", broken)
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
    job = SynthesisJob((Segment(0, text, 0, len(text)),), params)
    chunks = [chunk async for chunk in runner.synthesize(job)]
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

    def job(voice: str) -> SynthesisJob:
        segments = tuple(Segment(i, t, 0, len(t)) for i, t in enumerate(texts))
        return SynthesisJob(segments, SynthesisParams(voice, "hi", with_alignment=True))

    async def stream(voice: str) -> list[int]:
        chunks = [chunk async for chunk in runner.synthesize(job(voice))]
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
        chunks = runner.synthesize(SynthesisJob(segments, SynthesisParams(voice, "hi")))
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
    (said,) = [c async for c in runner.synthesize(SynthesisJob((plain,), params))]
    (slow,) = [c async for c in runner.synthesize(SynthesisJob((shaped,), params))]
    rate = said.sample_rate
    head, tail = rate // 2, rate
    assert not slow.samples[:head].any() and not slow.samples[-tail:].any()
    speech = slow.samples[head:-tail]
    assert speech.size > 1.5 * said.samples.size  # half the speed
    assert np.abs(speech).max() == pytest.approx(np.abs(said.samples).max() / 2, rel=0.1)
    assert slow.words[0].start_ms >= 500 and slow.alignment is not None
    assert slow.alignment.char_start_times_ms[0] >= 500


CLAUSE, REST = "नमस्ते,", "आज मौसम बहुत अच्छा है।"
SENTENCE = f"{CLAUSE} {REST}"


def recorded_urgencies(runner: SynthesisRunner, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The urgency of each call ``runner`` asks its Kokoro scheduler for, as asked."""
    scheduler = runner._schedulers["kokoro"]
    asked: list[int] = []
    run = scheduler.run

    def recorded(
        call: Callable[[], object], urgency: int, tenant: str = "", size: int = 0
    ) -> Awaitable[object]:
        asked.append(urgency)
        return run(call, urgency, tenant, size)

    monkeypatch.setattr(scheduler, "run", recorded)
    return asked


def clause_job(voice: str = "hi-espeak-aditi") -> SynthesisJob:
    """The normaliser's cut of one sentence: its first clause, marked, then the rest."""
    segments = (
        Segment(0, CLAUSE, 0, len(CLAUSE), joins_next=True),
        Segment(1, REST, len(CLAUSE) + 1, len(SENTENCE)),
    )
    return SynthesisJob(segments, SynthesisParams(voice, "hi", with_alignment=True))


def test_a_clause_joins_its_sentence_as_one_segment() -> None:
    first, rest = clause_job().segments
    spans = (PhonemeSpan(0, 2, "aːdʒ", "ipa"),)
    together = joined(first, replace(rest, phonemes=spans, pause_after_ms=300))
    assert together is not None
    assert (together.index, together.text) == (1, SENTENCE)
    assert (together.start, together.end, together.billed_through) == (
        0,
        len(SENTENCE),
        len(SENTENCE),
    )
    assert SENTENCE[together.phonemes[0].start : together.phonemes[0].end] == "आज"
    assert together.pause_after_ms == 300 and not together.joins_next
    # a break or a change of voice between them is kept: not joined
    assert joined(replace(first, pause_after_ms=200), rest) is None
    assert joined(first, replace(rest, prosody=Prosody(speed=1.5))) is None


async def test_a_first_clause_is_spoken_alone_only_while_no_stream_waits() -> None:
    """Idle: the clause alone, its audio first (segment 0), then the rest. Busy (a
    first segment queued behind a running call): the sentence in one call, under the
    rest's index, aligned over the whole sentence. /ready's stats count both."""
    runner = SynthesisRunner({"voice_engines": ["espeak"]})

    async def segments_heard() -> list[tuple[int, str]]:
        chunks = [chunk async for chunk in runner.synthesize(clause_job())]
        return [(c.segment, "".join(c.alignment.chars) if c.alignment else "") for c in chunks]

    assert await segments_heard() == [(0, CLAUSE), (1, REST)]
    scheduler = runner._schedulers["espeak"]
    gate = threading.Event()
    busy = [asyncio.create_task(scheduler.run(gate.wait, FIRST)) for _ in range(2)]
    await asyncio.sleep(0.05)  # one on the worker, one waiting for its first audio
    assert scheduler.first_waiting == 1
    heard = asyncio.create_task(segments_heard())
    await asyncio.sleep(0.05)
    gate.set()
    assert await heard == [(1, SENTENCE)]
    await asyncio.gather(*busy)
    stats = next(e for e in runner.info().engines if e.name == "espeak").extra
    assert (stats["first_clauses_alone"], stats["first_clauses_joined"]) == (1, 1)


async def test_background_work_waits_behind_a_stream_s_first_segment() -> None:
    """A long-form job's chunk (``background``) queued before a live stream's first
    segment is spoken after it: no listener waits for the chunk's first audio."""
    runner = SynthesisRunner({"voice_engines": ["espeak"]})
    scheduler = runner._schedulers["espeak"]
    engine = runner._synthesiser._engines["espeak"]
    spoken: list[str] = []
    speak = engine.synthesize

    def traced(segment: Segment, *args: object, **kwargs: object) -> object:
        spoken.append(segment.text)
        return speak(segment, *args, **kwargs)

    engine.synthesize = traced
    gate = threading.Event()

    async def queued(jobs: int) -> None:
        for _ in range(1_000):
            if scheduler.busy and len(scheduler._queue) == jobs:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"not {jobs} jobs queued")

    busy = asyncio.create_task(scheduler.run(gate.wait, FIRST))
    await queued(0)  # the engine's one worker is taken

    async def heard(text: str, background: bool) -> None:
        params = SynthesisParams("hi-espeak-aditi", "hi", background=background)
        job = SynthesisJob((Segment(0, text, 0, len(text)),), params)
        assert [chunk async for chunk in runner.synthesize(job)]

    # the chunk the shorter: in one lane, a tenant's smaller job goes first
    chunk = asyncio.create_task(heard("हाँ।", background=True))
    await queued(1)
    live = asyncio.create_task(heard("नमस्ते दुनिया।", background=False))
    await queued(2)
    gate.set()
    await asyncio.gather(busy, chunk, live)
    assert spoken == ["नमस्ते दुनिया।", "हाँ।"]


@pytest.fixture(scope="module")
def kokoro_runner(tmp_path_factory: pytest.TempPathFactory) -> SynthesisRunner:
    """The default voice (Kokoro) alone, on one-thread sessions."""
    default = {
        "id": "default",
        "name": "Alpha",
        "engine": "kokoro",
        "languages": ["hi"],
        "gender": "female",
        "sample_rate": 24000,
        "params": {"style": "hf_alpha"},
    }
    path = tmp_path_factory.mktemp("voices") / "voices.yaml"
    path.write_text(yaml.safe_dump({"voices": [default]}))
    config = {"voices_path": str(path), "engines": {"kokoro": {"threads": 1}}, "warm_up": False}
    return SynthesisRunner(config)


async def test_a_first_clause_read_with_its_sentence_is_heard_first_then_the_rest(
    kokoro_runner: SynthesisRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Kokoro reads the sentence once and renders it in two parts: the clause's
    audio under its own index, aligned over its own text, then the rest's, which
    waits behind other streams' first segments like any later segment."""
    asked = recorded_urgencies(kokoro_runner, monkeypatch)
    chunks = [chunk async for chunk in kokoro_runner.synthesize(clause_job("default"))]
    heard = [(c.segment, "".join(c.alignment.chars) if c.alignment else "") for c in chunks]
    assert heard == [(0, CLAUSE), (1, REST)]
    assert asked == [FIRST, LATER]
    stats = next(e for e in kokoro_runner.info().engines if e.name == "kokoro").extra
    assert (stats["first_clauses_parted"], stats["first_clauses_alone"]) == (1, 0)


async def test_a_long_form_chunk_is_background_work_from_its_first_segment(
    kokoro_runner: SynthesisRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A job's chunk (no listener waits): every segment asked as background work, its
    first clause not rendered apart for a sooner first audio, the audio all there."""
    asked = recorded_urgencies(kokoro_runner, monkeypatch)
    job = clause_job("default")
    job = replace(job, params=replace(job.params, background=True))
    chunks = [chunk async for chunk in kokoro_runner.synthesize(job)]
    assert {c.segment for c in chunks} == {0, 1} and asked
    assert set(asked) == {BACKGROUND}


async def test_a_clause_its_reading_does_not_pause_after_is_planned_as_before(
    kokoro_runner: SynthesisRunner,
) -> None:
    """No pause to cut in: the clause is spoken alone while there is room."""
    clause, rest = "पहला;", "दूसरा और तीसरा विकल्प भी है।"
    segments = (
        Segment(0, clause, 0, len(clause), joins_next=True),
        Segment(1, rest, len(clause) + 1, len(clause) + 1 + len(rest)),
    )
    job = SynthesisJob(segments, SynthesisParams("default", "hi"))
    stats = next(e for e in kokoro_runner.info().engines if e.name == "kokoro").extra
    alone = stats["first_clauses_alone"]
    assert [chunk.segment async for chunk in kokoro_runner.synthesize(job)] == [0, 1]
    stats = next(e for e in kokoro_runner.info().engines if e.name == "kokoro").extra
    assert stats["first_clauses_alone"] == alone + 1


async def test_a_long_segment_gives_the_engine_to_another_project_between_its_calls(
    tmp_path: Path,
) -> None:
    """One worker, a segment of many model calls (pieces of at most 16 tokens) of one
    project, then another project's short first segment: the short one is spoken after
    one of the long one's calls, not after all of them (its first audio waited 20 s
    beside another project's long texts), and the long one is whole and in order."""
    default = {
        "id": "default", "name": "Alpha", "engine": "kokoro", "languages": ["hi"],
        "gender": "female", "sample_rate": 24000, "params": {"style": "hf_alpha"},
    }  # fmt: skip
    path = tmp_path / "voices.yaml"
    path.write_text(yaml.safe_dump({"voices": [default]}))
    runner = SynthesisRunner(
        {
            "voices_path": str(path),
            "engines": {"kokoro": {"parallel_calls": 1, "threads": 1, "max_tokens": 16}},
            "warm_up": False,
        }
    )
    long = "आज सुबह से लगातार बारिश हो रही है"
    short = "नमस्ते।"
    ended: list[str] = []

    async def speak(text: str, tenant: str) -> tuple[np.ndarray, list[int]]:
        params = SynthesisParams("default", "hi", tenant=tenant)
        job = SynthesisJob((Segment(0, text, 0, len(text)),), params)
        chunks = [c async for c in runner.synthesize(job)]
        ended.append(tenant)
        return np.concatenate([c.samples for c in chunks]), [
            w.start for c in chunks for w in c.words
        ]

    alone = await speak(long, "a")
    ended.clear()
    first = asyncio.create_task(speak(long, "a"))
    await asyncio.sleep(0.3)  # its first call is running
    chunks = await asyncio.gather(first, speak(short, "b"))
    assert ended == ["b", "a"]  # b's segment between a's calls
    assert chunks[0][0].size == alone[0].size  # a's whole, as when alone
    assert chunks[0][1] == alone[1]
