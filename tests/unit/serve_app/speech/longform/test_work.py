"""A long-form job's chunks spoken by the service in process: each claimed, spoken with
its surrounding text, its audio stored whole, charged once; a cancelled job's chunk is not."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from deployments.messages import NormalisedText
from deployments.normaliser.normaliser import TextNormaliser
from deployments.priority import BACKGROUND_NICENESS, niceness
from deployments.reading import ReadingOptions
from serve_app.accounts.longform.jobs import NewChunk
from serve_app.ingress.state import IngressState
from serve_app.speech.audio_store import FolderStore
from serve_app.speech.checked import Voicing
from serve_app.speech.longform import work as longform_work
from serve_app.speech.longform.audio import (
    JOB_FILES,
    JobSettings,
    chunk_key,
    job_audio,
)
from serve_app.speech.longform.chunks import chapters_of, chunks_of
from serve_app.speech.longform.work import MAX_ATTEMPTS, ChunkSpeaker, JobWorker
from serve_app.speech.vocabulary import VoiceOptions
from tests.conftest import decode
from tests.unit.serve_app.conftest import ESPEAK, _synthesiser, make_state
from tests.waiting import HANG_S


def settings(**options: str) -> str:
    """A job's settings: ``options`` as the request set them, its audio 22.05 kHz WAV."""
    return JobSettings(
        options=json.dumps(options), format="wav", sample_rate=22050
    ).model_dump_json()


SETTINGS = settings(voice="hi-espeak-aditi", response_format="wav")
TEXT = "पहला वाक्य यहाँ है।\n\nदूसरा अनुच्छेद भी छोटा है। उसमें 2 वाक्य हैं।"


