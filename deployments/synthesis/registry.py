"""Every engine by name, loaded on demand: the one place that knows them all, so the
engine interface (engine.py) imports none of its engines, and an engine whose extra is
not installed is only an error when a voice asks for it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from deployments.synthesis.engine import Engine, EngineError, EngineUnavailable


def _load_espeak(options: dict[str, Any]) -> Engine:
    from deployments.synthesis.engines.espeak.engine import EspeakEngine

    return EspeakEngine.load(options)


def _load_piper(options: dict[str, Any]) -> Engine:
    try:
        from deployments.synthesis.engines.piper.engine import PiperEngine
    except ImportError as e:
        raise EngineUnavailable(f"the piper engine needs piper-tts installed ({e})") from e
    return PiperEngine.load(options)


def _load_kokoro(options: dict[str, Any]) -> Engine:
    from deployments.synthesis.engines.kokoro.loading import load_kokoro

    return load_kokoro(options)


def _load_vits(options: dict[str, Any]) -> Engine:
    try:
        from deployments.synthesis.engines.vits.engine import VitsEngine
    except ImportError as e:
        raise EngineUnavailable(f"the vits engine needs torch and transformers ({e})") from e
    return VitsEngine.load(options)


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
