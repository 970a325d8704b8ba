"""Names that other speech APIs' clients send (models, voices), taken as ours.

Loaded from ``configs/compat.yaml``; the surfaces that speak those APIs
(``serve_app.openai_speech``, ``serve_app.elevenlabs_speech``) resolve their names
here, so a client works by changing only its base URL and key.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field

from deployments.synthesis.voices import VoiceConfig
from serve_app.catalog import Catalog
from serve_app.errors import NotFound


class ClientNames(BaseModel):
    """One API's model ids (aliases of ours) and voice names (-> our voice ids)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    models: tuple[str, ...] = ()
    voices: dict[str, str] = Field(default_factory=dict)

    def names_model(self, model: object) -> bool:
        return isinstance(model, str) and model in self.models

    def voice(self, name: str, language: str, catalog: Catalog) -> VoiceConfig:
        """The voice ``name`` stands for (one of its names, or one of our ids), in
        ``language``: where that voice does not speak it, the language's own voice of
        the same gender. Unknown: 404 ``voice_not_found``."""
        voice = catalog.voice(self.voices.get(name, name))
        if voice is None:
            raise NotFound("voice_not_found", f"No voice '{name}'.", "voice")
        return catalog.voice_for_language(language, voice)


class CompatConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    openai: ClientNames = ClientNames()
    elevenlabs: ClientNames = ClientNames()

    @classmethod
    def from_file(cls, path: str | Path) -> CompatConfig:
        with open(path, encoding="utf-8") as f:
            return cls.model_validate(yaml.safe_load(f) or {})
