"""Admission control: past capacity, say so at once instead of queueing.

A replica admits up to ``limit`` speech requests and WebSocket sessions at a
time. The next one gets 503 ``overloaded`` with ``Retry-After`` before any
normalisation or synthesis, so the streams already admitted keep their latency.
"""

from __future__ import annotations

from serve_app.errors import Overloaded


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
