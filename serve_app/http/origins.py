"""Which web pages may use the API from a browser: CORS and WebSocket origins.

A browser sends ``Origin`` with every cross-origin request and every WebSocket
handshake; other clients (SDKs, curl, servers) send none and are not affected.
A page served by the service itself is always allowed; other pages only from
the configured list (``allowed_origins``), never a wildcard, and never with
credentials: keys travel in headers the page sets, not in cookies.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi import FastAPI
from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware

EXPOSED_HEADERS = [
    "x-request-id",
    "x-service-language",
    "x-service-representation",
    "x-service-sample-rate",
    "x-service-quality",
    "x-service-cache",
    "x-service-generation-ms",
    "x-service-cost-deci-micros",
    "x-service-voice-design",
    "x-service-instructions",
    "retry-after",
]


def allow_origins(app: FastAPI, origins: list[str]) -> None:
    """Answer CORS for exactly ``origins`` (nothing is added when it is empty)."""
    if origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=origins,
            allow_credentials=False,
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["authorization", "content-type", "x-request-id"],
            expose_headers=EXPOSED_HEADERS,
            max_age=600,
        )


def origin_allowed(headers: Headers, allowed: list[str]) -> bool:
    """Whether a request with ``headers`` may come from its page: no ``Origin`` (not a
    browser), the service's own host, or an allowed origin."""
    origin = headers.get("origin")
    if origin is None:
        return True
    if origin in allowed:
        return True
    return bool(urlsplit(origin).netloc) and urlsplit(origin).netloc == headers.get("host")
