"""What a voice needs on disk, found without loading its engine: an engine none of
whose voices can speak is not loaded (VITS: torch and transformers, seconds of a
replica's start and hundreds of MB, for no voice)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from deployments.synthesis.options import VitsVoiceParams
from deployments.synthesis.voices import VoiceConfig

ROOT = Path(__file__).resolve().parents[2]


def vits_checkpoint(voice: VoiceConfig) -> Path:
    """``voice``'s VITS checkpoint directory (absolute, or from the project root)."""
    return ROOT / VitsVoiceParams.model_validate(voice.params).model


def _vits_files_missing(voice: VoiceConfig) -> str | None:
    path = vits_checkpoint(voice)
    return None if (path / "config.json").is_file() else f"no VITS checkpoint at {path}"


# Each engine's check, where it has one.
FILES_MISSING: dict[str, Callable[[VoiceConfig], str | None]] = {"vits": _vits_files_missing}


def files_missing(voice: VoiceConfig) -> str | None:
    """Why ``voice``'s files are not there (None: they are, or its engine cannot tell
    before it loads)."""
    check = FILES_MISSING.get(voice.engine)
    return check(voice) if check is not None else None
