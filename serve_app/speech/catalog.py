"""What the service offers, as the discovery endpoints report it."""

from __future__ import annotations

from typing import get_args

from deployments.encoding.writers import AUDIO_FORMATS, STREAMABLE_FORMATS, content_type
from deployments.normaliser.languages import FULL_RULES, number_languages
from deployments.normaliser.policy import LanguagePolicy
from deployments.synthesis.engine import EngineInfo
from deployments.synthesis.synthesiser import SynthesiserInfo
from deployments.synthesis.visemes import VISEMES
from deployments.synthesis.voices import VoiceConfig
from serve_app.settings import PCM_DEFAULT_RATE, REFERENCE_LIMITS, SAMPLE_RATES, IngressConfig
from serve_app.surfaces.native.capabilities import (
    AudioFormatInfo,
    Capabilities,
    ControlChoices,
    ControlRange,
    GenerationControls,
    Limits,
    Modelling,
    PhonemeTimestampsInfo,
    StreamingInfo,
    TextNormalizationInfo,
    UnavailableFeature,
    WebSocketInfo,
)
from serve_app.surfaces.native.protocol import (
    CONTROLS,
    EngineStatus,
    ModelEntry,
    ModelList,
    PipelineStage,
    Quality,
    Readiness,
    VoiceList,
    VoiceRecord,
)

STREAM_FORMATS = ("audio", "sse")


UNAVAILABLE = {
    "description": "voice_description: no loaded engine builds a voice from a description.",
    "reference": "reference_audio: no loaded engine matches a voice to reference audio.",
}


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

    def models(self) -> ModelList:
        return ModelList(
            data=[ModelEntry(id=self.config.model_id, owned_by=self.config.model_owner)]
        )

    def voices(self) -> VoiceList:
        return VoiceList(
            data=[
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
        )

    def readiness(self) -> Readiness:
        """The readiness report: only what GET /v1/voices may show (no private voice)."""
        public = {v.id for v in self.public_voices()}
        return Readiness(
            model=self.config.model_id,
            sample_rate=self.default_sample_rate(),
            languages=self.languages(),
            voices=[v.id for v in self.public_voices()],
            loras=self.loras(),
            stream_formats=list(STREAM_FORMATS),
            modes=self.modes(),
            language_policy_version=self.policy.version,
            pipeline={
                stage: PipelineStage(
                    placement=where,
                    replicas=self.replicas.get(
                        stage if where.startswith("deployment") else "Ingress"
                    ),
                )
                for stage, where in {"Ingress": "deployment", **self.stages}.items()
            },
            engines=[
                EngineStatus(
                    name=i.name,
                    device=i.device,
                    sample_rate=i.sample_rate,
                    voices=[v for v in i.voices if v in public],
                    modes=list(i.modes),
                    controls=list(i.controls),
                    alignment=i.alignment,
                    state="scaled_to_zero" if i.name in self.scaled_to_zero else "running",
                    stats=dict(i.extra),
                )
                for i in self.engines.values()
            ],
        )

    def capabilities(self) -> Capabilities:
        modes = self.modes()
        controls = {
            control: ControlRange(
                min=low,
                max=high,
                default=default,
                # pitch is the control only some engines honour
                engines=self.engines_with(control) if control == "pitch" else None,
            )
            for control, (low, high, default) in CONTROLS.items()
        }
        return Capabilities(
            models=[self.config.model_id],
            streaming=StreamingInfo(
                transports=["http_chunked", "sse", "websocket"],
                websocket=WebSocketInfo(
                    path="/v1/audio/speech/stream-input/{voice_id}",
                    protocol="elevenlabs-stream-input",
                    formats=list(STREAMABLE_FORMATS),
                    alignment_engines=sorted(
                        name for name, info in self.engines.items() if info.alignment
                    ),
                ),
                stream_formats=list(STREAM_FORMATS),
                default_stream_format="audio",
                sse_content_type="text/event-stream",
                sse_events=["audio.delta", "audio.done", "error"],
            ),
            audio_formats=[
                AudioFormatInfo(
                    format=f.name,
                    content_type=content_type(f.name, "{sample_rate}"),
                    encoding=f.encoding,
                    streamed=f.streamed,
                    sample_rate=f.sample_rate,
                    bitrates_kbps=dict(f.bitrates_kbps) if f.bitrates_kbps else None,
                )
                for f in AUDIO_FORMATS.values()
            ],
            sample_rates=list(SAMPLE_RATES),
            default_sample_rate=self.default_sample_rate(),
            modelling=Modelling(
                modes=modes,
                loras=self.loras(),
                engines=self.mode_engines(),
                reference_audio=REFERENCE_LIMITS,
            ),
            generation_controls=GenerationControls(
                **controls,
                quality=ControlChoices(values=list(get_args(Quality)), default="balanced"),
                sample_rate=ControlChoices(
                    values=list(SAMPLE_RATES),
                    default=f"{PCM_DEFAULT_RATE} for pcm, else the voice's native rate",
                ),
            ),
            languages=self.languages(),
            default_language=self.policy.default,
            default_voice="default",
            voices=self.voices().data,
            text_normalization=TextNormalizationInfo(
                endpoint="/v1/text/normalize",
                numbers=number_languages(),
                full_reading_rules=list(FULL_RULES),
                romanised_hindi=True,
            ),
            phoneme_timestamps=PhonemeTimestampsInfo(
                engines=sorted(name for name, info in self.engines.items() if info.phonemes),
                voices_without=[
                    v.id
                    for v in self.public_voices()
                    if not (info := self.engines.get(v.engine)) or not info.phonemes
                ],
                visemes=list(VISEMES),
            ),
            language_policy_version=self.policy.version,
            unavailable=[
                UnavailableFeature(feature=feature, reason=reason)
                for feature, reason in UNAVAILABLE.items()
                if feature not in modes
            ],
            limits=Limits(
                max_input_characters=self.config.max_input_chars,
                max_body_bytes=self.config.max_body_bytes,
            ),
        )
