"""The cluster tier: one local cluster (a head, a CPU worker and two synthesis workers
as separate ``ray start`` processes, PostgreSQL as the ledger, ``serve deploy`` of
configs/gpu.yaml's application) shared by every test of the tier, stopped at the end
with nothing of it left running."""

from __future__ import annotations

import base64
import contextlib
import csv
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from serve_app.cluster import LocalCluster, State
from serve_app.cluster.__main__ import locust_command
from serve_app.cluster.config import APPLICATION
from serve_app.cluster.nodes import LAYOUT
from serve_app.http.sockets import free_port
from tests.s3_server import BUCKET, s3_server
from tests.service_logs import LOGS_DIR
from tests.waiting import HANG_S, wait_until

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Cluster:
    local: LocalCluster
    state: State
    key: str
    s3_endpoint: str  # where its long-form audio is kept: bucket BUCKET, under AUDIO_PREFIX

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


def free_ports(count: int) -> int:
    """The first of ``count`` consecutive ports nothing listens on: the nodes' proxies."""
    for _ in range(100):
        base = free_port()
        if base + count > 65535:
            continue
        try:
            for port in range(base, base + count):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base
    raise RuntimeError("no run of free ports")


ROOT_PREFIX = "ttsc-"
AUDIO_PREFIX = "cluster"
OWNER = "owner.pid"  # the pytest process that started the cluster under a root


def stop_leftovers() -> list[str]:
    """Stop the clusters of earlier runs of this tier whose pytest is gone (killed
    before its teardown could run: SIGKILL, a machine that lost its session) and
    remove their files; clusters of runs still going are left alone."""
    stopped = []
    for root in Path(tempfile.gettempdir()).glob(f"{ROOT_PREFIX}*"):
        with contextlib.suppress(OSError, ValueError):
            if psutil.pid_exists(int((root / OWNER).read_text())):
                continue
        local = LocalCluster(root)
        if local.state() is not None:
            local.down()
            stopped.append(str(root))
        shutil.rmtree(local.ray_dir, ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)
    return stopped


@contextlib.contextmanager
def interrupted_on_termination() -> Iterator[None]:
    """SIGTERM and SIGHUP (a CI job's timeout, a closed terminal) as Ctrl-C: pytest
    then tears its fixtures down, this tier's cluster included."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@pytest.fixture(scope="session")
def cluster(pytestconfig: pytest.Config) -> Iterator[Cluster]:
    left_over = stop_leftovers()
    if left_over:
        print(f"\nstopped clusters an interrupted run left: {left_over}")
    # A short root: Ray's Unix sockets live under it, and their paths have a limit.
    root = Path(tempfile.mkdtemp(prefix=ROOT_PREFIX))
    (root / OWNER).write_text(str(os.getpid()))
    local = LocalCluster(root)
    # a failed test's report shows what the replicas logged
    pytestconfig.stash[LOGS_DIR] = local.ray_dir / "session_latest" / "logs"
    started = time.monotonic()
    # Long-form audio in an S3-compatible store, as on a cluster whose nodes share no
    # disk: the nodes start with the store in their environment.
    with interrupted_on_termination(), s3_server() as endpoint, pytest.MonkeyPatch.context() as env:
        env.setenv("TTS_LONGFORM_AUDIO_PATH", f"s3://{BUCKET}/{AUDIO_PREFIX}")
        env.setenv("TTS_LONGFORM_S3_ENDPOINT_URL", endpoint)
        yield from _cluster(local, root, started, endpoint)


def _cluster(
    local: LocalCluster, root: Path, started: float, s3_endpoint: str
) -> Iterator[Cluster]:
    try:
        state = local.up(port=free_ports(len(LAYOUT)), dashboard_port=free_port())
        print(f"\nlocal cluster up in {time.monotonic() - started:.0f} s")
        yield Cluster(local, state, local.add_key(), s3_endpoint)
    finally:
        local.down()
        left = cluster_processes(local)
        assert not left, f"processes of the cluster left running: {left}"
        # Its files too (Ray's session logs are ~100 MB a run); kept when a process
        # was left, for what its logs say.
        shutil.rmtree(local.ray_dir, ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)


def cluster_processes(local: LocalCluster) -> list[str]:
    """Processes whose command line names the cluster's folders (nodes, PostgreSQL)."""
    marks = (str(local.root), str(local.ray_dir))
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        line = " ".join(process.info["cmdline"] or ())
        if any(m in line for m in marks) and process.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(line[:120])
    return found


@dataclass
class Stream:
    """What one SSE stream delivered and how it ended."""

    deltas: int = 0
    ended: str = ""  # done | <error code> | dropped
    cost: int = 0
    events: list[str] = field(default_factory=list)


