"""The Synthesiser: registered voices, the engines that speak them, one segment at a time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from deployments.messages import AudioChunk, Segment, SynthesisParams
from deployments.synthesis.alignment import char_alignment
from deployments.synthesis.engine import CancelToken, Engine, EngineError, EngineInfo, load_engine
from deployments.synthesis.voices import VoiceRegistry

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


class SynthesiserConfig(BaseModel):
    """Startup configuration: the voice registry file and options per engine."""

    model_config = ConfigDict(extra="forbid")

    voices_path: str = str(CONFIGS / "voices.yaml")
    engines: dict[str, dict[str, Any]] = Field(default_factory=dict)
    workers: int = Field(default=1, ge=1, description="Engine calls run at once (1 for eSpeak).")

    @field_validator("voices_path")
    @classmethod
    def _from_project_root(cls, value: str) -> str:
        """A relative path is taken from the project root, wherever the replica runs."""
        return str(CONFIGS.parent / value)


class Synthesiser:
    """Loads one engine per engine name used by the registry and speaks segments."""

    def __init__(self, registry: VoiceRegistry, engines: dict[str, Engine]) -> None:
        self.registry = registry
        self._engines = engines
        for voice in registry.all():
            rate = engines[voice.engine].info().sample_rate
            if voice.sample_rate != rate:
                raise ValueError(
                    f"voice {voice.id!r} says {voice.sample_rate} Hz, its engine gives {rate} Hz"
                )

    @classmethod
    def from_config(cls, config: SynthesiserConfig) -> Synthesiser:
        registry = VoiceRegistry.from_file(config.voices_path)
        engines = {name: load_engine(name, config.engines.get(name)) for name in registry.engines()}
        return cls(registry, engines)

    def engine_info(self) -> list[EngineInfo]:
        return [engine.info() for engine in self._engines.values()]

    def speak(
        self, segment: Segment, params: SynthesisParams, cancel: CancelToken | None = None
    ) -> AudioChunk:
        """All audio of one segment as one chunk (blocking; run it off the event loop).

        Raises :class:`EngineError` for an unknown voice or a failed synthesis.
        """
        voice = self.registry.get(params.voice)
        if voice is None:
            raise EngineError(f"voice {params.voice!r} is not registered")
        engine = self._engines[voice.engine]
        chunks = list(engine.synthesize(segment, voice, params, cancel))
        samples = np.concatenate([c.samples for c in chunks]) if chunks else np.zeros(0, np.float32)
        words = tuple(word for chunk in chunks for word in chunk.words)
        alignment = None
        if params.with_alignment and words:
            duration_ms = samples.size * 1000 // voice.sample_rate
            alignment = char_alignment(segment.text, list(words), duration_ms)
        return AudioChunk(samples, voice.sample_rate, segment.index, words, alignment)
