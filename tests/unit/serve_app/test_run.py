"""``make run``'s HAProxy setup: its own files and ports, and nothing left behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from serve_app.run import stop_haproxy, use_haproxy

HAPROXY_VARIABLES = [
    "RAY_SERVE_ENABLE_HA_PROXY",
    "RAY_SERVE_HAPROXY_CONFIG_FILE_LOC",
    "RAY_SERVE_HAPROXY_SOCKET_PATH",
    "RAY_SERVE_HAPROXY_SERVER_STATE_BASE",
    "RAY_SERVE_HAPROXY_SERVER_STATE_FILE",
    "RAY_SERVE_HAPROXY_STATS_PORT",
    "RAY_SERVE_HAPROXY_METRICS_PORT",
]


@pytest.fixture
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in HAPROXY_VARIABLES:  # whatever the test sets is undone after it
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)


@pytest.mark.usefixtures("clean_environment")
def test_two_runs_get_their_own_haproxy_files_and_ports() -> None:
    first = use_haproxy()
    first_env = {name: os.environ[name] for name in HAPROXY_VARIABLES}
    for name in HAPROXY_VARIABLES:
        del os.environ[name]
    second = use_haproxy()
    assert first is not None and second is not None and first != second
    assert os.environ["RAY_SERVE_ENABLE_HA_PROXY"] == "1"
    assert first_env["RAY_SERVE_HAPROXY_CONFIG_FILE_LOC"].startswith(first)
    assert os.environ["RAY_SERVE_HAPROXY_CONFIG_FILE_LOC"].startswith(second)
    assert first_env["RAY_SERVE_HAPROXY_STATS_PORT"] != first_env["RAY_SERVE_HAPROXY_METRICS_PORT"]
    for state in (first, second):
        stop_haproxy(state)
        assert not Path(state).exists()


def test_stopping_ends_the_process_that_uses_the_run_directory(tmp_path: Path) -> None:
    state = tmp_path / "tts-haproxy-test"
    state.mkdir()
    # Stands in for HAProxy: a process whose command line names the run's files.
    process = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", str(state / "haproxy.cfg")]
    )
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        stop_haproxy(str(state))
        assert process.wait(timeout=10) != 0  # terminated, not finished
        assert bystander.poll() is None
        assert not state.exists()
    finally:
        for p in (process, bystander):
            p.kill()
            p.wait()
