"""Locust's CLI against the running service: short, bounded runs on loopback.

The run makes load for a few seconds; its users then finish the requests they have
begun (``--stop-timeout``, a hang's bound), and the stats are read from the JSON
Locust writes after they have (its CSV is written on a timer and may miss what ends
last: on a busy host, every first audio)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.serve.conftest import Service

pytestmark = pytest.mark.serve
ROOT = Path(__file__).resolve().parents[2]
STOP_TIMEOUT_S = 120  # the users' requests under way finish: a hang's bound


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
            "--json-file",
            str(prefix),
            "--only-summary",
            "--stop-timeout",
            str(STOP_TIMEOUT_S),
            *extra,
        ],
        cwd=ROOT,
        env={**os.environ, "TTS_API_KEY": service.key},
        capture_output=True,
        text=True,
        timeout=STOP_TIMEOUT_S + 180,
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
    entries = json.loads(Path(f"{prefix}.json").read_text())
    ttfa = [e for e in entries if e["method"] == "TTFA"]
    assert ttfa, ([(e["method"], e["name"]) for e in entries], result.stderr[-2000:])
    assert all(e["num_requests"] > 0 for e in ttfa)
    assert sum(e["num_requests"] for e in entries) > 0
    failures = sum(e["num_failures"] for e in entries)
    # what failed is in Locust's error report (stderr): the test says it, not only how many
    assert failures == 0, result.stderr[-3000:]


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
