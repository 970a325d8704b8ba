"""Names that other speech APIs' clients send (models, voices), taken as ours.

Loaded from ``configs/compat.yaml``; the surfaces that speak those APIs
(``surfaces/openai/serving.py``, ``surfaces/elevenlabs/serving.py``) resolve their names
here, so a client works by changing only its base URL and key.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field

from deployments.synthesis import VoiceConfig, is_voice_id
from serve_app.http.errors import InvalidRequest, NotFound
from serve_app.speech.catalog import Catalog

# ElevenLabs request fields that are accepted and not applied: they shape ElevenLabs'
# own voices and requests, and ours have no counterpart.
ELEVENLABS_IGNORED_FIELDS = (
    "voice_settings.stability",
    "voice_settings.similarity_boost",
    "voice_settings.style",
    "voice_settings.use_speaker_boost",
    "seed",  # Kokoro is deterministic (the same request, the same audio); nothing takes one
    "apply_language_text_normalization",
    "use_pvc_as_ivc",
    "audio_effects",
    "optimize_streaming_latency",
    "enable_logging",
)


class ClientNames(BaseModel):
    """One API's model ids (aliases of ours) and voice names (-> our voice ids)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    models: tuple[str, ...] = ()
    voices: dict[str, str] = Field(default_factory=dict)

    def names_model(self, model: object) -> bool:
        return isinstance(model, str) and model in self.models

    def voice(self, name: str, catalog: Catalog) -> VoiceConfig | None:
        """The registered voice ``name`` stands for (one of its names, or one of our
        ids): a preference (``vocabulary.preferring``), which the service trades for the
        language's own voice where it does not speak the request's language. None for
        any other name: a project's own voice, or 404 ``voice_not_found`` when the
        request is chosen (SpeechService.choose)."""
        voice = catalog.voice(self.voices.get(name, name))
        if voice is None and not is_voice_id(name):  # no voice of ours could be called so
            raise NotFound("voice_not_found", f"No voice '{name}'.", "voice")
        return voice


def client_language(catalog: Catalog, given: str | None, text: str, param: str) -> str:
    """The canonical language of a compatible client's request: the one it names, or
    (its clients send none) the language of ``text``'s script, else the default."""
    policy = catalog.policy
    if given is None:
        return policy.language_of(text)
    canonical = policy.canonical(given)
    if canonical is None:
        raise InvalidRequest("unsupported_language", f"Unknown language '{given}'.", param)
    return canonical


class CompatConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    openai: ClientNames = ClientNames()
    elevenlabs: ClientNames = ClientNames()

    def describe(self) -> dict[str, object]:
        """What /v1/capabilities says of the compatible surfaces."""
        return {
            "openai": {
                "endpoint": "POST /v1/audio/speech (a request naming one of these models)",
                "models": list(self.openai.models),
                "voices": self.openai.voices,
            },
            "elevenlabs": {
                "endpoints": [
                    "POST /v1/text-to-speech/{voice_id}[/stream][/with-timestamps]",
                    "WS /v1/text-to-speech/{voice_id}/stream-input",
                    "WS /v1/text-to-speech/{voice_id}/multi-stream-input",
                ],
                "models": list(self.elevenlabs.models),
                "voices": self.elevenlabs.voices,
                "ignored_fields": list(ELEVENLABS_IGNORED_FIELDS),
            },
            "auth_headers": ["Authorization: Bearer <key>", "xi-api-key: <key>"],
        }

    @classmethod
    def from_file(cls, path: str | Path) -> CompatConfig:
        with open(path, encoding="utf-8") as f:
            return cls.model_validate(yaml.safe_load(f) or {})
