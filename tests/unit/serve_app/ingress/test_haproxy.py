"""The HAProxy in front: its own files and ports, a hardened config, JSON answers, and
nothing left behind."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from deployments.ray_adapters.haproxy_template import rendered_config
from serve_app.ingress.haproxy import (
    ANSWERS,
    CLOSED,
    OWNER_FILE,
    STATE_PREFIX,
    ProxyLimits,
    haproxy_binary,
    haproxy_wrapper,
    harden,
    remove_stale_states,
    stop_haproxy,
    use_haproxy,
    write_error_files,
)

HAPROXY_VARIABLES = [
    "RAY_SERVE_ENABLE_HA_PROXY",
    "RAY_SERVE_HAPROXY_CONFIG_FILE_LOC",
    "RAY_SERVE_HAPROXY_SOCKET_PATH",
    "RAY_SERVE_HAPROXY_SERVER_STATE_BASE",
    "RAY_SERVE_HAPROXY_SERVER_STATE_FILE",
    "RAY_SERVE_HAPROXY_METRICS_SOCKET_PATH",
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
    # every file of it in the run's own directory, which only its user may enter
    assert all(first_env[name].startswith(first) for name in HAPROXY_VARIABLES if "PATH" in name)
    assert Path(first).stat().st_mode & 0o077 == 0
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


def test_a_killed_run_s_directory_is_removed_at_the_next_start() -> None:
    """A run that was killed left its directory: the next start removes it, but not
    the directory of a run whose HAProxy still runs, nor one whose maker is alive."""
    killed = Path(tempfile.mkdtemp(prefix=STATE_PREFIX))
    (killed / OWNER_FILE).write_text("999999999")
    running = Path(tempfile.mkdtemp(prefix=STATE_PREFIX))
    starting = Path(tempfile.mkdtemp(prefix=STATE_PREFIX))
    (starting / OWNER_FILE).write_text(str(os.getpid()))
    process = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", str(running / "haproxy.cfg")]
    )
    try:
        assert remove_stale_states() >= 1
        assert not killed.exists() and running.exists() and starting.exists()
    finally:
        process.kill()
        process.wait()
        stop_haproxy(str(running))
        stop_haproxy(str(starting))


def test_the_hardened_config_is_valid_and_has_every_limit(tmp_path: Path) -> None:
    write_error_files(tmp_path)
    limits = ProxyLimits()
    hardened = harden(rendered_config(tmp_path), str(tmp_path), ("8404", "9101"), limits)
    assert harden(hardened, str(tmp_path), ("8404", "9101"), limits) == hardened  # idempotent
    lines = [line.split("#")[0].strip() for line in hardened.splitlines()]
    for expected in (
        "timeout http-request 10s",
        "timeout client 60s",
        "timeout http-keep-alive 15s",
        "timeout tunnel 200s",
        "tune.sndbuf.client 131072",
        "tune.rcvbuf.server 131072",
        "http-request set-header X-Forwarded-For %[src]",
        "http-request set-header X-Client-HTTP-Version %[req.ver]",
        "http-request deny deny_status 429 if { sc0_conn_cur gt 512 }",
        "http-request deny deny_status 405 unless"
        " { method GET HEAD POST PUT PATCH DELETE OPTIONS }",
        "tcp-request connection reject if { sc0_conn_cur gt 1024 }",
        *(f"errorfile {status} {tmp_path}/{status}.http" for status in ANSWERS),
        *(f"errorfile {status} {tmp_path}/closed.http" for status in CLOSED),
    ):
        assert lines.count(expected) == 1, expected
    assert "timeout client 3600s" not in lines
    sockets = [line for line in lines if line.startswith("stats socket ")]
    assert sockets and all(" mode 600 " in line for line in sockets)
    assert not re.search(r"return status [45]\d\d content-type text/plain", hardened)
    assert not any(line.startswith("bind") and (":8404" in line or ":9101" in line)
                   and "127.0.0.1" not in line for line in lines)  # fmt: skip
    binary = haproxy_binary()
    if binary is None:
        pytest.skip("no HAProxy binary to check the config with")
    (tmp_path / "hardened.cfg").write_text(hardened)
    checked = subprocess.run(
        [binary, "-c", "-f", str(tmp_path / "hardened.cfg")], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("status", ANSWERS)
def test_every_answer_of_the_proxy_is_the_api_error_shape(tmp_path: Path, status: int) -> None:
    write_error_files(tmp_path)
    head, _, body = (tmp_path / f"{status}.http").read_bytes().partition(b"\r\n\r\n")
    error = json.loads(body)["error"]
    assert set(error) == {"message", "type", "code", "param", "request_id"}
    assert (tmp_path / f"{status}.json").read_bytes() == body
    assert f"Content-Length: {len(body)}".encode() in head
    assert b"Content-Type: application/json" in head
    if status in (502, 503, 504):  # no replica could answer: retry
        assert head.startswith(b"HTTP/1.1 503") and error["code"] == "not_ready"
    if status == 429:
        assert error["code"] == "rate_limited" and b"Retry-After: 1" in head
    assert (tmp_path / "closed.http").read_bytes() == b""  # closed without an answer


def test_the_wrapper_hardens_the_config_then_runs_haproxy(tmp_path: Path) -> None:
    """Run with ``echo`` standing in for HAProxy, on a config as Ray 2.60 writes it."""
    config = tmp_path / "haproxy.cfg"
    config.write_text(
        "defaults\n    timeout client 3600s\n"
        "frontend prometheus\n    bind :9101\n"
        "frontend http_frontend\n    bind *:8000\n"
        "listen stats\n  bind *:8404\n  bind *:84040\n"
    )
    wrapper = haproxy_wrapper(str(tmp_path), "/bin/echo", ("8404", "9101"), ProxyLimits())
    ran = subprocess.run([wrapper, "-db", "-f", str(config)], capture_output=True, text=True)
    assert ran.stdout.split() == ["-db", "-f", str(config)]  # the real binary's arguments
    text = config.read_text()
    binds = [line.strip() for line in text.splitlines() if "bind" in line]
    # the service's own port keeps the host it was given; other ports are not touched
    assert binds == ["bind 127.0.0.1:9101", "bind *:8000", "bind 127.0.0.1:8404", "bind *:84040"]
    assert "timeout http-request 10s" in text and "3600s" not in text
    assert "X-Forwarded-For %[src]" in text
