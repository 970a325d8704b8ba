"""A failed service test's report: the replicas' warnings and errors of its time."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from tests.service_logs import logged_since


def record(level: str, at: datetime, message: str) -> str:
    stamp = at.strftime("%Y-%m-%d %H:%M:%S,") + f"{at.microsecond // 1000:03d}"
    return f"{level} {stamp} speech_Ingress abc 123 -- {message}\n"


def test_the_errors_of_the_test_s_time_come_with_their_tracebacks(tmp_path: Path) -> None:
    serve = tmp_path / "serve"
    serve.mkdir()
    before = datetime(2026, 11, 28, 10, 0, 0)
    during = datetime(2026, 11, 28, 10, 0, 30)
    (serve / "replica_speech_Ingress_x.log").write_text(
        record("ERROR", before, "an earlier test's failure")
        + "Traceback (most recent call last):\n  earlier\n"
        + record("INFO", during, "a request served")
        + record("ERROR", during, "pipeline call failed: RuntimeError('boom')")
        + 'Traceback (most recent call last):\n  File "x.py", line 1\nRuntimeError: boom\n'
        + record("INFO", during, "the next request")
    )
    (serve / "controller_1.log").write_text(record("WARNING", during, "replica slow to start"))

    text = logged_since(tmp_path, during.timestamp())

    assert "earlier" not in text and "request served" not in text and "next request" not in text
    assert "pipeline call failed" in text and "RuntimeError: boom" in text
    assert "replica slow to start" in text
    assert text.index("controller_1.log") < text.index("replica_speech_Ingress_x.log")


def test_no_logs_no_text(tmp_path: Path) -> None:
    assert logged_since(tmp_path, 0.0) == ""
