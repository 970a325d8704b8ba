"""The wheels the whole service needs on a lent GPU machine, beyond its image and the
GPU tier's kit (``make gpu-kit SERVICE=1``; ``loadtest/device_service.sh`` runs it).

The image holds torch, onnx and onnxruntime but no ray, fastapi, uvicorn, lameenc
or av. What serving needs is read from this environment: the project's own
dependencies and the extras they name (ray's ``serve``), transitively, each at the
version installed here, for the device's Python on x86-64 Linux; less what the
image holds (:func:`loadtest.device_image.image_distributions`) and what the kit
carries already. A distribution published only as source (docopt) is built here
into a wheel: it is pure Python, so the one wheel serves any Python 3.
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from loadtest.device_image import (
    PLATFORMS,
    WHEELS,
    KitError,
    image_distributions,
    image_packages,
)

PROJECT = "speech-service"


def _environment(python_version: str, extra: str = "") -> dict[str, str]:
    """The markers of the device (Linux x86-64, CPython ``python_version``)."""
    return {
        "python_version": python_version,
        "python_full_version": f"{python_version}.0",
        "sys_platform": "linux",
        "platform_system": "Linux",
        "platform_machine": "x86_64",
        "os_name": "posix",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "extra": extra,
    }


def requirements(name: str, extras: frozenset[str], python_version: str) -> list[Requirement]:
    """What ``name`` (as installed here) requires on the device, with ``extras``."""
    try:
        declared = importlib.metadata.requires(name) or []
    except importlib.metadata.PackageNotFoundError:
        return []
    wanted = []
    for line in declared:
        requirement = Requirement(line)
        marker = requirement.marker
        if marker is None or any(
            marker.evaluate(_environment(python_version, e)) for e in ("", *extras)
        ):
            wanted.append(requirement)
    return wanted


def service_distributions(python_version: str) -> list[str]:
    """The distributions serving needs on the device that neither its image nor the
    GPU kit holds, each once, in the order found."""
    held = {canonicalize_name(n) for n in (*image_distributions(image_packages()), *WHEELS)}
    found: list[str] = []
    pending = [(PROJECT, frozenset[str]())]
    seen: set[tuple[str, frozenset[str]]] = set()
    while pending:
        name, extras = pending.pop(0)
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        for requirement in requirements(name, extras, python_version):
            needed = canonicalize_name(requirement.name)
            pending.append((needed, frozenset(requirement.extras)))
            if needed not in held and needed not in found and _installed(needed):
                found.append(needed)
    return found


def _installed(name: str) -> bool:
    try:
        importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return False  # a requirement of another Python (a backport): not here, not there
    return True


def download(names: list[str], dest: Path, python_version: str) -> list[Path]:
    """``names`` at the versions installed here as wheels for the device in ``dest``;
    one published only as source is built here (pure Python)."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        pin = f"{name}=={importlib.metadata.version(name)}"
        binary = [sys.executable, "-m", "pip", "download", "-q", "--no-deps"]
        binary += ["--only-binary=:all:", "--python-version", python_version]
        binary += ["--implementation", "cp", "-d", str(dest), pin]
        binary += [arg for platform in PLATFORMS for arg in ("--platform", platform)]
        if subprocess.run(binary, capture_output=True, text=True).returncode == 0:
            continue
        before = set(dest.glob("*.whl"))
        built = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dest), pin]
        result = subprocess.run(built, capture_output=True, text=True)
        made = set(dest.glob("*.whl")) - before
        if result.returncode != 0 or not all(w.name.endswith("-none-any.whl") for w in made):
            raise KitError(f"no wheel of {pin} for Python {python_version}: {result.stderr[-500:]}")
    return sorted(dest.glob("*.whl"))
