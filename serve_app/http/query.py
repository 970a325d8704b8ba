"""Query parameters read strictly: a number is ASCII digits, nothing Python or pydantic
would also take for one (``1.0``, ``+1``, ``1_0``, ``١``), and a route refuses a
parameter it does not know rather than ignore it (``offset`` on a list that pages
with ``after`` would otherwise list the first page again, silently)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import Request
from pydantic import BeforeValidator

from serve_app.http.errors import InvalidRequest


def _digits(value: object) -> object:
    if isinstance(value, str) and not (value.isascii() and value.isdigit()):
        raise ValueError("must be a whole number written in the digits 0-9")
    return value


# A count or an index in a query: ASCII digits only.
Whole = Annotated[int, BeforeValidator(_digits)]


def known_query(*names: str) -> Callable[[Request], None]:
    """A route dependency: 400 ``invalid_value`` for a query parameter not in
    ``names``, naming it and those the route takes."""
    known = frozenset(names)

    def check(request: Request) -> None:
        for name in request.query_params:
            if name not in known:
                takes = ", ".join(sorted(known)) or "none"
                raise InvalidRequest(
                    "invalid_value",
                    f"Unknown query parameter '{name}'; this route takes: {takes}.",
                    name,
                )

    return check
