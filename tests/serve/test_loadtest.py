"""Locust's CLI against the running service: a short, bounded run with no failures."""

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


def test_locust_run_records_time_to_first_audio(service: Service, tmp_path: Path) -> None:
    prefix = tmp_path / "load"
    env = {**os.environ, "TTS_API_KEY": service.key}
    result = subprocess.run(
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
            "6s",
            "--csv",
            str(prefix),
            "--only-summary",
            "--stop-timeout",
            "5",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    with open(f"{prefix}_stats.csv", newline="") as f:
        rows = {(r["Type"], r["Name"]): r for r in csv.DictReader(f)}
    ttfa = [r for (kind, _), r in rows.items() if kind == "TTFA"]
    assert ttfa and all(int(r["Request Count"]) > 0 for r in ttfa)
    assert int(rows[("", "Aggregated")]["Failure Count"]) == 0
