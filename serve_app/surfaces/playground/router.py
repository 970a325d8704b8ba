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


def attach_router(app: FastAPI) -> None:
    app.mount("/playground", StaticFiles(directory=PLAYGROUND), name="playground")

    @app.get("/", include_in_schema=False)
    async def playground() -> FileResponse:
        """The browser playground (public: the user pastes a key, kept in the browser)."""
        return FileResponse(PLAYGROUND / "index.html", headers=PLAYGROUND_HEADERS)
