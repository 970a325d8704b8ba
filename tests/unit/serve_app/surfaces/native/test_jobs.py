"""Long-form jobs over HTTP, the ingress in process: submitted, spoken by a replica's
worker, watched, fetched whole, by chapter and by range, kept, deleted (what a
request may be, and its refusals: test_job_requests.py)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import time
from collections.abc import AsyncIterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import av
import httpx
import numpy as np
import pytest

from deployments.normaliser import ssml
from serve_app.ingress.api import create_app
from serve_app.ingress.state import IngressState
from serve_app.speech.longform.audio import chunk_key
from serve_app.speech.longform.work import PAUSE_CHARACTERS_PER_S, ChunkSpeaker, JobWorker
from tests.conftest import decode
from tests.unit.serve_app.conftest import ESPEAK, make_state

JOBS = "/v1/speech/jobs"


def sentences(start: int, count: int) -> str:
    return " ".join(f"वाक्य संख्या {i} यहाँ धीरे से पढ़ा जा रहा है।" for i in range(start, start + count))


# Two chapters: the first two chunks long, the second one.
BOOK = (
    f"# पहला अध्याय\n\n{sentences(0, 14)}\n\n{sentences(14, 14)}\n\n"
    f"# दूसरा अध्याय\n\nकुछ *और* बातें। {sentences(28, 6)}\n"
)


@contextlib.asynccontextmanager
async def service(state: IngressState, worker: bool = True) -> AsyncIterator[httpx.AsyncClient]:
    """The app, and (``worker``) the replica's job worker running beside it."""
    speaking = asyncio.create_task(state.job_worker().run()) if worker else None
    transport = httpx.ASGITransport(app=create_app(state))
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            yield client
    finally:
        if speaking is not None:
            speaking.cancel()


async def finished(client: httpx.AsyncClient, auth: dict[str, str], job_id: str) -> dict:
    for _ in range(1200):
        job = (await client.get(f"{JOBS}/{job_id}", headers=auth)).json()
        if job["state"] != "running":
            return job
        await asyncio.sleep(0.05)
    raise AssertionError(f"job {job_id} still running: {job}")