async def test_each_chunk_is_spoken_stored_and_charged_once(tmp_path: Path) -> None:
    state = make_state(tmp_path)
    store = state.store
    project = store.create_project("books", 10_000_000)
    price = state.config.price_per_character_deci_micros
    planned = chunks_of(chapters_of(TEXT, "text"), chunk_chars=30)
    assert len(planned) == 3
    new = [NewChunk(c.chapter, c.text, c.before, c.after, price * len(c.text) * 2) for c in planned]
    job = store.create_job(project, SETTINGS, json.dumps([""]), new, max_running=1)
    audio = FolderStore(tmp_path / "jobs")
    speaker = ChunkSpeaker(state.speech, store, state.meter, audio)
    while (claimed := store.claim_chunk(lease_s=60, owner_lease_s=30)) is not None:
        assert await speaker.speak(claimed)
    sizes = [audio.size(chunk_key(job.id, i)) or 0 for i in range(3)]
    assert all(size > 22050 for size in sizes)  # over half a second of 16-bit PCM each
    # the job's format made from its chunks, one stream: a WAV of every sample, an MP3
    # of the same length (give or take the encoder's padding)
    for fmt in ("wav", "mp3"):
        made = JobSettings(options="{}", format=fmt, sample_rate=22050, bitrate_kbps=64)
        whole = b"".join(job_audio(audio, job.id, range(3), made))
        samples, rate = decode(whole)
        slack = 0 if fmt == "wav" else 2_400
        assert rate == 22050 and abs(samples.size - sum(sizes) // 2) <= slack
    done = store.job(job.id, project)
    assert (done.state, done.chunks_done, done.held) == ("done", 3, 0)
    assert done.characters_done == done.characters == sum(len(c.text) for c in planned)
    assert done.cost == price * done.characters_done and done.audio_ms > 3_000
    assert store.ledger_sum(project) == store.usage(project).balance == 10_000_000 - done.cost


async def test_a_job_s_voice_is_chosen_once_for_all_its_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A custom voice read, a reference analysed, dictionaries found: once a job (per
    speaker), not once a chunk."""
    state = make_state(tmp_path)
    store = state.store
    project = store.create_project("books", 10_000_000)
    planned = chunks_of(chapters_of(TEXT, "text"), chunk_chars=30)
    new = [NewChunk(c.chapter, c.text, c.before, c.after, 10**6) for c in planned]
    jobs = [store.create_job(project, SETTINGS, json.dumps([""]), new, 2).id for _ in range(2)]
    chosen: list[str | None] = []
    choose = state.speech.choose

    async def counted(
        options: VoiceOptions, stream: bool, project_id: str | None = None, **rest: Any
    ) -> Voicing:
        chosen.append(project_id)
        return await choose(options, stream, project_id, **rest)

    monkeypatch.setattr(state.speech, "choose", counted)
    speaker = ChunkSpeaker(state.speech, store, state.meter, FolderStore(tmp_path / "jobs"))
    spoken = 0
    while (claimed := store.claim_chunk(lease_s=60, owner_lease_s=30)) is not None:
        assert await speaker.speak(claimed)
        spoken += 1
    assert spoken == 2 * len(planned) == 6
    assert chosen == [project, project]  # once for each job
    assert all(store.job(job_id, project).state == "done" for job_id in jobs)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a nice value per thread")
async def test_a_job_s_text_is_read_below_live_requests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chunk's text and the text around it are read as background work, on the
    normaliser's thread below the process's priority; a live request's are not."""
    state = make_state(tmp_path)
    store = state.store
    project = store.create_project("books", 10_000_000)
    planned = chunks_of(chapters_of(TEXT, "text"), chunk_chars=30)
    new = [NewChunk(c.chapter, c.text, c.before, c.after, 10**6) for c in planned]
    store.create_job(project, SETTINGS, json.dumps([""]), new, 2)
    read: list[tuple[bool, int]] = []
    normalise = TextNormaliser.normalise

    def watched(self: TextNormaliser, text: str, options: ReadingOptions) -> NormalisedText:
        read.append((options.background, niceness()))
        return normalise(self, text, options)

    monkeypatch.setattr(TextNormaliser, "normalise", watched)
    speaker = ChunkSpeaker(state.speech, store, state.meter, FolderStore(tmp_path / "jobs"))
    claimed = store.claim_chunk(lease_s=60, owner_lease_s=30)
    assert claimed is not None and await speaker.speak(claimed)
    lowered = min(niceness() + BACKGROUND_NICENESS, 19)
    assert len(read) >= 2 and set(read) == {(True, lowered)}  # the chunk and the text around it
    read.clear()
    live = await state.speech.choose(VoiceOptions(voice=ESPEAK), False, project)
    await state.speech.normalise(TEXT, live)
    assert read == [(False, niceness())]


async def test_a_chunk_of_a_cancelled_job_is_not_charged(tmp_path: Path) -> None:
    state = make_state(tmp_path)
    store = state.store
    project = store.create_project("books", 10_000_000)
    new = [NewChunk(0, "एक छोटा वाक्य।", "", "", 100_000)]
    job = store.create_job(project, SETTINGS, json.dumps([""]), new, max_running=1)
    claimed = store.claim_chunk(lease_s=60, owner_lease_s=30)
    assert claimed is not None
    store.cancel_job(job.id, project)
    speaker = ChunkSpeaker(state.speech, store, state.meter, FolderStore(tmp_path))
    assert not await speaker.speak(claimed)
    assert store.usage(project).balance == 10_000_000 and store.usage(project).held == 0


async def test_a_worker_speaks_a_job_two_chunks_at_once_until_it_is_done(tmp_path: Path) -> None:
    state = make_state(tmp_path)
    store = state.store
    project = store.create_project("books", 10_000_000)
    planned = chunks_of(chapters_of(TEXT, "text"), chunk_chars=30)
    new = [NewChunk(c.chapter, c.text, c.before, c.after, 100_000) for c in planned]
    job = store.create_job(project, SETTINGS, json.dumps([""]), new, max_running=1)
    audio = FolderStore(tmp_path / "jobs")
    speaker = ChunkSpeaker(state.speech, store, state.meter, audio)
    worker = asyncio.create_task(JobWorker(speaker, store, 2, 30, idle_s=0.05).run())
    try:
        for _ in range(600):
            if store.job(job.id, project).state != "running":
                break
            await asyncio.sleep(0.05)
    finally:
        worker.cancel()
    assert store.job(job.id, project).state == "done"
    assert all(audio.size(chunk_key(job.id, i)) for i in range(len(planned)))


async def test_a_chunk_that_cannot_be_spoken_fails_its_job_after_its_tries(tmp_path: Path) -> None:
    """Its voice gone, say: tried MAX_ATTEMPTS times, then the job fails with the API's
    message and its reserve is released."""
    state = make_state(tmp_path)
    store = state.store
    project = store.create_project("books", 10_000_000)
    job = store.create_job(
        project, settings(voice="no-such-voice"), "[]", [NewChunk(0, "नमस्ते।", "", "", 5_000)], 1
    )
    worker = JobWorker(
        ChunkSpeaker(state.speech, store, state.meter, tmp_path), store, 1, 30, retry_after_s=0
    )
    for attempt in range(1, MAX_ATTEMPTS + 1):
        claimed = store.claim_chunk(lease_s=60, owner_lease_s=30)
        assert claimed is not None, attempt
        await worker.work(claimed)
    failed = store.job(job.id, project)
    assert failed.state == "failed" and failed.held == 0 and store.usage(project).held == 0
    assert failed.error is not None and "no-such-voice" in failed.error
    assert store.claim_chunk(lease_s=60, owner_lease_s=30) is None


def charges(database: Path, job_id: str) -> list[str]:
    """The request ids of a job's charges in the ledger."""
    with contextlib.closing(sqlite3.connect(database)) as db:
        rows = db.execute(
            "SELECT request_id FROM ledger WHERE kind = 'charge' AND request_id LIKE ?",
            (f"{job_id}/%",),
        )
        return sorted(row[0] for row in rows)


async def run_until(predicate: Callable[[], bool], what: str) -> None:
    for _ in range(1200):
        if predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"not {what} within a minute")


