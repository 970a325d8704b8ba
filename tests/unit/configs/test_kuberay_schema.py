"""configs/rayservice.yaml against KubeRay's own RayService schema (the CRD the operator
installs, kept beside this test: kuberay/README.md), strictly: Kubernetes prunes a
field its schema does not know, so a misspelt field would be dropped without a word
on `kubectl apply` and the cluster would run without it. Here it fails the unit tier."""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

HERE = Path(__file__).resolve().parent
CRD = HERE / "kuberay" / "ray.io_rayservices.yaml"
MANIFEST = HERE.parents[2] / "configs" / "rayservice.yaml"
PRESERVE = "x-kubernetes-preserve-unknown-fields"


def closed(schema: Any) -> Any:
    """``schema`` with every object closed to fields it does not name, unless it keeps
    unknown fields (``x-kubernetes-preserve-unknown-fields``) or is a map (its own
    ``additionalProperties``): what the API server's pruning does, as an error."""
    if isinstance(schema, list):
        return [closed(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: closed(value) for key, value in schema.items()}
    if out.get("type") == "object" and not out.get(PRESERVE) and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


@cache
def validator() -> jsonschema.Draft4Validator:
    crd = yaml.load(CRD.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    assert (crd["kind"], crd["spec"]["names"]["kind"]) == ("CustomResourceDefinition", "RayService")
    version = next(v for v in crd["spec"]["versions"] if v["name"] == "v1")
    schema = closed(version["schema"]["openAPIV3Schema"])
    # metadata is the API server's ObjectMeta, which it validates itself
    schema["properties"]["metadata"] = {"type": "object"}
    return jsonschema.Draft4Validator(schema)


def errors(manifest: dict[str, Any]) -> list[str]:
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator().iter_errors(manifest)
    ]


@pytest.fixture
def manifest() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(MANIFEST.read_text())
    return copy.deepcopy(loaded)


def test_the_rayservice_validates_against_kuberays_schema(manifest: dict[str, Any]) -> None:
    assert manifest["apiVersion"] == "ray.io/v1"
    assert errors(manifest) == []


def test_a_misspelt_field_fails(manifest: dict[str, Any]) -> None:
    group = manifest["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]
    group["rayStartParam"] = group.pop("rayStartParams")
    found = errors(manifest)
    assert any("rayStartParam" in e and "not allowed" in e for e in found), found


def test_a_wrong_type_fails(manifest: dict[str, Any]) -> None:
    cluster = manifest["spec"]["rayClusterConfig"]
    cluster["workerGroupSpecs"][1]["maxReplicas"] = "eight"
    cluster["headGroupSpec"]["rayStartParams"]["num-cpus"] = 0  # a map of strings
    found = errors(manifest)
    assert any(e.startswith("spec/rayClusterConfig/workerGroupSpecs/1/maxReplicas") for e in found)
    assert any("rayStartParams/num-cpus" in e for e in found), found


def test_a_field_deep_in_a_pod_template_is_checked_too(manifest: dict[str, Any]) -> None:
    head = manifest["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]
    head["containers"][0]["resource"] = head["containers"][0].pop("resources")
    assert any("resource" in e for e in errors(manifest))


def test_closing_keeps_maps_and_preserved_objects_open() -> None:
    schema = {
        "type": "object",
        "properties": {
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "free": {"type": "object", PRESERVE: True},
        },
    }
    check = jsonschema.Draft4Validator(closed(schema))
    assert check.is_valid({"labels": {"any": "x"}, "free": {"any": {"thing": 1}}})
    assert not check.is_valid({"label": {}})