def sse(
    url: str,
    auth: dict[str, str],
    body: dict[str, object],
    timeout: float = 120,
    first: threading.Event | None = None,
) -> Stream:
    """Read one SSE speech stream to its end (``first`` is set at its first audio)."""
    stream = Stream()
    try:
        with httpx.stream(
            "POST",
            url + "/v1/audio/speech",
            headers=auth,
            json={**body, "stream_format": "sse"},
            timeout=timeout,
        ) as response:
            if response.status_code != 200:
                response.read()
                stream.ended = f"http {response.status_code}: {response.text[:200]}"
                return stream
            for line in response.iter_lines():
                if not line.startswith("data: "):
                    continue
                data = json.loads(line.removeprefix("data: "))
                stream.events.append(str(data.get("type", "error" if "error" in data else "")))
                if data.get("type") == "audio.delta":
                    stream.deltas += len(base64.b64decode(data["delta"]))
                    if first is not None:
                        first.set()
                elif "error" in data:
                    stream.ended = data["error"]["code"]
                elif data.get("type") == "audio.done":
                    stream.ended = "done"
                    stream.cost = int(data["usage"]["cost_deci_micros"])
    except httpx.HTTPError as e:
        stream.ended = f"dropped: {e!r}"
    return stream


def application(cluster: Cluster) -> dict[str, Any]:
    """Serve's state of the cluster's application (its deployments and replicas)."""
    app: dict[str, Any] = cluster.local.serve_status().get("applications", {}).get(APPLICATION, {})
    return app


def serve_state(cluster: Cluster) -> str:
    """What the cluster's Serve application is doing, for a failed wait's message: each
    deployment's replicas by state (and node), and open holds in the ledger."""
    app = application(cluster)
    parts = [f"application {app.get('status', 'absent')}"]
    for name, deployment in app.get("deployments", {}).items():
        replicas = [
            f"{r.get('state')}@{r.get('node_id', '?')[:6]}" for r in deployment.get("replicas", [])
        ]
        parts.append(f"{name} [{deployment.get('status')}]: {', '.join(replicas) or 'none'}")
    with contextlib.suppress(Exception):
        parts.append(f"open holds: {open_holds(cluster)}")
    return "; ".join(parts)


def all_running(cluster: Cluster, deployment: str) -> bool:
    """Whether every replica of ``deployment`` is RUNNING (none starting, waiting for
    its node, or stopping), and there is one."""
    replicas = application(cluster).get("deployments", {}).get(deployment, {}).get("replicas", [])
    return bool(replicas) and all(r.get("state") == "RUNNING" for r in replicas)


def open_holds(cluster: Cluster) -> int:
    import psycopg

    with psycopg.connect(cluster.state.database_url) as db:
        row = db.execute("SELECT count(*) FROM holds WHERE state = 'open'").fetchone()
    return int(row[0]) if row else 0


def wait_for_holds_settled(cluster: Cluster, timeout_s: float = HANG_S) -> float:
    """Seconds until no hold is open in the ledger (fails the test past ``timeout_s``)."""
    return wait_until(
        lambda: open_holds(cluster) == 0,
        "every hold settled",
        timeout_s,
        interval_s=1,
        status=lambda: serve_state(cluster),
    )


def start_locust(cluster: Cluster, prefix: Path, users: int, seconds: int) -> subprocess.Popen[str]:
    """The bundled Locust users against the head's proxy, failing on any failure."""
    command = [
        *locust_command(cluster.state.url, users=users, seconds=seconds),
        "--csv",
        str(prefix),
        "--max-fail-ratio",
        "0",
        "--only-summary",
    ]
    env = {**os.environ, "TTS_API_KEY": cluster.key}
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def locust_totals(prefix: Path) -> tuple[int, int]:
    """Requests and failures of a Locust run, from its ``--csv`` stats."""
    rows = (prefix.parent / f"{prefix.name}_stats.csv").read_text().splitlines()
    total = next(line for line in rows if ",Aggregated," in line).split(",")
    return int(total[2]), int(total[3])


def locust_failures(prefix: Path) -> dict[str, int]:
    """Each failure of a Locust run (its request's name and error) and how often it
    happened, from its ``--csv`` failures."""
    with (prefix.parent / f"{prefix.name}_failures.csv").open(newline="") as rows:
        return {f"{r['Name']}: {r['Error']}": int(r["Occurrences"]) for r in csv.DictReader(rows)}


def at_capacity(error: str) -> bool:
    """The API's answer to a request that cannot begin in time: 503 overloaded, to
    retry (its first audio did not begin within ``first_audio_wait_s``), over HTTP or
    in a WebSocket's error frame."""
    over_http = "HTTP 503" in error and '"type":"overloaded_error"' in error
    return over_http or "error frame overloaded_error/" in error
