"""The service measured on one machine from a cluster's Serve config."""

from __future__ import annotations

from pathlib import Path

import yaml

from loadtest.service_streams import one_machine

CONFIGS = Path(__file__).resolve().parents[3] / "configs"


def test_a_cluster_config_is_placed_on_one_machine_without_its_node_resources(
    tmp_path: Path,
) -> None:
    source = CONFIGS / "gpu.yaml"
    placed = yaml.safe_load(one_machine(source, tmp_path).read_text())
    original = yaml.safe_load(source.read_text())
    deployments = placed["applications"][0]["deployments"]
    before = {d["name"]: d for d in original["applications"][0]["deployments"]}
    assert any("resources" in d.get("ray_actor_options", {}) for d in before.values())
    for deployment in deployments:
        options = deployment.get("ray_actor_options", {})
        assert "resources" not in options
        kept = dict(before[deployment["name"]]["ray_actor_options"])
        kept.pop("resources", None)
        assert options == kept  # CPUs and the Synthesiser's GPU as they were
    assert placed["applications"][0]["args"] == original["applications"][0]["args"]
