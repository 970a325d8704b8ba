"""The per-session message rate: bursts of twice the rate, then the rate itself."""

from __future__ import annotations

import time

from serve_app.surfaces.websocket.message_rate import MessageRate


def test_a_burst_of_twice_the_rate_then_the_rate() -> None:
    rate = MessageRate(per_s=50)
    assert all(rate.take() for _ in range(100))  # the burst
    emptied = time.monotonic()
    assert not rate.take()
    time.sleep(0.1)  # ~5 messages' worth, more on a busy machine
    taken = sum(rate.take() for _ in range(100))
    assert 4 <= taken <= (time.monotonic() - emptied) * 50 + 1
