"""Waiting in tests for what the service reports, never for the host's speed.

A wait ends when its condition holds (a replica RUNNING, a stream's first audio, a
hold settled); its bound only guards a hang, several times the slowest run seen on
a busy host (``make test-busy``). Where it runs out, the failure says what the
service was doing then (``status``), not only that the time is up.
"""

from __future__ import annotations

import time
from collections.abc import Callable

# A wait's bound where its caller names none: a hang's guard, several times the
# slowest wait seen beside the noisy neighbour (docs/development.md).
HANG_S = 120.0


def wait_until(
    condition: Callable[[], object],
    what: str,
    timeout_s: float = HANG_S,
    interval_s: float = 0.5,
    status: Callable[[], object] | None = None,
) -> float:
    """Seconds until ``condition()`` is true, asked every ``interval_s``. Past
    ``timeout_s``, fails the test with ``what`` and ``status()``'s report."""
    started = time.monotonic()
    while True:
        if condition():
            return time.monotonic() - started
        if time.monotonic() - started >= timeout_s:
            raise AssertionError(f"{what}: not within {timeout_s:.0f} s; {report(status)}")
        time.sleep(interval_s)


def report(status: Callable[[], object] | None) -> str:
    """``status()``'s report for a failure message; its own failure, if it fails."""
    if status is None:
        return "no status"
    try:
        return f"the service then: {status()}"
    except Exception as e:  # a report must not hide the failure it explains
        return f"its status could not be read: {e!r}"
