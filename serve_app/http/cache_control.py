"""A request's ``Cache-Control``, as the speech cache reads it."""

from __future__ import annotations

from collections.abc import Mapping


def cache_allowed(headers: Mapping[str, str]) -> bool:
    """Whether a request's ``Cache-Control`` (an HTTP request's, or a WebSocket's
    upgrade request's) lets its audio come from the speech cache and go into it: not
    with ``no-cache`` or ``no-store``."""
    directives = {
        d.strip().split("=")[0].lower() for d in headers.get("cache-control", "").split(",")
    }
    return not directives & {"no-cache", "no-store"}
