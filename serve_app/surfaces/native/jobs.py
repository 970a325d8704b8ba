"""Long-form jobs: a whole document spoken in the background by every replica, its
progress watched, its audio fetched when made. Routes at module level: each finds the
service in the app (``app.state.services``), parses and delegates."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import FileResponse, StreamingResponse

from serve_app.accounts import ApiKey
from serve_app.http.auth import key_with_scope
from serve_app.http.body import parse_body
from serve_app.http.errors import NotFound
from serve_app.speech.longform_jobs import LongFormJobs
from serve_app.speech.longform_vocabulary import SpeechJob, SpeechJobList, SpeechJobRequest
from serve_app.surfaces.framing import SSE_CONTENT_TYPE, json_body
from serve_app.surfaces.services import Services

router = APIRouter(prefix="/v1/speech/jobs", tags=["Long-form jobs"])


def services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


def long_form(request: Request) -> LongFormJobs:
    return services(request).jobs


SpeechKey = Annotated[ApiKey, Depends(key_with_scope("speech", lambda r: services(r).auth))]
Jobs = Annotated[LongFormJobs, Depends(long_form)]
JOB_EVENTS: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "Server-Sent Events: `progress` (the job, JSON) when it starts and "
        "each time a chunk is made, then one named for how it ended (`done`, `cancelled`, "
        "`failed`; `deleted` if it is deleted meanwhile), and the stream ends.",
        "content": {SSE_CONTENT_TYPE: {"schema": {"type": "string"}}},
    }
}
JOB_AUDIO: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The audio in the job's format; HTTP Range requests are answered "
        "with 206 and the range.",
        "content": {"audio/*": {"schema": {"type": "string", "format": "binary"}}},
    }
}


@router.post("", status_code=202, openapi_extra=json_body(SpeechJobRequest))
async def create_job(request: Request, key: SpeechKey, jobs: Jobs) -> SpeechJob:
    """Start a long-form job: its worst case is held now, each chunk is charged as it
    is made."""
    body = parse_body(SpeechJobRequest, await request.body())
    return await jobs.submit(body, key)


@router.get("")
async def list_jobs(
    key: SpeechKey, jobs: Jobs, limit: Annotated[int, Query(ge=1, le=100)] = 20
) -> SpeechJobList:
    """The project's jobs, newest first."""
    return SpeechJobList(data=await jobs.jobs(key.project_id, limit))


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
            async for view in jobs.progress(first.id, key.project_id):
                name = "progress" if view.state == "running" else view.state
                yield f"event: {name}\ndata: {view.model_dump_json()}\n\n"
        except NotFound:  # deleted while watched
            yield f'event: deleted\ndata: {{"id": "{first.id}", "deleted": true}}\n\n'

    return StreamingResponse(
        events(), media_type=SSE_CONTENT_TYPE, headers={"Cache-Control": "no-cache"}
    )


@router.get("/{job_id}/audio", response_class=FileResponse, responses=JOB_AUDIO)
async def job_audio(
    job_id: str,
    key: SpeechKey,
    jobs: Jobs,
    chapter: Annotated[int | None, Query(ge=0, description="One chapter's audio.")] = None,
) -> Any:
    """The job's audio once it is done, or one chapter's once that is made."""
    audio = await jobs.audio(job_id, key.project_id, chapter)
    return FileResponse(
        audio.path,
        media_type=audio.content_type,
        filename=audio.filename,
        content_disposition_type="inline",
    )