@pytest.mark.parametrize("stop", ["stopped", "killed"])
async def test_a_job_outlives_the_process_that_was_speaking_it(tmp_path: Path, stop: str) -> None:
    """Two processes on one ledger: the first stops mid-job (its worker cancelled, as a
    replica that is shut down; or silent, as one killed), the second finishes the job.
    Every chunk is charged once and the job's audio is every chunk's."""
    first = make_state(tmp_path)
    second = make_state(tmp_path)  # the same ledger and audio folder
    store = first.store
    project = store.create_project("books", 10_000_000)
    planned = chunks_of(chapters_of(TEXT, "text"), chunk_chars=30)
    new = [NewChunk(c.chapter, c.text, c.before, c.after, 100_000) for c in planned]
    job = store.create_job(project, SETTINGS, json.dumps([""]), new, max_running=1)
    audio = first.jobs.audio_store
    if stop == "stopped":
        worker = asyncio.create_task(JobWorker(speaker_of(first), store, 1, 30).run())
        await run_until(lambda: store.job(job.id, project).chunks_done >= 1, "one chunk made")
        worker.cancel()  # mid-job: its chunk in hand is given back
        with contextlib.suppress(asyncio.CancelledError):
            await worker
        owner_lease_s = 30.0  # the chunk is free at once, not when a lease runs out
    else:
        assert store.claim_chunk(lease_s=600, owner_lease_s=30) is not None  # and never again
        owner_lease_s = 0.5  # the first's heartbeat is that old soon
    finishing = JobWorker(speaker_of(second), second.store, 2, owner_lease_s, idle_s=0.05)
    worker = asyncio.create_task(finishing.run())
    try:
        await run_until(lambda: store.job(job.id, project).state != "running", "done")
    finally:
        worker.cancel()
    done = store.job(job.id, project)
    assert (done.state, done.chunks_done, done.held) == ("done", len(planned), 0)
    assert charges(tmp_path / "ledger.sqlite3", job.id) == sorted(
        f"{job.id}/{i}" for i in range(len(planned))
    )
    assert store.ledger_sum(project) == store.usage(project).balance == 10_000_000 - done.cost
    pcm = [audio.get(chunk_key(job.id, i)) for i in range(len(planned))]
    made = JobSettings(options="{}", format="pcm", sample_rate=22050)
    assert b"".join(job_audio(audio, job.id, range(len(planned)), made)) == b"".join(pcm)
    # each chunk's milliseconds, rounded down
    assert 0 <= sum(len(p) for p in pcm) / 2 / 22.05 - done.audio_ms < len(planned)


def speaker_of(state: IngressState) -> ChunkSpeaker:
    return ChunkSpeaker(state.speech, state.store, state.meter, state.jobs.audio_store)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a nice value per thread")
