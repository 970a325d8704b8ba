"""Long-form jobs: a whole document spoken in the background by every replica, its
progress watched, its audio fetched when made. Routes at module level: each parses and
delegates to the services it is given (``surfaces/dependencies.py``)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import StreamingResponse
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException

from serve_app.http.body import parse_body, read_json, validate
from serve_app.http.errors import InvalidRequest, NotFound
from serve_app.http.query import Whole, known_query
from serve_app.http.ranges import byte_range
from serve_app.speech.longform.jobs import JobAudio, LongFormJobs
from serve_app.speech.longform.vocabulary import SpeechJob, SpeechJobList, SpeechJobRequest
from serve_app.surfaces.dependencies import SpeechKey, services
from serve_app.surfaces.framing import SSE_CONTENT_TYPE
from serve_app.surfaces.native.protocol import ErrorResponse

router = APIRouter(prefix="/v1/speech/jobs", tags=["Long-form jobs"])


def long_form(request: Request) -> LongFormJobs:
    return services(request).jobs


Jobs = Annotated[LongFormJobs, Depends(long_form)]
JOB_EVENTS: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "Server-Sent Events: `progress` (the job, JSON) when it starts and "
        "each time a chunk is made, then one named for how it ended (`done`, `cancelled`, "
        "`failed`; `deleted` if it is deleted meanwhile), and the stream ends.",
        "content": {SSE_CONTENT_TYPE: {"schema": {"type": "string"}}},
    }
}
AUDIO_BODY = {"audio/*": {"schema": {"type": "string", "format": "binary"}}}
JOB_AUDIO: dict[int | str, dict[str, Any]] = {
    200: {"description": "The audio in the job's format.", "content": AUDIO_BODY},
    206: {
        "description": "The byte range a Range header asked for (one range; Content-Range "
        "says which).",
        "content": AUDIO_BODY,
    },
    416: {
        "model": ErrorResponse,
        "description": "The range begins past the end (range_not_satisfiable; "
        "Content-Range: bytes */size).",
    },
}


MARKDOWN_FILES = (".md", ".markdown")
SSML_FILES = (".ssml",)
JOB_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": SpeechJobRequest.model_json_schema()},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "properties": {
                        "file": {
                            "type": "string",
                            "format": "binary",
                            "description": "The text, UTF-8: Markdown if its name ends "
                            "in .md or .markdown, SSML if in .ssml (unless `text_type` "
                            "says otherwise).",
                        },
                    },
                    "additionalProperties": {"type": "string"},
                    "description": "The text as an uploaded file; every other field of "
                    "the JSON body (but `input` and `chapters`) as a form field of its "
                    "name, a number, true/false or a list written as in JSON.",
                }
            },
        },
    }
}


@router.post("", status_code=202, openapi_extra=JOB_BODY)
async def create_job(request: Request, key: SpeechKey, jobs: Jobs) -> SpeechJob:
    """Start a long-form job: its worst case is held now, each chunk is charged as it
    is made. The text as JSON (`input` or `chapters`), or uploaded as a form's `file`."""
    content_type = request.headers.get("content-type", "").lower()
    if content_type.startswith("multipart/form-data"):
        body = validate(SpeechJobRequest, await job_form(request))
    else:
        body = parse_body(SpeechJobRequest, await request.body())
    return await jobs.submit(body, key)


async def job_form(request: Request) -> dict[str, object]:
    """A multipart form as the JSON body it stands for: its ``file`` the ``input``
    (Markdown by the file's name), every other field by its name."""
    fields: dict[str, object] = {}
    upload: tuple[str, bytes] | None = None
    try:
        async with request.form(max_files=1, max_fields=32) as form:
            for name, value in form.multi_items():
                if not isinstance(value, UploadFile):
                    fields[name] = form_value(value)
                elif name == "file":
                    upload = (value.filename or "", await value.read())
                else:
                    raise InvalidRequest("invalid_value", "The form's file is 'file'.", name)
    except HTTPException as error:  # Starlette's answer to a form it cannot parse
        raise InvalidRequest(
            "invalid_value", f"The form could not be read: {error.detail}", "file"
        ) from None
    if upload is None:
        raise InvalidRequest(
            "invalid_value", "Send the text as the form's 'file' (a .txt or .md file).", "file"
        )
    if "input" in fields or "chapters" in fields:
        raise InvalidRequest(
            "invalid_value", "A form's text is its 'file': send no 'input' or 'chapters'.", "file"
        )
    name, data = upload
    try:
        fields["input"] = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidRequest("invalid_value", "The file is not UTF-8 text.", "file") from None
    if name.lower().endswith(MARKDOWN_FILES):
        fields.setdefault("text_type", "markdown")
    elif name.lower().endswith(SSML_FILES):
        fields.setdefault("text_type", "ssml")
    return fields


