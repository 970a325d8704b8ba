"""The voice registry: which voices exist, which engine speaks each, and who may see them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from deployments.synthesis.options import VOICE_PARAMS, check

VOICE_ID_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
_VOICE_ID = re.compile(VOICE_ID_PATTERN)


def is_voice_id(text: str) -> bool:
    """Whether ``text`` could name a voice (registered or a project's own)."""
    return _VOICE_ID.match(text) is not None


class VoiceConfig(BaseModel):
    """One registered voice (startup configuration, from ``configs/voices.yaml``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=VOICE_ID_PATTERN)
    name: str
    engine: str
    languages: tuple[str, ...] = Field(min_length=1)
    gender: Literal["female", "male", "neutral"]
    sample_rate: int
    public: bool = True
    optional: bool = Field(
        default=False,
        description="Skip this voice (with a warning) when its engine or model is not "
        "installed, instead of refusing to start.",
    )
    params: dict[str, Any] = Field(
        default_factory=dict, description="The engine's voice parameters (synthesis.options)."
    )

    @model_validator(mode="after")
    def _known_params(self) -> VoiceConfig:
        """``params`` against the engine's typed model: a typo fails at load."""
        check(VOICE_PARAMS, self.engine, self.params)
        return self


class VoiceRegistry:
    """Registered voices by id; ``default`` must be one of them."""

    def __init__(self, voices: list[VoiceConfig], require_default: bool = True) -> None:
        self._voices: dict[str, VoiceConfig] = {}
        for voice in voices:
            if voice.id in self._voices:
                raise ValueError(f"voice {voice.id!r} is registered twice")
            self._voices[voice.id] = voice
        if require_default and "default" not in self._voices:
            raise ValueError("the voice registry has no 'default' voice")

    @classmethod
    def from_file(cls, path: str | Path) -> VoiceRegistry:
        with open(path, encoding="utf-8") as f:
            document = yaml.safe_load(f)
        return cls([VoiceConfig.model_validate(v) for v in document["voices"]])

    def of_engines(self, engines: set[str]) -> VoiceRegistry:
        """The voices of ``engines`` only (a part of the registry: ``default`` may be
        elsewhere)."""
        return VoiceRegistry([v for v in self.all() if v.engine in engines], require_default=False)

    def get(self, voice_id: str) -> VoiceConfig | None:
        return self._voices.get(voice_id)

    def all(self) -> list[VoiceConfig]:
        return list(self._voices.values())

    def public(self) -> list[VoiceConfig]:
        return [v for v in self._voices.values() if v.public]

    def engines(self) -> set[str]:
        return {v.engine for v in self._voices.values()}
