"""The GPU kit's pieces: cut to fit a call, put back together only as packed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from deployments.synthesis.engines.kokoro.assets import voice_hashes
from deployments.synthesis.voices import VoiceRegistry
from loadtest.device_image import KitError
from loadtest.device_kit import (
    MANIFEST,
    PIECE,
    VOICES_CONFIG,
    join,
    kokoro_styles,
    split,
    write_pieces,
)


def test_pieces_are_even_and_none_over_the_limit() -> None:
    data = os.urandom(1000)
    pieces = split(data, 300)
    assert [len(p) for p in pieces] == [250, 250, 250, 250]
    assert b"".join(pieces) == data
    assert split(data, 1000) == [data]
    assert [len(p) for p in split(data, 999)] == [500, 500]


def test_the_pieces_make_the_whole_again(tmp_path: Path) -> None:
    data = os.urandom(10_000)
    folders = write_pieces(data, tmp_path / "kit", 4_000)
    assert [f.name for f in folders] == ["1", "2", "3"]
    assert all((f / MANIFEST).read_text() == (folders[0] / MANIFEST).read_text() for f in folders)
    assert join(tmp_path / "kit") == data


def test_a_missing_or_damaged_piece_is_named(tmp_path: Path) -> None:
    kit = tmp_path / "kit"
    write_pieces(os.urandom(10_000), kit, 4_000)
    piece = kit / "2" / PIECE
    original = piece.read_bytes()
    piece.write_bytes(original[:-1] + bytes([original[-1] ^ 1]))
    with pytest.raises(KitError, match="piece 2 is not the one packed"):
        join(kit)
    piece.unlink()
    with pytest.raises(KitError, match="piece 2 is missing"):
        join(kit)
    with pytest.raises(KitError, match="no kit"):
        join(tmp_path / "elsewhere")


def test_pieces_of_another_kit_do_not_pass(tmp_path: Path) -> None:
    write_pieces(os.urandom(10_000), tmp_path / "a", 4_000)
    write_pieces(os.urandom(10_000), tmp_path / "b", 4_000)
    (tmp_path / "a" / "3" / PIECE).write_bytes((tmp_path / "b" / "3" / PIECE).read_bytes())
    with pytest.raises(KitError, match="piece 3"):
        join(tmp_path / "a")


def test_the_kit_holds_every_kokoro_voice_the_registry_loads() -> None:
    styles = kokoro_styles()
    registry = VoiceRegistry.from_file(VOICES_CONFIG)
    kokoro = [v for v in registry.all() if v.engine == "kokoro"]
    assert kokoro and {v.params["style"] for v in kokoro} == set(styles)
    assert set(styles) <= set(voice_hashes())  # each is checked against its hash there
    assert "hf_alpha" in styles  # the default voice


def test_the_kit_module_imports_only_the_standard_library() -> None:
    # assemble runs there before its wheels are installed: nothing else may be imported
    # (-S: no site-packages, as in an environment without this project's packages)
    script = (
        "import loadtest.device_kit; modules = {m.split('.')[0] for m in sys.modules}; "
        "print(sorted(modules - set(sys.stdlib_module_names) - {'__main__'}))"
    )
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run(
        [
            sys.executable,
            "-I",
            "-S",
            "-c",
            f"import sys; sys.path.insert(0, {str(root)!r}); {script}",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip() == "['loadtest']"