async def test_a_book_is_spoken_by_chapters_and_its_audio_is_its_chunks_in_order(
    tmp_path: Path, auth: dict[str, str], audio_settings: dict[str, Any]
) -> None:
    """Its audio kept in a folder, or in an S3-compatible store."""
    state = make_state(tmp_path, **audio_settings)
    async with service(state) as client:
        body = {"input": BOOK, "text_type": "markdown", "voice": ESPEAK, "response_format": "wav"}
        created = await client.post(JOBS, headers=auth, json=body)
        assert created.status_code == 202, created.text
        job = created.json()
        assert job["object"] == "speech.job" and job["content_type"] == "audio/wav"
        assert [c["title"] for c in job["chapters"]] == ["पहला अध्याय", "दूसरा अध्याय"]
        assert job["chunks"] == 3 and job["characters"] == sum(
            c["characters"] for c in job["chapters"]
        )
        project = (await state.auth.authorise(auth["Authorization"], None)).project_id
        assert state.store.usage(project).held == job["held_deci_micros"] > 0  # the worst case

        done = await finished(client, auth, job["id"])
        assert done["state"] == "done" and done["chunks_done"] == 3
        assert done["characters_done"] == done["characters"] and done["held_deci_micros"] == 0
        assert [c["state"] for c in done["chapters"]] == ["done", "done"]
        assert done["estimated_seconds_left"] is None and done["expires_at"] > done["finished_at"]
        usage = (await client.get("/v1/account/usage", headers=auth)).json()["usage"]
        assert usage["requests"] == 1 and state.store.usage(project).held == 0
        assert usage["spent_deci_micros"] == done["cost_deci_micros"] > 0

        # made as the job ended (the worker that spoke its last chunk), not when asked for
        made = state.jobs.audio_store
        for _ in range(400):
            if made.size(f"{job['id']}/audio.wav"):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the job's whole file was not made as it ended")
        # the whole audio: every chunk's samples, in order, nothing between them
        whole = await client.get(f"{JOBS}/{job['id']}/audio", headers=auth)
        assert whole.status_code == 200 and whole.headers["content-type"] == "audio/wav"
        samples, rate = decode(whole.content)
        audio = state.jobs.audio_store
        chunks = [np.frombuffer(audio.get(chunk_key(job["id"], i)), "<i2") for i in range(3)]
        assert rate == 22050 and np.array_equal(
            np.round(samples * 32768).astype(np.int16), np.concatenate(chunks)
        )
        assert abs(done["audio_seconds"] - samples.size / rate) < 0.01

        second = await client.get(f"{JOBS}/{job['id']}/audio?chapter=1", headers=auth)
        assert decode(second.content)[0].size == chunks[2].size
        ranged = await client.get(
            f"{JOBS}/{job['id']}/audio", headers={**auth, "Range": "bytes=100-199"}
        )
        assert ranged.status_code == 206 and ranged.content == whole.content[100:200]
        size = len(whole.content)
        assert ranged.headers["content-range"] == f"bytes 100-199/{size}"
        tail = await client.get(f"{JOBS}/{job['id']}/audio", headers={**auth, "Range": "bytes=-50"})
        assert tail.status_code == 206 and tail.content == whole.content[-50:]
        rest = await client.get(
            f"{JOBS}/{job['id']}/audio", headers={**auth, "Range": f"bytes={size - 10}-"}
        )
        assert rest.status_code == 206 and rest.content == whole.content[-10:]
        past = await client.get(
            f"{JOBS}/{job['id']}/audio", headers={**auth, "Range": f"bytes={size}-"}
        )
        assert past.status_code == 416 and past.headers["content-range"] == f"bytes */{size}"
        assert past.json()["error"]["code"] == "range_not_satisfiable"

        events = await client.get(f"{JOBS}/{job['id']}/events", headers=auth)
        assert events.headers["content-type"].startswith("text/event-stream")
        assert events.text.startswith("event: done\ndata: {")  # ended: its last state at once

        listed = (await client.get(JOBS, headers=auth)).json()
        assert [j["id"] for j in listed["data"]] == [job["id"]]
        deleted = (await client.delete(f"{JOBS}/{job['id']}", headers=auth)).json()
        assert deleted["deleted"] and deleted["state"] == "done"
        assert (await client.get(f"{JOBS}/{job['id']}", headers=auth)).status_code == 404
        assert audio.size(chunk_key(job["id"], 0)) is None


