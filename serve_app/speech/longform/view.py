"""How the API shows a long-form job: its record (row, chunks counted by chapter and
state, webhook) as a :class:`SpeechJob`."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence

from deployments.encoding import content_type
from serve_app.accounts.longform.jobs import ChapterTally, JobRecord
from serve_app.accounts.longform.webhooks import WebhookRow
from serve_app.speech.longform.audio import JobSettings
from serve_app.speech.longform.vocabulary import (
    ChapterState,
    JobChapter,
    JobWebhook,
    SpeechJob,
)


def job_view(record: JobRecord, keep_s: float) -> SpeechJob:
    """How the API shows a job: ``keep_s``, how long it is kept once ended."""
    job, webhook = record.job, record.webhook
    settings = JobSettings.model_validate_json(job.settings)
    titles: list[str] = json.loads(job.chapters)
    now = time.time()
    left = None
    if job.state == "running" and job.characters_done:
        pace = (now - job.created_at) / job.characters_done
        left = round(pace * (job.characters - job.characters_done), 1)
    by_chapter: list[list[ChapterTally]] = [[] for _ in titles]
    for tally in record.tallies:
        by_chapter[tally.chapter].append(tally)
    return SpeechJob(
        id=job.id,
        state=job.state,
        created_at=job.created_at,
        finished_at=job.finished_at,
        expires_at=None if job.finished_at is None else job.finished_at + keep_s,
        characters=job.characters,
        characters_done=job.characters_done,
        audio_seconds=job.audio_ms / 1000,
        chunks=job.chunks,
        chunks_done=job.chunks_done,
        estimated_seconds_left=left,
        cost_deci_micros=job.cost,
        held_deci_micros=job.held,
        response_format=settings.format,
        content_type=content_type(settings.format, settings.sample_rate),
        chapters=[_chapter(i, title, by_chapter[i]) for i, title in enumerate(titles)],
        error=job.error,
        webhook=None if webhook is None else _webhook(webhook),
    )


def _webhook(row: WebhookRow) -> JobWebhook:
    return JobWebhook(
        url=row.url,
        state=row.state,
        attempts=row.attempts,
        last_status=row.last_status,
        last_error=row.last_error,
    )


def _chapter(index: int, title: str, tallies: Sequence[ChapterTally]) -> JobChapter:
    """A chapter's view from its chunks' tallies (one a state)."""
    states = {t.state: t for t in tallies}
    done = states.get("done")
    state: ChapterState
    if set(states) <= {"done"}:
        state = "done"
    elif "cancelled" in states:
        state = "cancelled"
    elif done or "working" in states:
        state = "running"
    else:
        state = "waiting"
    return JobChapter(
        index=index,
        title=title,
        characters=sum(t.characters for t in tallies),
        characters_done=0 if done is None else done.characters,
        audio_seconds=0 if done is None else done.audio_ms / 1000,
        state=state,
    )
