"""A py-spy recording summed as the GPU run prints it."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from loadtest.profile import record, top

RAW = """\
thread (1): synth-0;run (threading.py:10);forward (decoder.py:169) 6
thread (1): synth-0;run (threading.py:10);forward (decoder.py:150);conv (conv.py:3) 3
thread (2): MainThread;select (selectors.py:468) 1
"""


def test_the_table_gives_each_frame_its_share_by_line_and_by_function() -> None:
    table = top(RAW)
    assert table.startswith("10 samples")
    assert "      9  90.0%  thread (1): synth-0" in table
    assert "      6  60.0%  forward (decoder.py:169)" in table  # self, by line
    assert "      9  90.0%  forward (decoder.py)" in table  # inclusive, both lines
    assert "      1  10.0%  select (selectors.py)" in table
    assert top("") == "no samples"


def test_a_real_recording_of_this_process_sums(tmp_path: Path) -> None:
    raw = tmp_path / "raw.txt"
    spy = record(os.getpid(), 1, raw, rate=100)
    if spy is None:
        pytest.skip("py-spy is not installed")
    until = time.perf_counter() + 1.5
    while time.perf_counter() < until:
        sum(i * i for i in range(1000))
    _, error = spy.communicate(timeout=30)
    assert spy.returncode == 0, error
    assert "test_a_real_recording_of_this_process_sums (" in top(raw.read_text())
