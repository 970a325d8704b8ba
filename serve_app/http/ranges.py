"""HTTP Range requests (RFC 9110 section 14) of one byte range: a player seeking in
a long file, a download resumed."""

from __future__ import annotations

from serve_app.http.errors import ServiceError


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
    one that does not parse). Raises :class:`RangeNotSatisfiable` for a range that
    begins past the end."""
    if header is None:
        return None
    unit, _, spec = header.partition("=")
    first, dash, last = spec.strip().partition("-")
    if unit.strip().lower() != "bytes" or "," in spec or not dash:
        return None
    try:
        if not first.strip():  # the last N bytes
            start, stop = max(0, size - int(last)), size
            if int(last) <= 0:
                raise RangeNotSatisfiable(size)
        else:
            start = int(first)
            stop = min(int(last) + 1, size) if last.strip() else size
            if last.strip() and int(last) < start:
                return None
    except ValueError:
        return None
    if start < 0 or start >= size:
        raise RangeNotSatisfiable(size)
    return start, stop
