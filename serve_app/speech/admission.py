"""Admission control: past capacity, say so at once instead of queueing.

A replica admits up to ``limit`` speech requests and WebSocket sessions at a
time. The next one gets 503 ``overloaded`` with ``Retry-After`` before any
normalisation or synthesis, so the streams already admitted keep their latency.
Only a caller that has shown a valid key is admitted: a socket still waiting for
its key holds no place, only one of a few its client address may have
(:class:`PerAddress`).
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator

from starlette.types import Scope

from serve_app.http.errors import Overloaded, RateLimited


class Ticket:
    """One admitted request; :meth:`release` (idempotent) frees its place."""

    def __init__(self, admission: Admission) -> None:
        self._admission: Admission | None = admission

    def release(self) -> None:
        if self._admission is not None:
            self._admission.active -= 1
            self._admission = None


class Admission:
    def __init__(self, limit: int, retry_after_s: int = 1) -> None:
        self.limit = limit
        self.active = 0
        self._retry_after = str(retry_after_s)

    def enter(self) -> Ticket:
        """A ticket, or :class:`Overloaded` if ``limit`` requests are in flight."""
        if self.active >= self.limit:
            raise Overloaded(
                "overloaded",
                "The service is at capacity; retry shortly.",
                headers={"Retry-After": self._retry_after},
            )
        self.active += 1
        return Ticket(self)


class PerAddress:
    """At most ``limit`` of something at once per client address (sockets that have
    not shown their key yet): one address cannot hold a replica's sockets."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._held: Counter[str] = Counter()

    @contextlib.contextmanager
    def place(self, address: str) -> Iterator[None]:
        """A place for ``address`` while the block runs; :class:`RateLimited` if it
        holds ``limit`` already."""
        if self._held[address] >= self.limit:
            raise RateLimited(
                "rate_limited",
                f"Your address has {self.limit} sockets waiting for their API key; send the "
                "key (header or first message) on those first.",
            )
        self._held[address] += 1
        try:
            yield
        finally:
            self._held[address] -= 1
            if not self._held[address]:
                del self._held[address]

    def __len__(self) -> int:
        return sum(self._held.values())


def client_address(scope: Scope) -> str:
    """Who is asking: the address HAProxy puts last in ``X-Forwarded-For`` (it sets
    the header itself, so a client cannot choose it), else the peer's."""
    for name, value in scope.get("headers", []):
        if name == b"x-forwarded-for":
            return str(value.decode("latin-1").rsplit(",", 1)[-1].strip())
    client = scope.get("client")
    return str(client[0]) if client else "unknown"
