"""The local cluster's Serve config: configs/gpu.yaml with configs/local-cluster.yaml over it.

One source for both: what a GPU cluster serves is what the local cluster serves, with
the numbers of configs/local-cluster.yaml, and the two things only a running cluster
knows added here (the port its proxies serve on, the ledger's URL).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from serve_app.settings import CONFIGS

GPU_CONFIG = CONFIGS / "gpu.yaml"
OVERRIDES = CONFIGS / "local-cluster.yaml"
APPLICATION = "speech"


def merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``base`` with every key of ``over`` in it: mappings merged key by key, anything
    else (numbers, strings, lists) replaced."""
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def local_cluster_config(
    *,
    port: int,
    database_url: str,
    voices_path: str | None = None,
    gpu_config: Path = GPU_CONFIG,
    overrides: Path = OVERRIDES,
    changes: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The Serve config ``serve deploy`` is given on the local cluster.

    ``port``: the head node's proxy (worker nodes' proxies take their own, set per
    node); ``database_url``: the shared ledger; ``voices_path``: another voice list
    than gpu.yaml's (a rolling update changes it); ``changes``: more, in the shape
    of the overrides and applied after them (a benchmark's one-replica run). Raises
    ValueError when the overrides or changes name a deployment gpu.yaml does not
    have, or the result is not a valid Serve config.
    """
    from ray.serve.schema import ServeDeploySchema

    config: dict[str, Any] = yaml.safe_load(gpu_config.read_text(encoding="utf-8"))
    over: dict[str, Any] = yaml.safe_load(overrides.read_text(encoding="utf-8")) or {}
    # On one host every proxy is on the loopback; the head's takes ``port``.
    config["http_options"] = {**config.get("http_options", {}), "host": "127.0.0.1", "port": port}
    app = next((a for a in config["applications"] if a["name"] == APPLICATION), None)
    if app is None:
        raise ValueError(f"{gpu_config} has no application {APPLICATION!r}")
    _change(app, over, str(overrides))
    _change(app, changes or {}, "the changes")
    env = app.setdefault("runtime_env", {}).setdefault("env_vars", {})
    env["TTS_DATABASE_URL"] = database_url
    if voices_path is not None:
        app["args"]["synthesiser"]["voices_path"] = voices_path
    ServeDeploySchema.model_validate(config)
    return config


def _change(app: dict[str, Any], over: dict[str, Any], source: str) -> None:
    """``app`` with ``over``'s args and deployments (matched by name) merged into it."""
    app["args"] = merged(app.get("args", {}), over.get("args", {}))
    changed = {d["name"]: d for d in over.get("deployments", [])}
    unknown = set(changed) - {d["name"] for d in app["deployments"]}
    if unknown:
        raise ValueError(f"{source} change deployments the application lacks: {sorted(unknown)}")
    app["deployments"] = [merged(d, changed.get(d["name"], {})) for d in app["deployments"]]
