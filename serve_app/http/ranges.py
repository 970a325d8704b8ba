"""HTTP Range requests (RFC 9110 section 14) of one byte range: a player seeking in
a long file, a download resumed."""

from __future__ import annotations

import re

from serve_app.http.errors import ServiceError

# One range of RFC 9110's grammar: first-pos "-" [last-pos], or "-" suffix-length.
_RANGE = re.compile(r"([0-9]*)-([0-9]*)", re.ASCII)


class RangeNotSatisfiable(ServiceError):
    status = 416
    type = "invalid_request_error"

    def __init__(self, size: int) -> None:
        super().__init__(
            "range_not_satisfiable",
            f"The range asked for lies past the end of the audio ({size} bytes).",
            headers={"Content-Range": f"bytes */{size}"},
        )


def byte_range(header: str | None, size: int) -> tuple[int, int] | None:
    """The bytes ``(start, stop)`` of ``size`` a ``Range`` header asks for; None for the
    whole: no header, or one this server may ignore (another unit, several ranges,
    one that is not RFC 9110's ``first-last``, ``first-`` or ``-suffix`` of ASCII
    digits: ``1_0``, ``+1`` and ``--5`` are not numbers here, as Python's ``int`` would
    make them). Raises :class:`RangeNotSatisfiable` for a range that begins past the
    end."""
    if header is None:
        return None
    unit, equals, spec = header.partition("=")
    if not equals or unit.strip().lower() != "bytes":
        return None
    asked = _RANGE.fullmatch(spec.strip(" \t"))
    if asked is None:
        return None
    first, last = asked.groups()
    if not first:  # the last N bytes
        if not last:
            return None
        if int(last) == 0:
            raise RangeNotSatisfiable(size)
        return max(0, size - int(last)), size
    start = int(first)
    if last and int(last) < start:
        return None
    if start >= size:
        raise RangeNotSatisfiable(size)
    return start, min(int(last) + 1, size) if last else size