async def test_a_book_s_mp3_carries_a_mark_where_each_chapter_starts(
    tmp_path: Path, auth: dict[str, str]
) -> None:
    """The whole audio of a job of chapters, as podcast and audiobook players list
    them (ID3 CHAP frames, read back by FFmpeg); a chapter's own file has none."""
    state = make_state(tmp_path)
    async with service(state) as client:
        body = {"input": BOOK, "text_type": "markdown", "voice": ESPEAK, "response_format": "mp3"}
        job = (await client.post(JOBS, headers=auth, json=body)).json()
        assert (await finished(client, auth, job["id"]))["state"] == "done"
        whole = await client.get(f"{JOBS}/{job['id']}/audio", headers=auth)
        first = await client.get(f"{JOBS}/{job['id']}/audio?chapter=0", headers=auth)
    # the chunks' samples (eSpeak's 22,050 Hz): the first chapter is chunks 0 and 1
    audio = state.jobs.audio_store
    samples = [(audio.size(chunk_key(job["id"], i)) or 0) // 2 for i in range(3)]
    first_ms, whole_ms = sum(samples[:2]) * 1000 // 22050, sum(samples) * 1000 // 22050
    with av.open(io.BytesIO(whole.content)) as reader:
        marks = [(c["metadata"]["title"], c["start"], c["end"]) for c in reader.chapters()]
        assert all(c["time_base"] == Fraction(1, 1000) for c in reader.chapters())
    assert [title for title, _, _ in marks] == ["पहला अध्याय", "दूसरा अध्याय"]
    assert [(start, end) for _, start, end in marks] == [(0, first_ms), (first_ms, whole_ms)]
    with av.open(io.BytesIO(first.content)) as reader:
        assert reader.chapters() == []
    assert whole.headers["content-type"] == "audio/mpeg"


async def test_an_ssml_job_is_heard_as_its_markup_says_and_billed_as_heard(
    tmp_path: Path, auth: dict[str, str]
) -> None:
    """The same words as text and as SSML with a two-second pause between its
    paragraphs: the SSML job's audio is that much longer, its bill the words heard and
    its silence at 15 characters a second."""
    state = make_state(tmp_path)
    words = ("नमस्ते, आज हम एक पाठ पढ़ेंगे।", "यह पाठ बहुत छोटा है।")
    markup = f'<speak><p>{words[0]}</p><break time="2s"/><p>{words[1]}</p></speak>'
    async with service(state) as client:
        ended = []
        for body in (
            {"input": "\n\n".join(words)},
            {"input": markup, "text_type": "ssml"},
        ):
            body |= {"voice": ESPEAK, "response_format": "wav"}
            job = (await client.post(JOBS, headers=auth, json=body)).json()
            ended.append(await finished(client, auth, job["id"]))
        bad = {"input": "<speak><p>खुला", "text_type": "ssml", "voice": ESPEAK}
        refused = (await client.post(JOBS, headers=auth, json=bad)).json()["error"]
    plain, marked = ended
    assert plain["state"] == marked["state"] == "done"
    # the break, and a paragraph's end that SSML marks with a pause of its own (0.5 s)
    assert 2.0 <= marked["audio_seconds"] - plain["audio_seconds"] < 3.6
    # the words heard (and the spaces SSML's paragraphs leave), not the markup's tags,
    # and the silence it asks for as the speech it stands in for
    price = state.config.price_per_character_deci_micros
    silence = sum(pause.ms for pause in ssml.parse(markup).pauses) * PAUSE_CHARACTERS_PER_S // 1000
    extra = marked["cost_deci_micros"] - plain["cost_deci_micros"]
    assert silence > 0 and silence * price <= extra <= (silence + 5) * price
    assert (refused["code"], refused["param"]) == ("invalid_value", "input")
    assert "SSML" in refused["message"]


async def test_progress_is_streamed_until_the_job_ends(
    tmp_path: Path, auth: dict[str, str]
) -> None:
    state = make_state(tmp_path)
    async with service(state, worker=False) as client:
        body = {"input": BOOK, "text_type": "markdown", "voice": ESPEAK}
        job = (await client.post(JOBS, headers=auth, json=body)).json()
        assert job["response_format"] == "mp3"  # a job's default: a file to keep
        worker = asyncio.create_task(state.job_worker().run())  # after the stream opens
        try:
            names, made = [], []
            async with client.stream("GET", f"{JOBS}/{job['id']}/events", headers=auth) as stream:
                async for line in stream.aiter_lines():
                    if line.startswith("event: "):
                        names.append(line.removeprefix("event: "))
                    elif line.startswith("data: "):
                        made.append(json.loads(line.removeprefix("data: "))["chunks_done"])
        finally:
            worker.cancel()
    assert names[0] == "progress" and names[-1] == "done" and made[0] < made[-1] == 3
    assert made == sorted(made)


async def test_an_ended_job_is_deleted_with_its_audio_once_its_keeping_is_over(
    tmp_path: Path, auth: dict[str, str]
) -> None:
    state = make_state(tmp_path, longform_keep_s=0.2)
    async with service(state) as client:
        body = {"input": "एक छोटा सा पाठ।", "voice": ESPEAK}
        job = (await client.post(JOBS, headers=auth, json=body)).json()
        done = await finished(client, auth, job["id"])
        assert done["expires_at"] == pytest.approx(done["finished_at"] + 0.2)
        assert state.jobs.audio_store.size(chunk_key(job["id"], 0))
        await asyncio.sleep(0.3)
        assert await state.jobs.sweep() == 1
        assert (await client.get(f"{JOBS}/{job['id']}", headers=auth)).status_code == 404
        assert state.jobs.audio_store.size(chunk_key(job["id"], 0)) is None


async def test_a_job_deleted_while_watched_ends_its_event_stream_so(
    tmp_path: Path, auth: dict[str, str]
) -> None:
    state = make_state(tmp_path)
    async with service(state, worker=False) as client:
        job = (await client.post(JOBS, headers=auth, json={"input": BOOK})).json()  # no worker

        async def delete_soon() -> int:
            await asyncio.sleep(1.5)  # the stream has sent the job once
            return (await client.delete(f"{JOBS}/{job['id']}", headers=auth)).status_code

        deleting = asyncio.create_task(delete_soon())
        events = await client.get(f"{JOBS}/{job['id']}/events", headers=auth)
        assert await deleting == 200
    lines = events.text.splitlines()
    assert lines[0] == "event: progress"
    assert lines[-3] == "event: deleted" and json.loads(lines[-2].removeprefix("data: ")) == {
        "id": job["id"],
        "deleted": True,
    }


async def test_a_file_asked_for_by_many_at_once_is_made_once(
    tmp_path: Path, auth: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chapter's file is made when first asked for: those who ask while it is being
    made wait for that one (a book's MP3 takes tens of seconds) and get the same bytes."""
    from serve_app.speech.longform import jobs as longform_jobs

    made: list[str] = []
    write = longform_jobs.write_job_audio

    def slow_write(*args: Any) -> None:
        made.append(args[1])
        time.sleep(0.3)  # a long file: every request arrives while it is made
        write(*args)

    monkeypatch.setattr(longform_jobs, "write_job_audio", slow_write)
    state = make_state(tmp_path)
    async with service(state) as client:
        body = {"input": BOOK, "text_type": "markdown", "voice": ESPEAK, "response_format": "mp3"}
        job = (await client.post(JOBS, headers=auth, json=body)).json()
        assert (await finished(client, auth, job["id"]))["state"] == "done"
        url = f"{JOBS}/{job['id']}/audio?chapter=1"
        answers = await asyncio.gather(*(client.get(url, headers=auth) for _ in range(4)))
    assert [a.status_code for a in answers] == [200] * 4
    assert len({a.content for a in answers}) == 1 and answers[0].content
    assert made.count(f"{job['id']}/chapter-1.mp3") == 1


async def test_a_job_submitted_here_wakes_this_replica_s_resting_workers(
    tmp_path: Path, auth: dict[str, str]
) -> None:
    """A worker that found nothing rests (up to seconds between looks, not to ask the
    database again and again); a job submitted to its replica starts at once."""
    state = make_state(tmp_path)
    speaker = ChunkSpeaker(state.speech, state.store, state.meter, state.jobs.audio_store)
    worker = JobWorker(speaker, state.store, 1, 30, idle_s=60, wakeup=state.jobs.submitted)
    speaking = asyncio.create_task(worker.run())
    try:
        async with service(state, worker=False) as client:
            await asyncio.sleep(0.2)  # it has looked, found nothing, and rests a minute
            body = {"input": sentences(0, 2), "voice": ESPEAK, "response_format": "wav"}
            created = await client.post(JOBS, headers=auth, json=body)
            assert created.status_code == 202, created.text
            done = await asyncio.wait_for(finished(client, auth, created.json()["id"]), 20)
            assert done["state"] == "done", done
    finally:
        speaking.cancel()
