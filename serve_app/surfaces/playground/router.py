"""The browser playground: one page and its files, public (the user pastes a key,
which stays in the browser)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

PLAYGROUND = Path(__file__).parent / "static"
PLAYGROUND_HEADERS = {
    # the page loads only its own files and speaks only to this service
    "content-security-policy": "default-src 'self'; media-src 'self' blob:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "cache-control": "no-cache",
}


async def playground() -> FileResponse:
    """The browser playground (public: the user pastes a key, kept in the browser)."""
    return FileResponse(PLAYGROUND / "index.html", headers=PLAYGROUND_HEADERS)


def attach_router(app: FastAPI) -> None:
    # the page at / and at /playground (with or without its slash), before the mount
    # of its files, which would answer /playground with a redirect to a folder
    for path in ("/", "/playground", "/playground/"):
        app.add_api_route(path, playground, methods=["GET"], include_in_schema=False)
    app.mount("/playground", StaticFiles(directory=PLAYGROUND), name="playground")
