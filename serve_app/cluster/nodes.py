"""The nodes of the local cluster: each one ``ray start --block`` process of its own.

A real cluster (cluster.yaml, configs/rayservice.yaml) has a head that runs Ray's
control plane and Serve's controller and no replicas, CPU workers that offer the
``cpu_worker`` resource (Ingress, TextNormaliser, AudioEncoder) and GPU workers
(Synthesiser). The local cluster has the same groups on one host: the head, one
CPU worker and two synthesis workers that declare one GPU each (Ray schedules on
the count a node declares; configs/local-cluster.yaml tells the engines to use the
CPU). Two synthesis nodes, so that one can be lost while the other serves.

Every node listens on 127.0.0.1 with ports of its own, and its proxy (Serve runs
one on every node) on a port of its own: the head's is the cluster's port, the
workers' the ports after it. Each node's processes share one process group,
started by us: stopping a node is signalling that group, as ``ray stop`` would do
on a machine of its own.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from serve_app.http.sockets import free_port

# The cluster's processes, on 2 cores: each node a raylet and its agents, so keep
# the object store small (audio and text are kilobytes) and the workers few.
OBJECT_STORE_BYTES = 128 * 1024 * 1024


@dataclass(frozen=True)
class NodeSpec:
    """One node: its name, group and what it offers the scheduler."""

    name: str
    group: str  # head | cpu_worker | gpu_worker
    num_cpus: float
    num_gpus: int = 0
    resources: Mapping[str, float] = field(default_factory=dict)

    @property
    def head(self) -> bool:
        return self.group == "head"


# The cluster.yaml groups in miniature. CPUs here are scheduling units, not cores:
# replicas ask for fractions (configs/local-cluster.yaml).
LAYOUT = (
    NodeSpec("head", "head", num_cpus=0),
    NodeSpec("cpu-1", "cpu_worker", num_cpus=2, resources={"cpu_worker": 8}),
    NodeSpec("gpu-1", "gpu_worker", num_cpus=1, num_gpus=1),
    NodeSpec("gpu-2", "gpu_worker", num_cpus=1, num_gpus=1),
)


NODE_IP = "127.0.0.1"


def ray_command() -> list[str]:
    """``ray`` with every node kept on 127.0.0.1 (:mod:`serve_app.cluster.ray_start`)."""
    return [sys.executable, "-m", "serve_app.cluster.ray_start"]


def start_command(spec: NodeSpec, gcs_port: int, dashboard_port: int, temp_dir: Path) -> list[str]:
    """``ray start --block`` for ``spec``, every port of its own, its session files
    (logs, sockets) under ``temp_dir``."""
    command = [
        *ray_command(),
        "start",
        "--block",
        f"--node-ip-address={NODE_IP}",
        f"--num-cpus={int(spec.num_cpus)}",
        f"--num-gpus={spec.num_gpus}",
        f"--object-store-memory={OBJECT_STORE_BYTES}",
        f"--node-manager-port={free_port()}",
        f"--object-manager-port={free_port()}",
        f"--dashboard-agent-listen-port={free_port()}",
        f"--dashboard-agent-grpc-port={free_port()}",
        f"--runtime-env-agent-port={free_port()}",
        f"--metrics-export-port={free_port()}",
        f"--temp-dir={temp_dir}",
    ]
    if spec.resources:
        command.append(f"--resources={json.dumps(dict(spec.resources))}")
    if spec.head:
        command += [
            "--head",
            f"--port={gcs_port}",
            "--include-dashboard=true",
            "--dashboard-host=127.0.0.1",
            f"--dashboard-port={dashboard_port}",
            f"--ray-client-server-port={free_port()}",
        ]
    else:
        # Every node writes its logs into the one session folder under ``temp_dir``,
        # which the head's log monitor already reads; one on each node read every line
        # again, each sent to the GCS once per node (Ray: one log monitor a host).
        command += [f"--address={NODE_IP}:{gcs_port}", "--include-log-monitor=false"]
    return command


def start_node(
    spec: NodeSpec,
    *,
    gcs_port: int,
    dashboard_port: int,
    env: Mapping[str, str],
    log: Path,
    cwd: Path,
    temp_dir: Path,
) -> int:
    """Start ``spec`` in a session (and process group) of its own; its pid."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        process = subprocess.Popen(
            start_command(spec, gcs_port, dashboard_port, temp_dir),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,
        )
    return process.pid


def alive(pid: int) -> bool:
    try:
        os.killpg(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def stop_groups(pids: Iterable[int], grace_s: float = 10.0) -> None:
    """SIGTERM to every process of the groups ``pids`` lead (what ``ray stop`` sends),
    SIGKILL to whatever is left of them after ``grace_s``: one grace for them all."""
    left = set(pids)
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
        for pid in list(left):
            try:
                os.killpg(pid, sig)
            except ProcessLookupError:
                left.discard(pid)
        deadline = time.monotonic() + wait_s
        while left and time.monotonic() < deadline:
            for pid in list(left):
                _reap(pid)
                if not alive(pid):
                    left.discard(pid)
            time.sleep(0.1)
        if not left:
            return


def _reap(pid: int) -> None:
    """Collect ``pid``'s exit status where it is our child (it is in the process that
    started it), so that it does not linger as a zombie of the group."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def busy_nodes(
    nodes: Mapping[str, int], title: str, seconds: float, among: Container[int] | None = None
) -> dict[str, float]:
    """CPU seconds that the processes whose command line starts with ``title`` (of the
    pids ``among``, where given) used over the next ``seconds``, summed by the node
    (name: its ``ray start`` pid in ``nodes``) they descend from (through its raylet),
    busiest first."""
    import psutil

    names = {pid: name for name, pid in nodes.items()}
    found: list[tuple[str, psutil.Process]] = []
    for process in psutil.process_iter(["cmdline"]):
        if among is not None and process.pid not in among:
            continue
        if " ".join(process.info["cmdline"] or ()).startswith(title):
            with contextlib.suppress(psutil.Error):
                found += [(names[p.pid], process) for p in process.parents() if p.pid in names]

    def used(process: psutil.Process) -> float:
        with contextlib.suppress(psutil.Error):
            return float(sum(process.cpu_times()[:2]))
        return 0.0

    before = [(node, process, used(process)) for node, process in found]
    time.sleep(seconds)
    totals: dict[str, float] = {}
    for node, process, start in before:
        totals[node] = totals.get(node, 0.0) + max(0.0, used(process) - start)
    return dict(sorted(totals.items(), key=lambda item: -item[1]))
