"""What a long-form job is asked with and what it answers: the bodies of
``/v1/speech/jobs``."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from serve_app.speech.longform.chunks import CHUNK_CHARS, MAX_CHAPTERS
from serve_app.speech.vocabulary import Format, UnicodeText, VoiceOptions

JobTextType = Literal["text", "markdown", "ssml"]
# Prompts a job may render ahead of time (an IVR's menus, an agent's lines).
MAX_PROMPTS = 1_000


class ChapterText(BaseModel):
    """A chapter given by name: its title and its text."""

    model_config = ConfigDict(extra="forbid", strict=True)

    title: str = Field("", max_length=500)
    input: UnicodeText


class SpeechJobRequest(VoiceOptions):
    """Body of POST /v1/speech/jobs: a long text (``input``) or its chapters
    (``chapters``), and how to speak it, as a speech request says it."""

    input: UnicodeText | None = Field(
        None,
        description="The text to speak, up to the service's limit (500,000 characters by "
        "default). Markdown (`text_type`) starts a chapter at each heading of its top level; "
        "SSML is cut at its paragraphs.",
    )
    text_type: JobTextType = "text"
    chapters: list[ChapterText] | None = Field(
        None,
        max_length=MAX_CHAPTERS,
        description=f"The text as named chapters, instead of `input` (at most {MAX_CHAPTERS}).",
    )
    prompts: list[Annotated[UnicodeText, Field(max_length=CHUNK_CHARS)]] | None = Field(
        None,
        min_length=1,
        max_length=MAX_PROMPTS,
        description="Instead of `input`: prompts to render ahead of time into the speech "
        "cache (an IVR's menu, an agent's greeting), each spoken alone as a speech request "
        f"of it would be (at most {MAX_PROMPTS}, each at most {CHUNK_CHARS} characters; "
        "`text_type` text or ssml). A request that says one of them later, in this voice "
        "and with these controls, is heard from the cache. The job's audio is the prompts "
        "one after another.",
    )
    response_format: Format = "mp3"
    webhook_url: str | None = Field(
        None,
        max_length=2048,
        description="Where the job's end (done, failed or cancelled) is POSTed: an http(s) "
        "URL. Signed as Standard Webhooks sign, with the project's secret "
        "(GET /v1/account/webhook_secret); tried again for hours until it answers 2xx.",
    )


JobState = Literal["running", "done", "cancelled", "failed"]
ChapterState = Literal["waiting", "running", "done", "cancelled"]


class JobChapter(BaseModel):
    index: int
    title: str
    characters: int
    characters_done: int
    audio_seconds: float
    state: ChapterState


class JobWebhook(BaseModel):
    """Where a job's end is sent, and how sending it went."""

    url: str
    state: Literal["waiting", "pending", "delivered", "failed"] = Field(
        description="waiting: for the job to end; pending: being sent, or to be tried again."
    )
    attempts: int
    last_status: int | None = Field(description="The receiver's last HTTP status.")
    last_error: str | None = Field(description="Why the last try failed, where it did.")


class SpeechJob(BaseModel):
    """A long-form job as its owner sees it."""

    id: str
    object: Literal["speech.job"] = "speech.job"
    state: JobState
    created_at: float
    finished_at: float | None
    expires_at: float | None = Field(description="When an ended job and its audio are deleted.")
    characters: int = Field(description="Of the whole text, as sent.")
    characters_done: int
    audio_seconds: float = Field(description="Of the audio made so far.")
    chunks: int
    chunks_done: int
    estimated_seconds_left: float | None = Field(
        description="At the pace so far; none before the first chunk is done."
    )
    cost_deci_micros: int = Field(description="Charged so far: the chunks made.")
    held_deci_micros: int = Field(description="Still reserved for the chunks not made.")
    response_format: str
    content_type: str
    chapters: list[JobChapter]
    error: str | None = Field(description="Why a failed job failed.")
    webhook: JobWebhook | None = None
    deleted: bool = False


class SpeechJobList(BaseModel):
    """A page of a project's jobs, newest first."""

    object: Literal["list"] = "list"
    data: list[SpeechJob]
    has_more: bool = Field(description="Whether older jobs follow: ask with after=last_id.")
    first_id: str | None
    last_id: str | None
