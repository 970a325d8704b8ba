"""The Synthesiser's runner, in what order it speaks: a sentence's first clause apart
while no stream waits for its first audio, long-form chunks behind live segments, one
project's long segment not in front of another's first (eSpeak and Kokoro voices)."""

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
    SynthesisParams,
    SynthesisWork,
    joined,
)
from deployments.synthesis.fair_queue import BACKGROUND, FIRST, LATER
from deployments.synthesis.runner import SynthesisRunner
from tests.waiting import wait_until

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


def clause_work(voice: str = "hi-espeak-aditi") -> SynthesisWork:
    """The normaliser's cut of one sentence: its first clause, marked, then the rest."""
    segments = (
        Segment(0, CLAUSE, 0, len(CLAUSE), joins_next=True),
        Segment(1, REST, len(CLAUSE) + 1, len(SENTENCE)),
    )
    return SynthesisWork(segments, SynthesisParams(voice, "hi", with_alignment=True))


def test_a_clause_joins_its_sentence_as_one_segment() -> None:
    first, rest = clause_work().segments
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
        chunks = [chunk async for chunk in runner.synthesise(clause_work())]
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
    speak = engine.synthesise

    def traced(segment: Segment, *args: object, **kwargs: object) -> object:
        spoken.append(segment.text)
        return speak(segment, *args, **kwargs)

    engine.synthesise = traced
    gate = threading.Event()

    async def queued(calls: int) -> None:
        for _ in range(1_000):
            if scheduler.busy and len(scheduler._queue) == calls:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"not {calls} calls queued")

    def shown_busy() -> bool:  # what /ready shows of the engine
        return bool(next(e for e in runner.info().engines if e.name == "espeak").extra["busy"])

    assert not shown_busy()
    busy = asyncio.create_task(scheduler.run(gate.wait, FIRST))
    await queued(0)  # the engine's one worker is taken
    assert shown_busy()

    async def heard(text: str, background: bool) -> None:
        params = SynthesisParams("hi-espeak-aditi", "hi", background=background)
        work = SynthesisWork((Segment(0, text, 0, len(text)),), params)
        assert [chunk async for chunk in runner.synthesise(work)]

    # the chunk the shorter: in one lane, a tenant's smaller call goes first
    chunk = asyncio.create_task(heard("हाँ।", background=True))
    await queued(1)
    live = asyncio.create_task(heard("नमस्ते दुनिया।", background=False))
    await queued(2)
    gate.set()
    await asyncio.gather(busy, chunk, live)
    assert spoken == ["नमस्ते दुनिया।", "हाँ।"]
    # a worker counts its call done just after it hands the result back
    await asyncio.to_thread(wait_until, lambda: not shown_busy(), "the engine idle")


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
    chunks = [chunk async for chunk in kokoro_runner.synthesise(clause_work("default"))]
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
    work = clause_work("default")
    work = replace(work, params=replace(work.params, background=True))
    chunks = [chunk async for chunk in kokoro_runner.synthesise(work)]
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
    work = SynthesisWork(segments, SynthesisParams("default", "hi"))
    stats = next(e for e in kokoro_runner.info().engines if e.name == "kokoro").extra
    alone = stats["first_clauses_alone"]
    assert [chunk.segment async for chunk in kokoro_runner.synthesise(work)] == [0, 1]
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
        work = SynthesisWork((Segment(0, text, 0, len(text)),), params)
        chunks = [c async for c in runner.synthesise(work)]
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
