"""What the service offers: voices, languages, engines and limits, from the config and
the loaded engines (the native surface renders them: surfaces/native/discovery.py)."""

from __future__ import annotations

from deployments.normaliser import LanguagePolicy
from deployments.synthesis import EngineInfo, SynthesiserInfo, VoiceConfig
from serve_app.settings import IngressConfig
from serve_app.speech.vocabulary import VoiceRecord

MODELLING_MODES = ("description", "reference")


class Catalog:
    """Voices, languages, engines and limits, from the config and the loaded engines."""

    def __init__(
        self,
        config: IngressConfig,
        policy: LanguagePolicy,
        loaded: SynthesiserInfo,
        stages: dict[str, str] | None = None,
        replicas: dict[str, int] | None = None,
    ) -> None:
        self.config = config
        self.policy = policy
        self.stages = stages or {}
        self.replicas = replicas or {}
        self.engines = {info.name: info for info in loaded.engines}
        self.scaled_to_zero = set(loaded.scaled_to_zero)
        self._voices = {v.id: v for v in loaded.voices}

    def voice(self, voice_id: str) -> VoiceConfig | None:
        """A registered voice that is loaded on the synthesisers, or None."""
        return self._voices.get(voice_id)

    def public_voices(self) -> list[VoiceConfig]:
        return [v for v in self._voices.values() if v.public]

    def engine_of(self, voice: VoiceConfig) -> EngineInfo:
        return self.engines[voice.engine]

    def voice_languages(self, voice: VoiceConfig) -> list[str]:
        """Policy languages ``voice`` speaks, its own first. A multilingual engine's voice
        (eSpeak) speaks every language of its engine; others speak their own."""
        engine = self.engine_of(voice)
        spoken = set(engine.languages)
        own = [code for code in voice.languages if code in spoken]
        if not engine.multilingual_voices:
            return own
        return own + sorted(c for c in self.policy.languages if c in spoken and c not in own)

    def voice_for_language(self, language: str, preferred: VoiceConfig) -> VoiceConfig:
        """``preferred`` if it speaks ``language``; else the first public voice whose own
        language it is, else the first that speaks it, of ``preferred``'s gender if
        there is one; else ``preferred``."""
        if language in self.voice_languages(preferred):
            return preferred
        speakers = [v for v in self.public_voices() if language in self.voice_languages(v)]
        ranked = sorted(
            speakers,
            key=lambda v: (v.languages[0] != language, v.gender != preferred.gender),
        )
        return ranked[0] if ranked else preferred

    def engines_with(self, control: str) -> list[str]:
        """Loaded engines that honour ``control`` (others answer ``unsupported_feature``)."""
        return sorted(name for name, info in self.engines.items() if control in info.controls)

    def languages(self) -> list[str]:
        spoken = {code for info in self.engines.values() for code in info.languages}
        return [code for code in self.policy.languages if code in spoken]

    def modes(self) -> list[str]:
        return sorted({mode for info in self.engines.values() for mode in info.modes})

    def mode_engines(self) -> dict[str, list[str]]:
        """Each voice-modelling mode and the loaded engines that do it."""
        return {
            mode: sorted(name for name, info in self.engines.items() if mode in info.modes)
            for mode in MODELLING_MODES
        }

    def loras(self) -> list[str]:
        return sorted({lora for info in self.engines.values() for lora in info.loras})

    def default_sample_rate(self) -> int:
        default = self.voice("default")
        if default is None:
            raise ValueError("no voice 'default' is loaded")
        return default.sample_rate

    def voice_records(self) -> list[VoiceRecord]:
        """The public voices as GET /v1/voices lists them."""
        return [
            VoiceRecord(
                id=v.id,
                name=v.name,
                languages=list(v.languages),
                gender=v.gender,
                sample_rate=v.sample_rate,
                engine=v.engine,
                modes=list(self.engines[v.engine].modes),
            )
            for v in self.public_voices()
        ]
