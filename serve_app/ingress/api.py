"""The ingress's FastAPI application: middleware, the one error shape, the ledger's
upkeep, and each surface attached by one call. A new compatible surface is a folder
under ``serve_app/surfaces/`` and one line here."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from fastapi import FastAPI

from serve_app.accounts.maintenance import maintain_ledger
from serve_app.http.errors import install_error_handlers
from serve_app.http.http10 import Http10Middleware
from serve_app.http.middleware import ReaderPaceMiddleware, RequestContextMiddleware
from serve_app.http.origins import allow_origins
from serve_app.ingress.state import IngressState
from serve_app.surfaces.elevenlabs import dictionaries as eleven_dictionaries
from serve_app.surfaces.elevenlabs import router as elevenlabs
from serve_app.surfaces.native import jobs, speech_cache, webhooks
from serve_app.surfaces.native import router as native
from serve_app.surfaces.native.protocol import ErrorResponse
from serve_app.surfaces.playground import router as playground

# How long a stopping replica waits for its background tasks to end.
SHUTDOWN_WAIT_S = 5.0
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse} for status in (400, 401, 402, 403, 404, 413, 429, 500, 503)
}


def described(document: dict[str, Any]) -> dict[str, Any]:
    """FastAPI's ``document`` made true to the service and easy to read:

    - each request body's inline model schema (routes that read their own bodies
      describe them with ``model_json_schema()``) moved to ``components/schemas``
      under its title and referenced from there, its ``$defs`` beside it, so a reader
      finds ``SpeechRequest`` once rather than a nested copy in each operation;
    - FastAPI's own 422 answers dropped: a bad request is a 400 here, never a 422.
    """
    schemas = document.setdefault("components", {}).setdefault("schemas", {})

    def named(schema: dict[str, Any]) -> dict[str, Any]:
        if "title" not in schema or "properties" not in schema:
            return schema
        text = json.dumps(schema).replace('"#/$defs/', '"#/components/schemas/')
        moved = json.loads(text)
        for name, part in [*moved.pop("$defs", {}).items(), (moved["title"], moved)]:
            if schemas.setdefault(name, part) != part:
                raise ValueError(f"two different schemas are named {name!r}")
        return {"$ref": f"#/components/schemas/{moved['title']}"}

    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            operation.get("responses", {}).pop("422", None)
            content = operation.get("requestBody", {}).get("content", {})
            for media in content.values():
                schema = media.get("schema", {})
                if "anyOf" in schema:
                    schema["anyOf"] = [named(s) for s in schema["anyOf"]]
                else:
                    media["schema"] = named(schema)
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    return document


def running_beside(state: IngressState) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The app's lifespan: the work of a replica beside its requests (the ledger's
    upkeep, the jobs' upkeep, their webhooks and chunks, the speech cache's shared
    store swept) for as long as it serves."""

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        ledger = maintain_ledger(state.store, lambda: state.meter.live, state.config.hold_lease_s)
        background = [
            asyncio.create_task(ledger),
            asyncio.create_task(state.jobs.keep()),
            asyncio.create_task(state.webhook_sender().run()),
        ]
        if state.config.longform_chunks_at_once:
            background.append(asyncio.create_task(state.job_worker().run()))
        if state.speech.cache is not None:
            background.append(asyncio.create_task(state.speech.cache.keep_swept()))
        yield
        for task in background:
            task.cancel()
        # a job's chunk in hand is given back before the replica goes (at most 5 s)
        await asyncio.wait(background, timeout=SHUTDOWN_WAIT_S)

    return lifespan


def create_app(state: IngressState) -> FastAPI:
    app = FastAPI(
        lifespan=running_beside(state),
        title="Speech synthesis service",
        version="1",
        description=(
            "Text in, speech out: buffered, chunked or as Server-Sent Events; a WebSocket"
            " takes text as it is written. The documentation site (docs/) says more."
        ),
        responses=ERRORS,
        # no /docs or /redoc: FastAPI's pages load their scripts and fonts from public
        # CDNs (blank offline, and third-party code on the origin where users paste
        # keys); the document is at /openapi.json, rendered by the documentation site
        docs_url=None,
        redoc_url=None,
    )
    app.state.services = state  # what the routes are given (surfaces/dependencies.py)
    install_error_handlers(app, state.metrics.rejected)
    allow_origins(app, state.config.allowed_origins)
    app.add_middleware(
        ReaderPaceMiddleware,
        send_timeout_s=state.config.send_timeout_s,
        send_buffer_bytes=state.config.send_buffer_bytes,
    )
    app.add_middleware(Http10Middleware)
    app.add_middleware(
        RequestContextMiddleware,
        max_body_bytes=state.config.max_body_bytes,
        larger_bodies={"/v1/speech/jobs": state.config.longform_max_body_bytes},
    )
    playground.attach_router(app)
    app.include_router(native.router)
    app.include_router(jobs.router)
    app.include_router(webhooks.router)
    app.include_router(speech_cache.router)
    app.include_router(elevenlabs.router)
    app.include_router(eleven_dictionaries.router)
    generated = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = described(generated())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app
