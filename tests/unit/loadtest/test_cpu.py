"""The bench's CPU accounting, on a real process that burns a known amount of CPU."""

from __future__ import annotations

import subprocess
import sys
import time

from loadtest import cpu
from loadtest.report import cpu_table
from loadtest.traffic import LevelResult

BURN = "while True: pass"


def test_a_process_s_cpu_is_counted_to_its_part() -> None:
    # the command line carries the baseline server's mark, as its own does
    process = subprocess.Popen([sys.executable, "-c", BURN, "loadtest.kokoro_baseline"])
    try:
        time.sleep(0.2)  # started
        before = cpu.snapshot()
        started = time.monotonic()
        time.sleep(0.5)
        after = cpu.snapshot()
        wall = time.monotonic() - started
    finally:
        process.kill()
        process.wait()
    spent = cpu.per_request_ms(before, after, requests=2)
    # a busy loop: up to a core for the time between the snapshots, over 2 requests
    assert 0.1 * wall * 1000 / 2 < spent["baseline server"] <= 1.2 * wall * 1000 / 2
    assert "Synthesiser" not in spent


def test_the_cpu_table_sums_the_service_s_stages() -> None:
    ours = LevelResult(4, cpu_ms={"Synthesiser": 700.0, "Ingress": 20.0, "bench client": 5.0})
    theirs = LevelResult(4, cpu_ms={"baseline server": 640.0})
    row = cpu_table([ours], [theirs]).splitlines()[-1]
    assert row == "| 4 | 700 | 20 | 0 | 0 | 0 | 0 | 720 | 640 | 5 |"