def test_a_job_s_audio_is_written_below_the_process_s_priority() -> None:
    """Each chunk's audio and the job's files (a book's MP3 is tens of seconds of
    encoding) leave the cores to live requests."""
    own = niceness()
    writers = {JOB_FILES.submit(niceness).result(timeout=30) for _ in range(8)}
    assert writers == {min(own + BACKGROUND_NICENESS, 19)}
    assert niceness() == own  # the caller's own thread is left as it was


async def test_a_deleted_job_s_chunk_stops_being_spoken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Kokoro speaking a chunk of twelve sentences when its job is deleted (as its first
    audio comes): the chunk's stream is closed there, not read to its end (it ran to the
    chunk's end once, and burned the cores for a job nobody would hear), the synthesis
    stops, nothing is stored or charged, and the worker goes on."""
    state = make_state(tmp_path)
    store = state.store
    project = store.create_project("books", 10**12)
    text = " ".join(f"वाक्य संख्या {i} यहाँ धीरे से पढ़ा जा रहा है।" for i in range(12))
    kokoro = settings(voice="default", response_format="wav")
    job = store.create_job(project, kokoro, json.dumps([""]), [NewChunk(0, text, "", "", 10**9)], 1)
    pipeline = state.speech.pipeline
    encode = pipeline.encode
    stream_ended: list[str] = []

    async def deleted_at_first_audio(work: Any) -> Any:  # the real encoder's stream
        try:
            async with contextlib.aclosing(encode(work)) as stream:
                async for piece in stream:
                    if not stream_ended:
                        store.delete_job(job.id, project)
                        stream_ended.append("reading")
                    yield piece
            stream_ended.append("read to its end")
        except (GeneratorExit, asyncio.CancelledError):
            stream_ended.append("closed")
            raise

    monkeypatch.setattr(pipeline, "encode", deleted_at_first_audio)
    audio = FolderStore(tmp_path / "jobs")
    speaker = ChunkSpeaker(state.speech, store, state.meter, audio)
    worker = asyncio.create_task(JobWorker(speaker, store, 1, 30, idle_s=0.05, check_s=0.1).run())
    try:
        # Kokoro's background work crawls beside a busy neighbour: bounds for a hang only
        await until(lambda: len(stream_ended) > 1, "the chunk's stream ends", 600)
        await until(lambda: not _synthesiser().busy, "the synthesiser goes idle", 600)
        assert not worker.done()  # it goes on to the next chunk
    finally:
        worker.cancel()
    assert stream_ended == ["reading", "closed"]
    assert audio.size(chunk_key(job.id, 0)) is None
    assert store.usage(project).balance == 10**12 and store.usage(project).held == 0


async def until(condition: Callable[[], object], what: str, timeout_s: float = HANG_S) -> None:
    """Wait on the test's loop until ``condition()`` holds; a hang's guard only."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"{what}: not within {timeout_s:.0f} s")
        await asyncio.sleep(0.05)


async def test_a_chunk_making_more_audio_than_its_price_allows_fails_its_job_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bound behind every chunk (no voice comes near it: speech at the slowest is
    about a quarter of a second a character), here made small enough to be met."""
    monkeypatch.setattr(longform_work, "MAX_AUDIO_MS_PER_CHARACTER", 1)
    monkeypatch.setattr(longform_work, "MIN_AUDIO_ALLOWED_MS", 0)
    state = make_state(tmp_path)
    store = state.store
    project = store.create_project("books", 10_000_000)
    new = [NewChunk(0, "एक छोटा वाक्य।", "", "", 100_000)]
    job = store.create_job(project, SETTINGS, json.dumps([""]), new, max_running=1)
    audio = FolderStore(tmp_path / "jobs")
    worker = JobWorker(ChunkSpeaker(state.speech, store, state.meter, audio), store, 1, 30)
    claimed = store.claim_chunk(lease_s=60, owner_lease_s=30)
    assert claimed is not None
    await worker.work(claimed)  # once: not tried again
    failed = store.job(job.id, project)
    assert failed.state == "failed" and failed.error is not None
    assert failed.error.startswith("audio_too_long") and failed.cost == 0
    assert audio.size(chunk_key(job.id, 0)) is None
