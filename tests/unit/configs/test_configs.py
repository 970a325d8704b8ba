"""The Serve configs and the cluster file validate against Ray's own schemas."""

import importlib
import json
import os
from pathlib import Path

import jsonschema
import pytest
import ray
import ray.autoscaler
import yaml
from ray.serve.schema import ServeDeploySchema

from deployments.synthesis.voices import VoiceRegistry
from serve_app.app import AppArgs

ROOT = Path(__file__).resolve().parents[3]
SERVE_CONFIGS = [
    p
    for p in sorted((ROOT / "configs").glob("*.yaml"))
    if "applications" in p.read_text() and "kind: RayService" not in p.read_text()
]


@pytest.mark.parametrize("path", SERVE_CONFIGS, ids=lambda p: p.name)
def test_serve_config_validates_and_names_real_deployments(path: Path) -> None:
    config = ServeDeploySchema.model_validate(yaml.safe_load(path.read_text()))
    for app in config.applications:
        module, attr = app.import_path.split(":")
        builder = getattr(importlib.import_module(module), attr)
        args = AppArgs.model_validate(app.args)
        assert builder(app.args) is not None
        names = {d.name for d in app.deployments}
        assert names == set(args.placement.deployments())
        for deployment in app.deployments:
            assert deployment.max_ongoing_requests, f"{deployment.name} needs max_ongoing_requests"
            assert deployment.max_queued_requests, f"{deployment.name} needs max_queued_requests"
            if path.name == "local.yaml":  # fits 2 cores
                assert deployment.ray_actor_options.num_cpus < 1
                assert not deployment.ray_actor_options.num_gpus


def test_the_gpu_config_puts_synthesis_on_gpus_and_autoscales() -> None:
    config = ServeDeploySchema.model_validate(
        yaml.safe_load((ROOT / "configs" / "gpu.yaml").read_text())
    )
    deployments = {d.name: d for d in config.applications[0].deployments}
    assert deployments["Synthesiser"].ray_actor_options.num_gpus == 1
    for name, deployment in deployments.items():
        scaling = deployment.autoscaling_config
        assert scaling and scaling["max_replicas"] > 1
        # every CPU stage keeps a replica; the GPU one goes to zero when idle, after
        # long enough that a conversation's pauses never meet a cold start
        assert scaling["min_replicas"] >= (0 if name == "Synthesiser" else 1)
    synthesis = deployments["Synthesiser"].autoscaling_config
    assert synthesis["initial_replicas"] >= 1  # a deploy starts warm
    assert synthesis["downscale_to_zero_delay_s"] >= 600
    voices = VoiceRegistry.from_file(ROOT / "configs" / "voices.gpu.yaml")
    assert {v.engine for v in voices.all()} == {"kokoro", "espeak", "vits", "piper"}
    assert voices.get("default").engine == "kokoro"
    app_args = AppArgs.model_validate(config.applications[0].args)
    assert app_args.synthesiser.engines["kokoro"]["device"] == "cuda"


def test_the_local_config_puts_the_neural_default_on_its_own_deployment() -> None:
    config = ServeDeploySchema.model_validate(
        yaml.safe_load((ROOT / "configs" / "local.yaml").read_text())
    )
    app = config.applications[0]
    assert AppArgs.model_validate(app.args).placement.deployments() == [
        "Ingress",
        "TextNormaliser",
        "AudioEncoder",
        "Synthesiser",
    ]
    voices = VoiceRegistry.from_file(ROOT / "configs" / "voices.yaml")
    assert voices.get("default").engine == "kokoro" and voices.get("default").languages == ("hi",)
    # make run keeps its Synthesiser: one machine has nothing to release
    synthesis = next(d for d in app.deployments if d.name == "Synthesiser")
    assert synthesis.num_replicas == 1  # fixed: no autoscaling, never zero


def test_cluster_yaml_validates_against_the_autoscaler_schema() -> None:
    schema_path = Path(ray.autoscaler.__file__).parent / "ray-schema.json"
    schema = json.loads(schema_path.read_text())
    cluster = yaml.safe_load((ROOT / "cluster.yaml").read_text())
    jsonschema.validate(cluster, schema)
    assert cluster["available_node_types"]["head"]["resources"] == {"CPU": 0}
    assert cluster["available_node_types"]["gpu_worker"]["max_workers"] > 1


