"""Where the stages run: the typed placement, and the graph build_app makes of it."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from pydantic import ValidationError
from ray.serve.schema import ServeDeploySchema

from serve_app.app import LOCAL_CONFIG, build_app, from_config
from serve_app.ingress.placement import Placement


def bound_deployments(app: object) -> dict[str, Any]:
    """Every deployment bound into ``app`` (the Ingress and what it holds), by name."""
    found: dict[str, Any] = {}

    def walk(value: object) -> None:
        bound = getattr(value, "_bound_deployment", None)
        if bound is not None:
            found[bound.name] = bound
            for arg in (*bound.init_args, *bound.init_kwargs.values()):
                walk(arg)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)

    walk(app)
    return found


def deployments_of(app: object) -> set[str]:
    return set(bound_deployments(app))


def test_the_default_is_the_four_deployment_graph() -> None:
    placement = Placement()
    assert placement.deployments() == ["Ingress", "TextNormaliser", "AudioEncoder", "Synthesiser"]
    assert deployments_of(build_app()) == set(placement.deployments())


def test_folded_and_mixed_placements() -> None:
    assert Placement.folded().deployments() == ["Ingress"]
    assert deployments_of(build_app({"placement": Placement.folded()})) == {"Ingress"}
    mixed = Placement(encoder="ingress", ingress_engines=("espeak",))
    assert deployments_of(build_app({"placement": mixed})) == {
        "Ingress",
        "TextNormaliser",
        "Synthesiser",
    }
    assert mixed.stages()["Synthesiser"] == "deployment; espeak in the ingress"


def test_engines_placed_in_the_ingress_are_not_loaded_on_the_synthesiser() -> None:
    app = build_app({"placement": {"ingress_engines": ["espeak"]}})
    stages = app._bound_deployment.init_args[0]
    local = stages["local_voices"]["voice_engines"]
    remote = stages["synthesiser"]._bound_deployment.init_args[0]["voice_engines"]
    assert local == ["espeak"] and "espeak" not in remote and "kokoro" in remote


@pytest.mark.parametrize(
    "bad",
    [
        {"encoder": "deployment", "synthesiser": "ingress"},
        {"synthesiser": "ingress", "encoder": "ingress", "ingress_engines": ["espeak"]},
        {"normaliser": "elsewhere"},
        {"normalizer": "ingress"},
    ],
)
def test_impossible_or_misspelt_placements_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        Placement.model_validate(bad)


def test_deployment_options_come_from_the_serve_config_alone() -> None:
    """make run and the serve tests deploy configs/local.yaml as serve run would; the
    code names its deployments and sets nothing else."""
    config = ServeDeploySchema.model_validate(yaml.safe_load(LOCAL_CONFIG.read_text()))
    expected = {d.name: d for d in config.applications[0].deployments}
    served = bound_deployments(from_config(args={"ingress_replicas": 3}))
    assert set(served) == set(expected)
    for name, deployment in served.items():
        options = expected[name]
        assert deployment.max_ongoing_requests == options.max_ongoing_requests
        assert deployment.max_queued_requests == options.max_queued_requests
        assert deployment.ray_actor_options["num_cpus"] == options.ray_actor_options.num_cpus
    assert served["Ingress"].num_replicas == 3  # the make run flag replaces the config's
    for deployment in bound_deployments(build_app()).values():
        assert deployment.max_ongoing_requests == 5  # Serve's default: nothing set in code
