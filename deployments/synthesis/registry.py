"""Every engine by name, loaded on demand: the one place that knows them all, so the
engine protocol (engine.py) imports none of its engines, and an engine whose extra is
not installed is only an error when a voice asks for it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from deployments.synthesis.engine import Engine, EngineError, EngineUnavailable
from deployments.synthesis.options import VitsVoiceParams
from deployments.synthesis.voices import VoiceConfig

ROOT = Path(__file__).resolve().parents[2]


def _load_espeak(options: dict[str, Any]) -> Engine:
    from deployments.synthesis.espeak import EspeakEngine

    return EspeakEngine.load(options)


def _load_piper(options: dict[str, Any]) -> Engine:
    try:
        from deployments.synthesis.piper import PiperEngine
    except ImportError as e:
        raise EngineUnavailable(f"the piper engine needs piper-tts installed ({e})") from e
    return PiperEngine.load(options)


def _load_kokoro(options: dict[str, Any]) -> Engine:
    from deployments.synthesis.kokoro.engine import KokoroEngine

    return KokoroEngine.load(options)


def _load_vits(options: dict[str, Any]) -> Engine:
    try:
        from deployments.synthesis.vits import VitsEngine
    except ImportError as e:
        raise EngineUnavailable(f"the vits engine needs torch and transformers ({e})") from e
    return VitsEngine.load(options)


def vits_checkpoint(voice: VoiceConfig) -> Path:
    """``voice``'s VITS checkpoint directory (absolute, or from the project root)."""
    return ROOT / VitsVoiceParams.model_validate(voice.params).model


def _vits_files_missing(voice: VoiceConfig) -> str | None:
    path = vits_checkpoint(voice)
    return None if (path / "config.json").is_file() else f"no VITS checkpoint at {path}"


# What a voice of an engine needs on disk, found without loading the engine: an
# engine none of whose voices can speak is not loaded (VITS: torch and transformers,
# seconds of a replica's start and hundreds of MB, for no voice).
FILES_MISSING: dict[str, Callable[[VoiceConfig], str | None]] = {"vits": _vits_files_missing}


def files_missing(voice: VoiceConfig) -> str | None:
    """Why ``voice``'s files are not there (None: they are, or its engine cannot tell
    before it loads)."""
    check = FILES_MISSING.get(voice.engine)
    return check(voice) if check is not None else None


ENGINE_LOADERS: dict[str, Callable[[dict[str, Any]], Engine]] = {
    "espeak": _load_espeak,
    "kokoro": _load_kokoro,
    "piper": _load_piper,
    "vits": _load_vits,
}


def load_engine(name: str, options: dict[str, Any] | None = None) -> Engine:
    """Load the engine called ``name`` with its startup ``options``."""
    try:
        loader = ENGINE_LOADERS[name]
    except KeyError:
        raise EngineError(f"unknown engine {name!r}; known: {sorted(ENGINE_LOADERS)}") from None
    return loader(options or {})
