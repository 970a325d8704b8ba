"""The local cluster's Serve config is configs/gpu.yaml's application with smaller numbers."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from serve_app.cluster.config import GPU_CONFIG, local_cluster_config, merged
from serve_app.cluster.nodes import LAYOUT, start_command


def derived() -> dict:
    return local_cluster_config(port=8123, database_url="postgresql://u@/db?host=/run/x")


def deployments(config: dict) -> dict[str, dict]:
    return {d["name"]: d for d in config["applications"][0]["deployments"]}


def test_merged_replaces_leaves_and_merges_mappings() -> None:
    base = {"a": {"b": 1, "c": [1, 2]}, "d": 1}
    assert merged(base, {"a": {"c": [3]}, "e": 2}) == {"a": {"b": 1, "c": [3]}, "d": 1, "e": 2}
    assert base == {"a": {"b": 1, "c": [1, 2]}, "d": 1}  # not changed in place


def test_the_same_deployments_and_placement_rules_as_the_gpu_config() -> None:
    gpu = yaml.safe_load(GPU_CONFIG.read_text())
    ours, theirs = deployments(derived()), deployments(gpu)
    assert ours.keys() == theirs.keys()
    for name, deployment in ours.items():
        options, real = deployment["ray_actor_options"], theirs[name]["ray_actor_options"]
        # The same kinds of resources: CPU stages on cpu_worker nodes, the Synthesiser
        # on a GPU; only the amounts are smaller.
        assert options.get("resources", {}).keys() == real.get("resources", {}).keys(), name
        assert ("num_gpus" in options) == ("num_gpus" in real), name
        assert "autoscaling_config" in deployment, name
    app, real_app = derived()["applications"][0], gpu["applications"][0]
    assert app["args"]["placement"] == real_app["args"]["placement"]
    assert app["import_path"] == real_app["import_path"]
    assert derived()["proxy_location"] == gpu["proxy_location"] == "EveryNode"


def test_what_only_the_running_cluster_knows_is_filled_in() -> None:
    config = derived()
    assert config["http_options"] == {"host": "127.0.0.1", "port": 8123}
    env = config["applications"][0]["runtime_env"]["env_vars"]
    assert env["TTS_DATABASE_URL"] == "postgresql://u@/db?host=/run/x"
    engines = config["applications"][0]["args"]["synthesiser"]["engines"]
    assert {options.get("device") for options in engines.values() if "device" in options} == {"cpu"}
    assert engines["piper"]["use_cuda"] is False
    other = local_cluster_config(port=1, database_url="x", voices_path="/tmp/v.yaml")
    assert other["applications"][0]["args"]["synthesiser"]["voices_path"] == "/tmp/v.yaml"


def test_an_override_of_a_deployment_gpu_yaml_lacks_fails_early(tmp_path: Path) -> None:
    overrides = tmp_path / "over.yaml"
    overrides.write_text("deployments:\n  - name: Ingres\n    max_ongoing_requests: 1\n")
    with pytest.raises(ValueError, match="Ingres"):
        local_cluster_config(port=1, database_url="x", overrides=overrides)


def test_each_node_has_ports_of_its_own_on_the_loopback(tmp_path: Path) -> None:
    commands = [start_command(spec, 6390, 8265, tmp_path) for spec in LAYOUT]
    assert all("--node-ip-address=127.0.0.1" in command for command in commands)
    ports = [
        arg.split("=")[1]
        for command in commands
        for arg in command
        if arg.startswith("--") and "-port=" in arg and not arg.startswith(("--port", "--dash"))
    ]
    assert len(ports) == len(set(ports))  # no two nodes share a port
    head, *workers = commands
    assert "--head" in head and "--num-cpus=0" in head  # no replica on the head
    assert all("--address=127.0.0.1:6390" in command for command in workers)
    # one session folder for all: the head's log monitor reads it, no other
    assert "--include-log-monitor=false" not in head
    assert all("--include-log-monitor=false" in command for command in workers)
    gpu = [c for spec, c in zip(LAYOUT, commands, strict=True) if spec.group == "gpu_worker"]
    assert len(gpu) == 2 and all("--num-gpus=1" in c for c in gpu)


def test_changes_go_over_the_overrides() -> None:
    changes = {
        "args": {"ingress": {"longform_chunks_at_once": 1}},
        "deployments": [{"name": "Ingress", "autoscaling_config": {"max_replicas": 1}}],
    }
    config = local_cluster_config(port=1, database_url="x", changes=changes)
    app = config["applications"][0]
    ingress = next(d for d in app["deployments"] if d["name"] == "Ingress")
    assert ingress["autoscaling_config"]["max_replicas"] == 1
    assert ingress["autoscaling_config"]["target_ongoing_requests"] == 2  # the overrides'
    assert app["args"]["ingress"] == {"max_active_requests": 32, "longform_chunks_at_once": 1}
    with pytest.raises(ValueError, match="Ingres"):
        unknown = {"deployments": [{"name": "Ingres"}]}
        local_cluster_config(port=1, database_url="x", changes=unknown)
