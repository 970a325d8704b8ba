"""Where the stages run: the typed placement, and the graph build_app makes of it."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from serve_app.app import build_app
from serve_app.placement import Placement


def deployments_of(app: object) -> set[str]:
    """Names of every deployment bound into ``app`` (the Ingress and what it holds)."""
    found: set[str] = set()

    def walk(value: object) -> None:
        bound = getattr(value, "_bound_deployment", None)
        if bound is not None:
            found.add(bound.name)
            for arg in (*bound.init_args, *bound.init_kwargs.values()):
                walk(arg)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)

    walk(app)
    return found


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
