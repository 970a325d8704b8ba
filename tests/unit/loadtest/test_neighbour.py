"""The noisy neighbour of make test-busy: it works beside a command, the command's exit
status is the run's, and nothing of it outlives the command or its own process."""

from __future__ import annotations

import signal
import subprocess
import sys

import psutil

from loadtest.neighbour import Neighbours, run
from tests.waiting import wait_until


def test_the_neighbours_work_beside_the_command_and_stop_with_it() -> None:
    neighbours = Neighbours(cpu=1, memory=1, seconds=60, buffer_mib=8, duty=0.5)
    code = "import time, sys; time.sleep(0.5); sys.exit(3)"
    assert run([sys.executable, "-c", code], neighbours) == 3
    pids = neighbours.pids()
    assert len(pids) == 2
    assert not [pid for pid in pids if psutil.pid_exists(pid)], "a neighbour outlived the run"
    report = neighbours.report()
    assert report.startswith("cpu ") and "memory " in report and " MiB/s" in report
    assert "cpu 0 loops/s" not in report and "memory 0 MiB/s" not in report


def test_the_neighbours_and_the_command_stop_when_their_process_is_killed() -> None:
    """SIGKILL leaves no handler to stop them: the kernel's parent-death signal does."""
    wrapper = subprocess.Popen(
        [sys.executable, "-m", "loadtest.neighbour", "--buffer-mib", "8", "--", "sleep", "60"]
    )
    try:
        process = psutil.Process(wrapper.pid)
        wait_until(lambda: len(process.children()) == 3, "the command and two neighbours", 60)
        started = process.children()
        wrapper.send_signal(signal.SIGKILL)
        wrapper.wait()
        _, alive = psutil.wait_procs(started, timeout=30)
        assert not alive, f"left running: {alive}"
    finally:
        if wrapper.poll() is None:
            wrapper.kill()
