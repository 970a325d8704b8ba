"""Kokoro's voices as the model takes them: each voice's style table (510 x 256, a
row per token count) and its own pace, and blends of voices (the weighted sum of
their tables and paces: a custom voice's, a description's), the latest kept."""

from __future__ import annotations

import threading

import numpy as np

from deployments.messages import VoiceDesign
from deployments.synthesis.engine import EngineError

BLENDS_KEPT = 64  # blended style tables kept for reuse

Blend = tuple[tuple[str, float], ...]


class StyleTables:
    """The style tables and paces of the loaded voices, and the blends made of them."""

    def __init__(self) -> None:
        self._tables: dict[str, np.ndarray] = {}
        self._paces: dict[str, float] = {}
        self._blended: dict[Blend, tuple[np.ndarray, float]] = {}
        self._lock = threading.Lock()

    def add(self, voice_id: str, table: np.ndarray, pace: float) -> None:
        self._tables[voice_id] = table
        self._paces[voice_id] = pace

    def table(self, voice_id: str) -> np.ndarray:
        return self._tables[voice_id]

    def voices(self) -> tuple[str, ...]:
        return tuple(self._tables)

    def of(self, voice_id: str, design: VoiceDesign | None) -> tuple[np.ndarray, float]:
        """The style table and own pace of ``voice_id``, or of the blend ``design`` asks
        for: the weighted sum of its voices' tables and paces."""
        blend = design.blend if design is not None else ()
        if len(blend) <= 1:
            voice_id = blend[0][0] if blend else voice_id
            table = self._tables.get(voice_id)
            if table is None:
                raise EngineError(f"kokoro voice {voice_id!r} is not loaded")
            return table, self._paces[voice_id]
        with self._lock:
            found = self._blended.get(blend)
        if found is not None:
            return found
        missing = [name for name, _ in blend if name not in self._tables]
        if missing:
            raise EngineError(f"kokoro voices {missing} of the blend are not loaded")
        mixed = np.zeros_like(self._tables[blend[0][0]])
        for name, weight in blend:
            mixed += np.float32(weight) * self._tables[name]
        made = (mixed, float(sum(weight * self._paces[name] for name, weight in blend)))
        with self._lock:
            if len(self._blended) >= BLENDS_KEPT:
                self._blended.pop(next(iter(self._blended)))
            self._blended[blend] = made
        return made
