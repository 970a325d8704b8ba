"""What the service's replicas logged while a failed test ran, for its report.

A serve or cluster test sees only the HTTP answer (a 500 says ``internal_error`` and
a request id); the traceback behind it is in Ray Serve's replica logs, which a CI
run does not keep. The serve and cluster tiers attach the warnings and errors the
replicas wrote during a failed test to its report, tracebacks included.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import pytest

LEVELS = ("WARNING", "ERROR", "CRITICAL")
MAX_LINES = 300
# Where the tier's service logs (set by the fixture that starts it).
LOGS_DIR = pytest.StashKey[Path]()


def default_logs_dir() -> Path:
    """The logs of the Ray session this process started (``ray.init`` picks its
    temporary folder as below)."""
    root = os.environ.get("RAY_TMPDIR") or os.environ.get("TMPDIR") or "/tmp"
    return Path(root) / "ray" / "session_latest" / "logs"


def _stamp(line: str) -> float | None:
    """The time of a Serve log record (``LEVEL YYYY-MM-DD HH:MM:SS,mmm ...``), or
    None for a line that begins none (a traceback's)."""
    level, _, rest = line.partition(" ")
    if level not in (*LEVELS, "INFO", "DEBUG"):
        return None
    try:
        return datetime.strptime(rest[:23], "%Y-%m-%d %H:%M:%S,%f").timestamp()
    except ValueError:
        return None


def logged_since(logs_dir: Path, since: float) -> str:
    """The warnings and errors (with the lines that follow them: tracebacks) of each
    Serve log under ``logs_dir`` written at or after ``since`` (epoch seconds)."""
    found: list[str] = []
    for path in sorted((logs_dir / "serve").glob("*.log")):
        keep = False
        lines: list[str] = []
        with path.open(errors="replace") as log:
            for line in log:
                stamp = _stamp(line)
                if stamp is not None:
                    keep = stamp >= since - 1 and line.startswith(LEVELS)
                if keep:
                    lines.append(line.rstrip("\n"))
        if lines:
            found += [f"--- {path.name}", *lines]
    if len(found) > MAX_LINES:
        found = [*found[: MAX_LINES // 2], "...", *found[-MAX_LINES // 2 :]]
    return "\n".join(found)


def attach_service_logs(
    item: pytest.Item, report: pytest.TestReport, call: pytest.CallInfo[None]
) -> None:
    """Add what the replicas logged during ``call`` to ``report`` if it failed and a
    tier's service is up."""
    logs_dir = item.config.stash.get(LOGS_DIR, None)
    if report.when != "call" or not report.failed or logs_dir is None:
        return
    text = logged_since(logs_dir, call.start)
    report.sections.append(("service log (warnings and errors)", text or "(nothing)"))
