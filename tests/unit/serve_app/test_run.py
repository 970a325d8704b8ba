"""``make run``'s HAProxy setup: its own files and ports, and nothing left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from serve_app.run import haproxy_wrapper, stop_haproxy, use_haproxy

HAPROXY_VARIABLES = [
    "RAY_SERVE_ENABLE_HA_PROXY",
    "RAY_SERVE_HAPROXY_CONFIG_FILE_LOC",
    "RAY_SERVE_HAPROXY_SOCKET_PATH",
    "RAY_SERVE_HAPROXY_SERVER_STATE_BASE",
    "RAY_SERVE_HAPROXY_SERVER_STATE_FILE",
    "RAY_SERVE_HAPROXY_STATS_PORT",
    "RAY_SERVE_HAPROXY_METRICS_PORT",
    "RAY_SERVE_HAPROXY_BINARY_PATH",
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


def test_the_haproxy_wrapper_rebinds_stats_and_exporter_and_answers_in_json(
    tmp_path: Path,
) -> None:
    """Run with ``echo`` standing in for HAProxy, on a config as Ray 2.60 writes it."""
    config = tmp_path / "haproxy.cfg"
    config.write_text(
        "frontend prometheus\n    bind :9101\n"
        "frontend http_frontend\n    bind *:8000\n"
        "listen stats\n  bind *:8404\n  bind *:84040\n"
    )
    (tmp_path / "500.http").write_text("HTTP/1.1 500 Internal Server Error\r\n\r\nplain")
    wrapper = haproxy_wrapper(str(tmp_path), "/bin/echo", ("8404", "9101"))
    ran = subprocess.run([wrapper, "-db", "-f", str(config)], capture_output=True, text=True)
    assert ran.stdout.split() == ["-db", "-f", str(config)]  # the real binary's arguments
    binds = [line.strip() for line in config.read_text().splitlines() if "bind" in line]
    # the service's own port keeps the host it was given; other ports are not touched
    assert binds == ["bind 127.0.0.1:9101", "bind *:8000", "bind 127.0.0.1:8404", "bind *:84040"]
    head, _, body = (tmp_path / "500.http").read_bytes().partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 503") and b"Retry-After: 1" in head
    assert json.loads(body)["error"]["code"] == "not_ready"
    assert f"Content-Length: {len(body)}".encode() in head