def test_ingress_replicas_are_one_per_core_for_make_run_and_configurable() -> None:
    from serve_app.app import build_app
    from serve_app.run import MAX_DEFAULT_REPLICAS, default_replicas

    assert 1 <= default_replicas() <= min(os.cpu_count() or 1, MAX_DEFAULT_REPLICAS)
    built = build_app({"ingress_replicas": 3})._bound_deployment
    assert built.name == "Ingress" and built.num_replicas == 3
    assert build_app()._bound_deployment.num_replicas == 1  # else the Serve config decides


def test_the_kuberay_rayservice_embeds_the_gpu_config() -> None:
    service = yaml.safe_load((ROOT / "configs" / "rayservice.yaml").read_text())
    assert (service["apiVersion"], service["kind"]) == ("ray.io/v1", "RayService")
    embedded = yaml.safe_load(service["spec"]["serveConfigV2"])
    config = ServeDeploySchema.model_validate(embedded)
    gpu = yaml.safe_load((ROOT / "configs" / "gpu.yaml").read_text())
    assert embedded["applications"] == gpu["applications"]  # the same Serve config
    names = {d.name for d in config.applications[0].deployments}
    assert names == {"Ingress", "TextNormaliser", "AudioEncoder", "Synthesiser"}
    cluster = service["spec"]["rayClusterConfig"]
    assert cluster["rayVersion"] == ray.__version__
    groups = {g["groupName"]: g for g in cluster["workerGroupSpecs"]}
    gpu_limits = groups["gpu-workers"]["template"]["spec"]["containers"][0]["resources"]["limits"]
    assert gpu_limits["nvidia.com/gpu"] == "1"
    assert "cpu_worker" in groups["cpu-workers"]["rayStartParams"]["resources"]
    # Serve's flow control between replicas (a stalled reader holds synthesis back)
    # needs the same transport on every pod.
    for group in [cluster["headGroupSpec"], *groups.values()]:
        container = group["template"]["spec"]["containers"][0]
        env = {variable["name"]: variable.get("value") for variable in container["env"]}
        assert env["RAY_SERVE_THROUGHPUT_OPTIMIZED"] == "1"
        # ... and a Serve proxy on every pod (direct ingress keeps one, on the head).
        assert env["RAY_SERVE_ENABLE_DIRECT_INGRESS"] == "0"


def test_the_kuberay_pod_templates_validate_against_the_kubernetes_schema() -> None:
    """Every pod KubeRay makes (head and each worker group) from a template that is a
    valid Kubernetes PodTemplateSpec, strictly: no misspelt or unknown field (the
    whole resource against KubeRay's RayService schema: test_kuberay_schema.py)."""
    import kubernetes_validate

    service = yaml.safe_load((ROOT / "configs" / "rayservice.yaml").read_text())
    cluster = service["spec"]["rayClusterConfig"]
    version = kubernetes_validate.latest_version()
    for group in [cluster["headGroupSpec"], *cluster["workerGroupSpecs"]]:
        pod = {
            "apiVersion": "v1",
            "kind": "PodTemplate",
            "metadata": {"name": group.get("groupName", "head")},
            "template": group["template"],
        }
        kubernetes_validate.validate(pod, version, strict=True)
    # ... and would catch a slip: a field that is not Kubernetes'.
    slip = {**pod, "template": {"spec": {"containers": [{"name": "x", "resource": {}}]}}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(slip, version, strict=True)


@pytest.mark.parametrize(
    "args",
    [
        {"synthesiser": {"engines": {"piper": {"use_cude": True}}}},
        {"synthesiser": {"engines": {"kokoro": {"max_tokens": 9999}}}},
        {"synthesiser": {"engines": {"festival": {}}}},
        {"ingress": {"max_active_request": 10}},
        {"placement": {"encoder": "elsewhere"}},
    ],
)
def test_a_misspelt_or_impossible_setting_fails_at_deploy(args: dict[str, object]) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        AppArgs.model_validate(args)


@pytest.mark.parametrize(
    ("engine", "params"),
    [
        ("kokoro", {"style": "hf_alpha", "phoneme": "hi"}),
        ("kokoro", {}),
        ("espeak", {"rate_wpm": 1000}),
        ("piper", {}),
        ("vits", {"model": "x", "dtype": "float16"}),
        ("festival", {}),
    ],
)
def test_voice_params_are_checked_against_their_engine(
    engine: str, params: dict[str, object]
) -> None:
    from pydantic import ValidationError

    from deployments.synthesis.voices import VoiceConfig

    with pytest.raises(ValidationError):
        VoiceConfig.model_validate(
            {
                "id": "v",
                "name": "V",
                "engine": engine,
                "languages": ["hi"],
                "gender": "female",
                "sample_rate": 24000,
                "params": params,
            }
        )
