"""What the local cluster gives its nodes and CLI calls, read without starting one."""

from __future__ import annotations

from pathlib import Path

import pytest

from serve_app.cluster.local import ClusterError, LocalCluster, State, gpu_usage
from serve_app.cluster.nodes import LAYOUT


def saved(tmp_path: Path) -> LocalCluster:
    cluster = LocalCluster(tmp_path)
    state = State(
        port=9000,
        dashboard_port=9265,
        gcs_port=9379,
        database_url="postgresql://u@/db?host=/run/x",
        pgdata=str(tmp_path / "postgres"),
        nodes={"head": 11, "cpu-1": 12},
    )
    cluster._save(state)
    return cluster


def test_each_node_proxy_has_its_port(tmp_path: Path) -> None:
    state = saved(tmp_path).state()
    assert state is not None
    assert [state.proxy_port(spec.name) for spec in LAYOUT] == [9000, 9001, 9002, 9003]
    assert state.url == "http://127.0.0.1:9000" and state.dashboard == "http://127.0.0.1:9265"


def test_no_secret_and_no_other_cluster_reach_the_nodes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TTS_DEV_API_KEY", "sk-proj-secret")
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.1:6379")
    monkeypatch.setenv("RAY_AUTH_TOKEN", "another-clusters-token")
    cluster = saved(tmp_path)
    head, worker = LAYOUT[0], LAYOUT[1]
    env = cluster.env(head)
    assert "TTS_DEV_API_KEY" not in env and "RAY_ADDRESS" not in env
    # The token by path, never by value; the same mode for nodes and CLI calls.
    assert env["RAY_AUTH_MODE"] == "token"
    assert env["RAY_AUTH_TOKEN_PATH"] == str(cluster.token_file)
    assert "RAY_AUTH_TOKEN" not in env
    # Serve's proxy on every node, each on its own port (the head's is the config's).
    assert env["RAY_SERVE_ENABLE_DIRECT_INGRESS"] == "0"
    assert "RAY_SERVE_WORKER_PROXY_HTTP_PORT" not in env
    assert cluster.env(worker)["RAY_SERVE_WORKER_PROXY_HTTP_PORT"] == "9001"


def test_commands_without_a_cluster_say_so(tmp_path: Path) -> None:
    cluster = LocalCluster(tmp_path / "none")
    assert cluster.state() is None
    cluster.down()  # nothing to stop: no error
    with pytest.raises(ClusterError, match="make cluster-up"):
        cluster.stop_node("gpu-1")


def test_a_second_up_over_a_running_cluster_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ClusterError, match="already up"):
        saved(tmp_path).up()


def test_up_refuses_a_port_already_served(tmp_path: Path) -> None:
    import socket

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        with pytest.raises(ClusterError, match="is in use"):
            LocalCluster(tmp_path).up(port=port - 1, dashboard_port=port + 50)
    assert LocalCluster(tmp_path).state() is None  # nothing started


def test_gpus_in_use_are_read_from_ray_status() -> None:
    shown = """======== Autoscaler status: 2026-11-26 10:40:00 ========
Node status
---------------------------------------------------------------
Active:
 1 node_0f3a
 1 node_7b21
Resources
---------------------------------------------------------------
Total Usage:
 0.85/2.0 CPU
 1.0/2.0 GPU
 3.0/8.0 cpu_worker
 0B/9.31GiB memory
"""
    assert gpu_usage(shown) == (1.0, 2.0)
    assert gpu_usage(shown.replace("1.0/2.0 GPU", "0.0/2.0 GPU")) == (0.0, 2.0)
    assert gpu_usage("Total Usage:\n 0.0/2.0 CPU\n") == (0.0, 0.0)
