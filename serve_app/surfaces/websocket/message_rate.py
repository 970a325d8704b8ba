"""How fast a WebSocket client may send: a token bucket per session."""

from __future__ import annotations

import time


class MessageRate:
    """A token bucket: ``per_s`` messages a second on average, ``2 * per_s`` at once."""

    def __init__(self, per_s: float) -> None:
        self._per_s = per_s
        self._burst = 2 * per_s
        self._tokens = self._burst
        self._at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self._tokens = min(self._burst, self._tokens + (now - self._at) * self._per_s)
        self._at = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True
