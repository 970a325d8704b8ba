"""The Serve configs and the cluster file validate against Ray's own schemas."""

import importlib
import json
from pathlib import Path

import jsonschema
import pytest
import ray.autoscaler
import yaml
from ray.serve.schema import ServeDeploySchema

from serve_app.app import AppArgs

ROOT = Path(__file__).resolve().parents[3]
SERVE_CONFIGS = sorted((ROOT / "configs").glob("local*.yaml"))


@pytest.mark.parametrize("path", SERVE_CONFIGS, ids=lambda p: p.name)
def test_serve_config_validates_and_names_real_deployments(path: Path) -> None:
    config = ServeDeploySchema.model_validate(yaml.safe_load(path.read_text()))
    for app in config.applications:
        module, attr = app.import_path.split(":")
        builder = getattr(importlib.import_module(module), attr)
        AppArgs.model_validate(app.args)
        built = builder(app.args)
        names = {d.name for d in app.deployments}
        assert names <= {"Ingress", "TextNormaliser", "AudioEncoder", "Synthesiser"}
        assert built is not None
        for deployment in app.deployments:
            assert deployment.max_ongoing_requests, f"{deployment.name} needs max_ongoing_requests"
            assert deployment.ray_actor_options.num_cpus < 1


def test_cluster_yaml_validates_against_the_autoscaler_schema() -> None:
    schema_path = Path(ray.autoscaler.__file__).parent / "ray-schema.json"
    schema = json.loads(schema_path.read_text())
    cluster = yaml.safe_load((ROOT / "cluster.yaml").read_text())
    jsonschema.validate(cluster, schema)
    assert cluster["available_node_types"]["head"]["resources"] == {"CPU": 0}