def form_value(value: str) -> object:
    """A form field's value: a number, true/false, a list or an object where it is
    written as in JSON, else the text itself."""
    try:
        parsed = read_json(value, "form field")
    except InvalidRequest:
        return value
    return parsed if parsed is not None else value


@router.get("", dependencies=[Depends(known_query("limit", "after"))])
async def list_jobs(
    key: SpeechKey,
    jobs: Jobs,
    limit: Annotated[Whole, Query(ge=1, le=100)] = 20,
    after: Annotated[
        str | None,
        Query(description="A job's id: the page of jobs older than it (the last page's last_id)."),
    ] = None,
) -> SpeechJobList:
    """The project's jobs, newest first, a page at a time: `has_more` says whether
    there are older ones, `after=` the page's `last_id` lists them."""
    return await jobs.jobs(key.project_id, limit, after)


@router.get("/{job_id}")
async def get_job(job_id: str, key: SpeechKey, jobs: Jobs) -> SpeechJob:
    return await jobs.job(job_id, key.project_id)


@router.delete("/{job_id}")
async def delete_job(job_id: str, key: SpeechKey, jobs: Jobs) -> SpeechJob:
    """Cancel the job if it runs (the chunks made stay charged) and delete it and its
    audio."""
    return await jobs.delete(job_id, key.project_id)


@router.get("/{job_id}/events", response_class=StreamingResponse, responses=JOB_EVENTS)
async def job_events(job_id: str, key: SpeechKey, jobs: Jobs) -> StreamingResponse:
    first = await jobs.job(job_id, key.project_id)  # 404 before the stream starts

    async def events() -> AsyncIterator[str]:
        try:
            async with contextlib.aclosing(jobs.progress(first.id, key.project_id)) as views:
                async for view in views:  # closed when the client goes: the watch ends
                    name = "progress" if view.state == "running" else view.state
                    yield f"event: {name}\ndata: {view.model_dump_json()}\n\n"
        except NotFound:  # deleted while watched
            yield f'event: deleted\ndata: {{"id": "{first.id}", "deleted": true}}\n\n'

    return StreamingResponse(
        events(), media_type=SSE_CONTENT_TYPE, headers={"Cache-Control": "no-cache"}
    )


@router.get(
    "/{job_id}/audio",
    response_class=StreamingResponse,
    responses=JOB_AUDIO,
    dependencies=[Depends(known_query("chapter"))],
)
async def job_audio(
    request: Request,
    job_id: str,
    key: SpeechKey,
    jobs: Jobs,
    chapter: Annotated[Whole | None, Query(ge=0, description="One chapter's audio.")] = None,
) -> StreamingResponse:
    """The job's audio once it is done, or one chapter's once that is made."""
    audio = await jobs.audio(job_id, key.project_id, chapter)
    return audio_response(audio, request.headers.get("range"))


def audio_response(audio: JobAudio, range_header: str | None) -> StreamingResponse:
    """``audio`` whole (200), or the byte range asked for (206), read from its store
    as it is sent."""
    headers = {
        "Accept-Ranges": "bytes",
        "Content-Disposition": f'inline; filename="{audio.filename}"',
    }
    status, (start, stop) = 200, (0, audio.size)
    if (asked := byte_range(range_header, audio.size)) is not None:
        status, (start, stop) = 206, asked
        headers["Content-Range"] = f"bytes {start}-{stop - 1}/{audio.size}"
    headers["Content-Length"] = str(stop - start)
    body = audio.store.read(audio.key, start, stop)  # blocking: Starlette reads it on threads
    return StreamingResponse(body, status, headers, media_type=audio.content_type)
