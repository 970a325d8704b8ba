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


def test_locust_records_time_to_first_audio_for_every_transport(
    service: Service, tmp_path: Path
) -> None:
    result = locust(service, tmp_path / "load", "--max-fail-ratio", "0")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    with open(tmp_path / "load_stats.csv", newline="") as f:
        rows = {(r["Type"], r["Name"]): r for r in csv.DictReader(f)}
    ttfa = {name for kind, name in rows if kind == "TTFA"}
    assert ttfa, rows.keys()
    assert all(int(rows[("TTFA", name)]["Request Count"]) > 0 for name in ttfa)
    assert int(rows[("", "Aggregated")]["Failure Count"]) == 0


def test_a_broken_threshold_fails_the_run(service: Service, tmp_path: Path) -> None:
    result = locust(service, tmp_path / "strict", "--max-ttfa-p95-ms", "0.001")
    assert result.returncode == 1
    assert "THRESHOLD FAILED" in result.stdout + result.stderr
