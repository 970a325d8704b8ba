"""Locust's CLI against the running service: short, bounded runs on loopback."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.serve.conftest import Service

pytestmark = pytest.mark.serve
ROOT = Path(__file__).resolve().parents[2]


def locust(service: Service, prefix: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "locust",
            "-f",
            str(ROOT / "loadtest" / "locustfile.py"),
            "--host",
            service.url,
            "--headless",
            "-u",
            "4",
            "-r",
            "4",
            "-t",
            "5s",
            "--csv",
            str(prefix),
            "--only-summary",
            "--stop-timeout",
            "10",
            *extra,
        ],
        cwd=ROOT,
        env={**os.environ, "TTS_API_KEY": service.key},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def strict_run(
    service: Service, tmp_path_factory: pytest.TempPathFactory
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """One bounded Locust run for both tests: no failure allowed, and a time-to-first-audio
    threshold no service can meet, so the run must end with the threshold's exit code."""
    prefix = tmp_path_factory.mktemp("locust") / "load"
    args = ("--max-fail-ratio", "0", "--max-ttfa-p95-ms", "0.001")
    return locust(service, prefix, *args), prefix


def test_locust_records_time_to_first_audio_for_every_transport(
    strict_run: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    result, prefix = strict_run
    with open(f"{prefix}_stats.csv", newline="") as f:
        rows = {(r["Type"], r["Name"]): r for r in csv.DictReader(f)}
    ttfa = {name for kind, name in rows if kind == "TTFA"}
    assert ttfa, (rows.keys(), result.stdout[-2000:] + result.stderr[-2000:])
    assert all(int(rows[("TTFA", name)]["Request Count"]) > 0 for name in ttfa)
    assert int(rows[("", "Aggregated")]["Request Count"]) > 0
    assert int(rows[("", "Aggregated")]["Failure Count"]) == 0


def test_a_broken_threshold_fails_the_run(
    strict_run: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    result, _ = strict_run
    output = result.stdout + result.stderr
    assert result.returncode == 1, output[-2000:]
    verdicts = [line for line in output.splitlines() if line.startswith("THRESHOLD FAILED")]
    assert verdicts, output[-2000:]
    # the time to first audio broke its bound, and nothing else did
    assert all(": TTFA p95 of " in verdict for verdict in verdicts), verdicts
