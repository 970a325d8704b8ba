"""Long-form jobs as a project sees them: submitted (the text cut into chunks, each
read as its voice will read it so that the worst case held is exact), watched,
listened to, deleted. The chunks are spoken by every ingress replica's
:class:`~serve_app.speech.longform.work.JobWorker`; this is the side that answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncGenerator, Iterator, Sequence
from dataclasses import dataclass

from serve_app.accounts import AccountStore, ApiKey, InsufficientFunds
from serve_app.accounts.longform.jobs import (
    JobNotFound,
    JobRecord,
    JobRow,
    NewChunk,
    TooManyJobs,
)
from serve_app.http.errors import InvalidRequest, NotFound, RateLimited
from serve_app.settings import CONFIGS, IngressConfig
from serve_app.speech.audio_store import AudioStore, job_key, open_store
from serve_app.speech.billing import Meter, balance_refusal
from serve_app.speech.checked import Voicing
from serve_app.speech.longform.audio import JOB_FILES, JobSettings, write_job_audio
from serve_app.speech.longform.chunks import (
    Chapter,
    Chunk,
    check_chapters,
)
from serve_app.speech.longform.cutting import cut, prompt_chunks
from serve_app.speech.longform.idle_waits import Wakeup
from serve_app.speech.longform.progress import JobProgress
from serve_app.speech.longform.view import job_view
from serve_app.speech.longform.vocabulary import (
    JobTextType,
    SpeechJob,
    SpeechJobList,
    SpeechJobRequest,
)
from serve_app.speech.longform.webhooks import check_webhook_url
from serve_app.speech.longform.work import job_characters
from serve_app.speech.service import SpeechService
from serve_app.speech.sweeping import sweeping
from serve_app.speech.vocabulary import VoiceOptions

logger = logging.getLogger(__name__)
# Chunks read (normalised) at once while a job is submitted.
READ_AT_ONCE = 8
# How often ended jobs past their keeping are looked for.
SWEEP_INTERVAL_S = 300.0
# What a folder of long-form audio is relative to.
PROJECT_ROOT = CONFIGS.parent
# A project told it runs too many jobs may try again after about this long.
RETRY_AFTER_S = 30


@dataclass(frozen=True)
class JobAudio:
    """A job's audio (whole, or one chapter's): an object of ``store`` to send."""

    store: AudioStore
    key: str
    size: int
    content_type: str
    filename: str


def _extension(fmt: str) -> str:
    return {"opus": "ogg", "pcm": "raw"}.get(fmt, fmt)


class LongFormJobs:
    """Submits, shows and deletes a project's long-form jobs."""

    def __init__(
        self, service: SpeechService, store: AccountStore, meter: Meter, config: IngressConfig
    ) -> None:
        self._service = service
        self._store = store
        self._meter = meter
        self._config = config
        self.audio_store = open_store(
            config.longform_audio_path, PROJECT_ROOT, config.longform_s3_endpoint_url
        )
        # woken by each job submitted here: this process's workers look for its chunks
        self.submitted = Wakeup()
        # woken by each job that ends here: this process's webhook sender looks at once
        self.ended = Wakeup()
        # the files being made here, by key: whoever asks meanwhile waits for that one
        self._making: dict[str, asyncio.Future[None]] = {}
        self._progress = JobProgress(self._row, self.job)

    async def submit(self, request: SpeechJobRequest, key: ApiKey) -> SpeechJob:
        """A new running job of ``request``'s text; 400 for a text too long or with
        nothing to speak, 402 when the balance cannot cover its worst case, 429 when
        the project runs its limit of jobs or the key its rate."""
        await self._meter.count(key)  # before the text is read: reading it is the work
        await self._check_room(key.project_id)
        if request.webhook_url is not None:
            await check_webhook_url(request.webhook_url, self._config.webhook_private_addresses)
        chapters, chunks = await self._chapters(request)
        asked = request.model_dump(include=set(VoiceOptions.model_fields), exclude_unset=True)
        asked["response_format"] = request.response_format  # a job's default is its own
        options = VoiceOptions.model_validate(asked)
        voicing = await self._service.choose(options, False, key.project_id)
        reserves = await self._reserves(chunks, voicing.in_background(), request.text_type)
        if not any(reserves):
            raise InvalidRequest("empty_input", "input has nothing to speak.", "input")
        settings = JobSettings(
            options=options.model_dump_json(exclude_unset=True),
            format=voicing.output.format,
            sample_rate=voicing.sample_rate,
            bitrate_kbps=voicing.output.bitrate_kbps,
            markup=request.text_type == "ssml",
            rules=[rule.as_dict() for rule in voicing.rules],
            cache=request.prompts is not None,
        )
        pairs = zip(chunks, reserves, strict=True)
        new = [NewChunk(c.chapter, c.text, c.before, c.after, r) for c, r in pairs]
        titles = json.dumps([c.title for c in chapters], ensure_ascii=False)
        store = self._store
        try:
            job = await store.call(
                store.create_job,
                key.project_id,
                settings.model_dump_json(),
                titles,
                new,
                self._config.longform_max_running_jobs,
                request.webhook_url,
            )
        except InsufficientFunds as e:
            raise balance_refusal(sum(reserves), e.available) from None
        except TooManyJobs as e:
            raise self._too_many(e) from None
        self.submitted.wake()
        return self._view(await self._record(job.id, key.project_id))

    async def _check_room(self, project_id: str) -> None:
        """429 when the project runs its limit of jobs, 402 when its balance cannot
        cover the least a job costs (one character heard, and the per-request price):
        asked before the text is read, so that a project that may not start a job
        costs the service nothing."""
        store = self._store
        least = self._meter.cost(1, delivered=True)
        limit = self._config.longform_max_running_jobs
        try:
            await store.call(store.check_room, project_id, limit, least)
        except InsufficientFunds as e:
            raise balance_refusal(least, e.available) from None
        except TooManyJobs as e:
            raise self._too_many(e) from None

    def _too_many(self, e: TooManyJobs) -> RateLimited:
        return RateLimited(
            "rate_limited",
            f"This project has {e.limit} long-form jobs running, its limit; "
            "another may start when one ends.",
            headers={"Retry-After": str(RETRY_AFTER_S)},
        )

    async def _chapters(self, request: SpeechJobRequest) -> tuple[list[Chapter], list[Chunk]]:
        """The request's text cut into chapters and chunks, each cleaned as a speech
        request's input is (what is billed is what is spoken)."""
        sent = (request.input, request.chapters, request.prompts)
        if sum(part is not None for part in sent) != 1:
            raise InvalidRequest(
                "invalid_value",
                "Send the text as input, as chapters or as prompts, one of them.",
                "input",
            )
        if request.prompts is not None:
            return prompt_chunks(request.prompts, request.text_type)
        given = (
            [("", request.input)]
            if request.input is not None
            else [(c.title, c.input) for c in request.chapters or ()]
        )
        total = sum(len(text) for _, text in given)
        limit = self._config.longform_max_characters
        if total > limit:
            raise InvalidRequest(
                "input_too_long", f"The text is {total} characters; a job holds {limit}.", "input"
            )
        chapters, chunks = await asyncio.to_thread(cut, given, request.text_type)
        check_chapters(chapters, "chapters" if request.chapters is not None else "input")
        if not chapters:
            raise InvalidRequest("empty_input", "input has nothing to speak.", "input")
        return chapters, chunks

    async def _reserves(
        self, chunks: Sequence[Chunk], voicing: Voicing, text_type: JobTextType
    ) -> list[int]:
        """What each chunk may cost: its text read as its voice will read it (numbers
        in words, the project's dictionaries applied), priced; the job's first chunk
        carries the per-request price (a job is one request)."""
        service = self._service
        at_once = asyncio.Semaphore(READ_AT_ONCE)

        async def reserve(chunk: Chunk) -> int:
            async with at_once:
                given = await service.check_input(chunk.text, _input_type(text_type))
                said = await service.read(given, voicing)
            if said is None:
                return 0
            return self._meter.cost(job_characters(given, said), delivered=chunk.index == 0)

        return list(await asyncio.gather(*(reserve(c) for c in chunks)))

    async def webhook_secret(self, project_id: str) -> str:
        """The key the project's job webhooks are signed with, made on first asking."""
        return await self._store.call(self._store.webhook_secret, project_id)

    async def job(self, job_id: str, project_id: str) -> SpeechJob:
        return self._view(await self._record(job_id, project_id))

    async def _record(self, job_id: str, project_id: str) -> JobRecord:
        with _found(job_id):
            return await self._store.call(self._store.record, job_id, project_id)

    async def jobs(self, project_id: str, limit: int, after: str | None = None) -> SpeechJobList:
        """A page of the project's jobs, newest first: ``limit`` of them, older than the
        job ``after`` where given (400 where it is not one of the project's jobs)."""
        store = self._store
        try:
            records = await store.call(store.records, project_id, limit + 1, after)
        except JobNotFound:
            raise InvalidRequest(
                "invalid_value", f"after: no job '{after}' in this project.", "after"
            ) from None
        page = [self._view(record) for record in records[:limit]]
        return SpeechJobList(
            data=page,
            has_more=len(records) > limit,
            first_id=page[0].id if page else None,
            last_id=page[-1].id if page else None,
        )

    async def delete(self, job_id: str, project_id: str) -> SpeechJob:
        """Cancel the job if it runs and delete it and its audio; its last state."""
        store = self._store
        record = await self._record(job_id, project_id)
        with _found(job_id):
            job = await store.call(store.delete_job, job_id, project_id)
        await asyncio.to_thread(self.audio_store.delete_job, job_id)
        last = JobRecord(job, record.tallies, None)
        return self._view(last).model_copy(update={"deleted": True})

    async def audio(self, job_id: str, project_id: str, chapter: int | None) -> JobAudio:
        """The job's audio as one file of its format, made if it is not yet (the whole
        job's is made as the job ends: :meth:`prepare`): the whole job's once it is
        done, a chapter's once its chunks are."""
        record = await self._record(job_id, project_id)
        job, view = record.job, self._view(record)
        if chapter is None:
            if view.state != "done":
                raise NotFound(
                    "not_found",
                    f"The job's audio is made when it is done; it is {view.state} "
                    f"({view.chunks_done} of {view.chunks} chunks made).",
                    "job_id",
                )
            numbers, name = list(range(len(view.chapters))), "audio"
        else:
            if not 0 <= chapter < len(view.chapters):
                raise NotFound("not_found", f"The job has no chapter {chapter}.", "chapter")
            if view.chapters[chapter].state != "done":
                raise NotFound(
                    "not_found",
                    f"Chapter {chapter} is {view.chapters[chapter].state}: its audio is "
                    "made when all of it is spoken.",
                    "chapter",
                )
            numbers, name = [chapter], f"chapter-{chapter}"
        settings = JobSettings.model_validate_json(job.settings)
        extension = _extension(settings.format)
        key = job_key(job_id, f"{name}.{extension}")
        size = await asyncio.to_thread(self.audio_store.size, key)
        if size is None:
            with _found(job_id):
                chunks = await self._store.call(self._store.chunks, job_id, project_id)
            parts = [
                (view.chapters[n].title, [c.index for c in chunks if c.chapter == n])
                for n in numbers
            ]
            await self._made(key, job_id, parts, settings)
            if await self._store.call(self._store.job_state, job_id) is None:
                # deleted while the file was made: it goes too, not left behind
                await asyncio.to_thread(self.audio_store.delete_job, job_id)
                raise NotFound("not_found", f"No job '{job_id}' in this project.", "job_id")
            size = await asyncio.to_thread(self.audio_store.size, key)
            assert size is not None  # just written
        filename = f"{job_id}{'' if chapter is None else f'-{chapter}'}.{extension}"
        return JobAudio(self.audio_store, key, size, view.content_type, filename)

    async def _made(
        self, key: str, job_id: str, parts: list[tuple[str, list[int]]], settings: JobSettings
    ) -> None:
        """The file ``key`` made of ``parts``, once in this process however many ask
        for it at once (a book's MP3 takes tens of seconds); one who stops waiting
        leaves it being made for the others."""
        making = self._making.get(key)
        if making is None:
            store = self.audio_store
            loop = asyncio.get_running_loop()
            making = loop.run_in_executor(
                JOB_FILES, write_job_audio, store, key, job_id, parts, settings
            )
            self._making[key] = making
            making.add_done_callback(lambda _: self._making.pop(key, None))
        await asyncio.shield(making)

    async def prepare(self, job_id: str, project_id: str) -> None:
        """Make the done job's whole file now, so that asking for it waits for nothing
        (a book's MP3 takes tens of seconds to encode)."""
        await self.audio(job_id, project_id, None)

    def progress(self, job_id: str, project_id: str) -> AsyncGenerator[SpeechJob, None]:
        """The job now, then again each time a chunk is done, until it ends: looked at
        once a second in this process however many watch it (:class:`JobProgress`)."""
        return self._progress.watch(job_id, project_id)

    async def _row(self, job_id: str, project_id: str) -> JobRow:
        with _found(job_id):
            return await self._store.call(self._store.job, job_id, project_id)

    async def sweep(self) -> int:
        """Delete the jobs (and their audio) ended longer ago than they are kept; how
        many were deleted."""
        store = self._store
        ended = await store.call(store.ended_jobs, time.time() - self._config.longform_keep_s)
        for job_id, project_id in ended:
            try:
                await store.call(store.delete_job, job_id, project_id)
            except JobNotFound:
                continue
            await asyncio.to_thread(self.audio_store.delete_job, job_id)
        return len(ended)

    async def keep(self, interval_s: float = SWEEP_INTERVAL_S) -> None:
        """Runs for the replica's life: :meth:`sweep` every ``interval_s``."""
        await sweeping(self.sweep, interval_s, "long-form jobs past their keeping")

    def _view(self, record: JobRecord) -> SpeechJob:
        return job_view(record, self._config.longform_keep_s)


def _input_type(text_type: JobTextType) -> str:
    """How a chunk's text is read: SSML as SSML, plain text and Markdown (made plain
    when cut) as text."""
    return "ssml" if text_type == "ssml" else "text"


@contextlib.contextmanager
def _found(job_id: str) -> Iterator[None]:
    """The store's :class:`JobNotFound` as the API's 404."""
    try:
        yield
    except JobNotFound:
        raise NotFound("not_found", f"No job '{job_id}' in this project.", "job_id") from None
