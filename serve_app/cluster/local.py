"""A Ray cluster on this machine: ``make cluster-up``, ``make cluster-down``.

``up`` starts PostgreSQL (the embedded server, on a socket in the cluster's folder)
as the ledger, the nodes of :data:`nodes.LAYOUT` as separate ``ray start``
processes, and ``serve deploy`` of configs/gpu.yaml with configs/local-cluster.yaml
over it, through the dashboard's address, as a user of a real cluster would. What
it started is written to ``<root>/cluster.json``; ``down`` stops all of it (the
application, then every node's process group, then PostgreSQL), whoever calls it.

Token authentication is on, as Ray 2.60's ``ray start --head`` wants it: the token
is in ``<root>/auth_token`` (mode 0600) and every node and CLI call is given its
path, never its value.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Container
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from serve_app.cluster.config import APPLICATION, local_cluster_config
from serve_app.cluster.nodes import LAYOUT, NodeSpec, alive, busy_nodes, start_node, stop_groups
from serve_app.cluster.postgres import start_postgres, stop_postgres
from serve_app.http.sockets import free_port, port_is_free
from serve_app.settings import CONFIGS

ROOT = CONFIGS.parent
DEFAULT_DIR = ROOT / "var" / "cluster"
DEFAULT_DASHBOARD_PORT = 8265
STARTING_BALANCE = 10_000 * 10_000_000  # USD 10,000 for the development key
HEAD_GRACE_S = 2.0  # SIGTERM to SIGKILL for the head, its workers stopped (down)


class ClusterError(RuntimeError):
    """The cluster did not reach the state asked of it; the message says where to look."""


@dataclass
class State:
    """What ``up`` started: enough for another process to reach and stop it."""

    port: int
    dashboard_port: int
    gcs_port: int
    database_url: str
    pgdata: str
    nodes: dict[str, int] = field(default_factory=dict)  # name -> process group

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def dashboard(self) -> str:
        return f"http://127.0.0.1:{self.dashboard_port}"

    def proxy_port(self, node: str) -> int:
        """``node``'s proxy: the head's is the cluster's port, each worker's the port
        after the one before it."""
        return self.port + [spec.name for spec in LAYOUT].index(node)

    def proxy_url(self, node: str) -> str:
        return f"http://127.0.0.1:{self.proxy_port(node)}"


class LocalCluster:
    """The cluster whose files are under ``root`` (default ``var/cluster``)."""

    def __init__(self, root: Path = DEFAULT_DIR) -> None:
        self.root = Path(root).resolve()
        self.state_file = self.root / "cluster.json"
        self.token_file = self.root / "auth_token"
        self.key_file = self.root / "dev_api_key"
        self.logs = self.root / "logs"
        # Ray's session files (its logs, its Unix sockets, whose paths have a limit of
        # ~100 bytes): a short folder of this cluster's own, apart from other Rays'.
        digest = hashlib.sha1(str(self.root).encode()).hexdigest()[:8]
        self.ray_dir = Path(tempfile.gettempdir()) / f"ray-cluster-{digest}"

    # -- state -------------------------------------------------------------------

    def state(self) -> State | None:
        if not self.state_file.exists():
            return None
        return State(**json.loads(self.state_file.read_text()))

    def _save(self, state: State) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.state_file.write_text(json.dumps(asdict(state), indent=2))

    def _require(self) -> State:
        state = self.state()
        if state is None:
            raise ClusterError(f"no cluster under {self.root}: make cluster-up first")
        return state

    def env(self, node: NodeSpec | None = None) -> dict[str, str]:
        """The environment of the cluster's processes and of CLI calls to it."""
        env = dict(os.environ)
        env.update(
            RAY_USAGE_STATS_ENABLED="0",
            RAY_AUTH_MODE="token",
            RAY_AUTH_TOKEN_PATH=str(self.token_file),
            # As cluster.yaml starts its nodes: our code on each replica's event loop,
            # gRPC between replicas, and a Serve proxy on every node (direct ingress
            # would leave one proxy, on the head, for the whole cluster).
            RAY_SERVE_THROUGHPUT_OPTIMIZED="1",
            RAY_SERVE_ENABLE_DIRECT_INGRESS="0",
            # Serve's controller looks at every deployment twice a second, not ten
            # times (as make run's does): 8% of a core idle here, 4.6% so; autoscaling
            # still decides within its metrics interval (1 s in local-cluster.yaml).
            RAY_SERVE_CONTROL_LOOP_INTERVAL_S="0.5",
            # Every process of every node takes 127.0.0.1 for this node's address, so
            # that Ray's servers listen on the loopback only (ray_start.py says how
            # worker nodes join all the same).
            RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0",
        )
        env.pop("RAY_ADDRESS", None)  # another cluster's
        env.pop("RAY_AUTH_TOKEN", None)  # ... and its token, which would win over ours
        env.pop("TTS_DEV_API_KEY", None)  # secrets never travel through Ray
        if node is not None and not node.head:
            state = self._require()
            env["RAY_SERVE_WORKER_PROXY_HTTP_PORT"] = str(state.proxy_port(node.name))
        return env

    # -- up and down ---------------------------------------------------------------

    def up(self, port: int = 8000, dashboard_port: int = DEFAULT_DASHBOARD_PORT) -> State:
        """Start everything and deploy; the state. Raises ClusterError when a cluster
        is already up here or a part does not start (its log is named)."""
        if self.state() is not None:
            raise ClusterError(f"a cluster is already up under {self.root}: make cluster-down")
        wanted = [port + i for i in range(len(LAYOUT))] + [dashboard_port]
        taken = [p for p in wanted if not port_is_free(p)]
        if taken:
            raise ClusterError(f"port {taken[0]} is in use (make run?): PORT=... make cluster-up")
        self.root.mkdir(parents=True, exist_ok=True)
        self.token_file.write_text(secrets.token_hex(32))
        self.token_file.chmod(0o600)
        pgdata = self.root / "postgres"
        database_url = start_postgres(pgdata)
        state = State(
            port=port,
            dashboard_port=dashboard_port,
            gcs_port=free_port(),
            database_url=database_url,
            pgdata=str(pgdata),
        )
        self._save(state)
        try:
            # One node after another: nodes of one host starting together race for
            # their session files' names, and some never register.
            for count, spec in enumerate(LAYOUT, start=1):
                self.start_node(spec.name)
                if spec.head:
                    self._wait_for_dashboard()
                self.wait_for_nodes(count)
            self.deploy()
        except BaseException:
            self.down()
            raise
        return self._require()

    def add_key(self, key: str | None = None) -> str:
        """``key`` (or a new one) as a key of project ``dev`` in the cluster's ledger
        (made with USD 10,000 if new): written to the database, never through Ray."""
        from serve_app.accounts import AccountStore, ensure_dev_project, new_key

        key = key or new_key(prefix="dev")
        store = AccountStore.open(self._require().database_url)
        try:
            ensure_dev_project(store, key, STARTING_BALANCE)
        finally:
            store.close()
        return key

    def down(self) -> None:
        """Stop every node (and the application with them) and PostgreSQL; forget the
        state. Safe to call again, and after a failed ``up``."""
        state = self.state()
        if state is None:
            return
        # The workers first, together, the head (GCS, Serve's controller) last; each
        # node drains what it runs as it stops, so no `serve shutdown` first (which
        # would wait for open streams up to the deployments' graceful shutdown, minutes).
        # With its workers gone the head has nothing to drain, and its processes do
        # not exit on SIGTERM within 10 s (GCS, raylet, controller, proxy, seen each second):
        # a short grace, then SIGKILL.
        stop_groups(pid for name, pid in state.nodes.items() if name != "head")
        if "head" in state.nodes:
            stop_groups([state.nodes["head"]], grace_s=HEAD_GRACE_S)
        stop_postgres(Path(state.pgdata))
        self.state_file.unlink()

    def start_node(self, name: str) -> int:
        """Start node ``name`` of the layout (again, after :meth:`stop_node`)."""
        state = self._require()
        spec = next(s for s in LAYOUT if s.name == name)
        pid = start_node(
            spec,
            gcs_port=state.gcs_port,
            dashboard_port=state.dashboard_port,
            env=self.env(spec),
            log=self.logs / f"{name}.log",
            cwd=ROOT,
            temp_dir=self.ray_dir,
        )
        state.nodes[name] = pid
        self._save(state)
        return pid

    def stop_node(self, name: str) -> None:
        """Stop node ``name``'s processes, and only those (``ray stop`` on its machine)."""
        state = self._require()
        stop_groups([state.nodes[name]])

    def busy_nodes_of(
        self, deployment: str, seconds: float = 0.5, among: Container[int] | None = None
    ) -> dict[str, float]:
        """CPU seconds the replicas of ``deployment`` (those of the pids ``among``, where
        given) on each node used over the next ``seconds``: the nodes where it is working
        now (speaking a stream), busiest first."""
        title = f"ray::ServeReplica:{APPLICATION}:{deployment}"
        return busy_nodes(self._require().nodes, title, seconds, among)

    def replica_states(self, deployment: str) -> dict[int, str]:
        """Each replica of ``deployment`` by its pid: its state (RUNNING, STARTING,
        STOPPING, ...), from Serve's state."""
        app = self.serve_status().get("applications", {}).get(APPLICATION, {})
        replicas = app.get("deployments", {}).get(deployment, {}).get("replicas", [])
        return {int(r["pid"]): str(r.get("state")) for r in replicas if r.get("pid")}

    # -- Ray and Serve through their CLIs --------------------------------------------

    def deploy(
        self,
        voices_path: str | None = None,
        timeout_s: float = 600.0,
        changes: dict[str, Any] | None = None,
    ) -> None:
        """``serve deploy`` of the local cluster's config (``changes``, in the shape of
        configs/local-cluster.yaml, over it) through the dashboard; returns when the
        application is RUNNING."""
        state = self._require()
        config = local_cluster_config(
            port=state.port,
            database_url=state.database_url,
            voices_path=voices_path,
            changes=changes,
        )
        path = self.root / "serve.yaml"
        path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
        self._serve("deploy", str(path))
        self.wait_until_running(timeout_s)

    def serve_status(self) -> dict[str, Any]:
        """Serve's state (proxies, applications, their deployments and replicas) from
        the dashboard's REST API, where ``serve status`` reads it: one HTTP call per
        poll, not a process that imports Ray each time."""
        return self._dashboard("/api/serve/applications/")

    def _dashboard(self, path: str) -> dict[str, Any]:
        """GET ``path`` of the dashboard's REST API (with the cluster's token)."""
        state = self._require()
        token = self.token_file.read_text().strip()
        request = urllib.request.Request(
            state.dashboard + path, headers={"Authorization": f"Bearer {token}"}
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                details: dict[str, Any] = json.loads(response.read())
        except (OSError, json.JSONDecodeError) as e:  # URLError is an OSError
            raise ClusterError(f"no answer from {state.dashboard}{path}: {e}") from e
        return details

    def replicas(self) -> dict[str, int]:
        """Running replicas of each deployment of the application."""
        app = self.serve_status().get("applications", {}).get(APPLICATION, {})
        return {
            name: sum(1 for r in d.get("replicas", []) if r.get("state") == "RUNNING")
            for name, d in app.get("deployments", {}).items()
        }

    def gpus(self) -> tuple[float, float]:
        """GPUs in use and in all, as ``ray status`` shows them (the synthesis nodes'
        are labels here: Ray schedules on the count it is told)."""
        state = self._require()
        ray = str(Path(sys.executable).parent / "ray")
        shown = _run(
            [ray, "status", f"--address=127.0.0.1:{state.gcs_port}"], self.env(), timeout=60
        )
        return gpu_usage(shown)

    def wait_until_running(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        status = "NOT_STARTED"
        while time.monotonic() < deadline:
            app = self.serve_status().get("applications", {}).get(APPLICATION, {})
            status = app.get("status", "NOT_STARTED")
            if status == "RUNNING":
                return
            if status == "DEPLOY_FAILED":
                raise ClusterError(f"serve deploy failed: {app.get('message', '')}")
            time.sleep(2)
        raise ClusterError(
            f"application {APPLICATION!r} still {status} after {timeout_s:.0f} s "
            f"(logs: {self.logs}, {self.ray_dir}/session_latest/logs)"
        )

    def wait_for_nodes(self, count: int, timeout_s: float = 120.0) -> None:
        """Until ``count`` nodes are alive in the cluster."""
        deadline = time.monotonic() + timeout_s
        seen = 0
        while time.monotonic() < deadline:
            seen = self.alive_nodes()
            if seen >= count:
                return
            time.sleep(1)
        raise ClusterError(f"{seen} of {count} nodes alive after {timeout_s:.0f} s ({self.logs})")

    def alive_nodes(self) -> int:
        """Nodes alive in the cluster, from the state API (what ``ray list nodes``
        reads); 0 while the dashboard does not answer yet."""
        try:
            listed = self._dashboard("/api/v0/nodes?limit=100")
        except ClusterError:
            return 0
        nodes = listed.get("data", {}).get("result", {}).get("result", [])
        return sum(1 for node in nodes if node.get("state") == "ALIVE")

    def _wait_for_dashboard(self, timeout_s: float = 120.0) -> None:
        state = self._require()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if not alive(state.nodes["head"]):
                raise ClusterError(f"the head node exited: {self.logs / 'head.log'}")
            try:
                with urllib.request.urlopen(f"{state.dashboard}/api/version", timeout=2):
                    return
            except urllib.error.HTTPError:  # it answers (401 without the token): up
                return
            except (urllib.error.URLError, OSError):
                time.sleep(0.5)
        raise ClusterError(f"no dashboard at {state.dashboard}: {self.logs / 'head.log'}")

    def _serve(self, *args: str, check: bool = True, timeout: float = 300) -> str:
        state = self._require()
        return _run(
            [str(Path(sys.executable).parent / "serve"), *args, f"--address={state.dashboard}"],
            self.env(),
            check=check,
            timeout=timeout,
        )


def _run(command: list[str], env: dict[str, str], *, check: bool = True, timeout: float) -> str:
    try:
        done = subprocess.run(
            command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired as e:
        if check:
            raise ClusterError(f"{' '.join(command[:2])} took over {timeout:.0f} s") from e
        return ""
    if check and done.returncode != 0:
        raise ClusterError(f"{' '.join(command[:2])} failed:\n{done.stderr[-2000:]}")
    return done.stdout


def gpu_usage(status: str) -> tuple[float, float]:
    """(in use, in all) from ``ray status``'s usage line ``0.5/2.0 GPU``; (0, 0) if none."""
    found = re.search(r"([\d.]+)/([\d.]+) GPU\b", status)
    return (float(found[1]), float(found[2])) if found else (0.0, 0.0)
