"""What the lent machine's image holds and what the kit adds: never the same package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from deployments.synthesis.engines.kokoro import assets
from loadtest.device_image import (
    MODEL_PACKAGES,
    WHEELS,
    image_distributions,
    image_packages,
    image_site,
)


def test_the_kit_carries_the_model_and_what_the_gpu_tier_imports() -> None:
    assert MODEL_PACKAGES == assets.MODEL_PACKAGES
    assert set(MODEL_PACKAGES) <= set(WHEELS)
    assert {"pydantic", "pydantic-core", "soundfile", "espeakng-loader", "py-spy"} <= set(WHEELS)
    assert len(set(WHEELS)) == len(WHEELS)


def test_the_kit_carries_nothing_the_image_holds_and_the_image_lacks_pydantic() -> None:
    image = set(image_packages())
    assert {"torch", "numpy", "onnx", "onnxruntime", "pytest", "pyyaml", "httpx"} <= image
    assert not image & {"pydantic", "soundfile", "ray", "fastapi", "uvicorn", "lameenc"}
    assert not image & set(WHEELS)


def test_the_image_takes_the_requirements_of_our_versions_but_never_pydantic() -> None:
    found = image_distributions(["typer", "pyyaml"])
    assert found[:2] == ["typer", "pyyaml"]
    assert "shellingham" in found  # typer's, here
    assert not {"pydantic", "pydantic-core"} & set(found)  # barred: the kit carries it


def test_the_image_site_shows_the_image_packages_and_nothing_else(tmp_path: Path) -> None:
    linked = image_site(tmp_path / "site", ["numpy", "pyyaml", "no-such-distribution"])
    assert linked == ["numpy", "pyyaml"]
    names = {p.name for p in (tmp_path / "site").iterdir()}
    assert {"numpy", "yaml"} <= names
    assert not {"pydantic", "torch", "deployments"} & names
    script = "import numpy, yaml\ntry:\n import pydantic\nexcept ImportError: print('ok')"
    out = subprocess.run(
        [
            sys.executable,
            "-I",
            "-S",
            "-c",
            f"import sys; sys.path[:0] = [{str(tmp_path / 'site')!r}]\n{script}",
        ],
        capture_output=True,
        text=True,
    )
    assert out.stdout.strip() == "ok", out.stderr
