"""What /v1/capabilities answers: formats, streaming, controls, languages, limits, and
what the compatible surfaces accept."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from serve_app.speech.vocabulary import VoiceRecord


class WebSocketInfo(BaseModel):
    path: str
    protocol: str
    formats: list[str]
    alignment: Literal["characters"] = "characters"
    alignment_engines: list[str] = Field(
        description="Engines that time words; other voices send alignment: null."
    )


class StreamingInfo(BaseModel):
    transports: list[str]
    websocket: WebSocketInfo
    stream_formats: list[str]
    default_stream_format: str
    sse_content_type: str
    sse_events: list[str]


class AudioFormatInfo(BaseModel):
    format: str
    content_type: str
    encoding: str
    byte_order: Literal["little_endian"] = "little_endian"
    channels: int = 1
    streamed: bool
    buffered: bool = True
    sample_rate: int | None = Field(None, description="The one rate the format carries.")
    bitrates_kbps: dict[str, int] | None = None


class ControlRange(BaseModel):
    min: float
    max: float
    default: float
    engines: list[str] | None = Field(
        default=None, description="Only these engines honour it (others: unsupported_feature)."
    )


class ControlChoices(BaseModel):
    values: list[str] | list[int]
    default: str


class GenerationControls(BaseModel):
    speed: ControlRange
    pitch: ControlRange
    volume: ControlRange
    quality: ControlChoices
    sample_rate: ControlChoices


class Modelling(BaseModel):
    modes: list[str]
    loras: list[str]
    engines: dict[str, list[str]] = Field(
        default_factory=dict, description="Each voice-modelling mode and the engines that do it."
    )
    custom_voices: str = "/v1/voices"
    reference_audio: dict[str, Any] = Field(default_factory=dict)


class TextNormalizationInfo(BaseModel):
    endpoint: str
    numbers: list[str]
    full_reading_rules: list[str]
    romanised_hindi: bool


class UnavailableFeature(BaseModel):
    feature: str
    reason: str


class PhonemeTimestampsInfo(BaseModel):
    """Phoneme timings and visemes: who gives them, how to ask, which mouth shapes."""

    request: list[str] = Field(
        default=[
            "POST /v1/audio/speech: phoneme_timestamps: true, with stream_format sse",
            "WebSockets: the query parameter phoneme_timestamps=true",
            "ElevenLabs' /with-timestamps routes: the query parameter phoneme_timestamps=true",
        ]
    )
    engines: list[str] = Field(description="Engines that time phonemes.")
    voices_without: list[str] = Field(
        description="Public voices whose engine does not: phonemes and visemes come empty."
    )
    viseme_set: Literal["oculus-15"] = "oculus-15"
    visemes: list[str]


class Limits(BaseModel):
    max_input_characters: int
    max_body_bytes: int


class Capabilities(BaseModel):
    object: Literal["capabilities"] = "capabilities"
    models: list[str]
    streaming: StreamingInfo
    audio_formats: list[AudioFormatInfo]
    sample_rates: list[int]
    default_sample_rate: int
    modelling: Modelling
    generation_controls: GenerationControls
    languages: list[str]
    default_language: str
    default_voice: str
    voices: list[VoiceRecord]
    text_normalization: TextNormalizationInfo
    phoneme_timestamps: PhonemeTimestampsInfo
    language_policy_version: str
    unavailable: list[UnavailableFeature]
    limits: Limits
    compatibility: dict[str, Any] | None = Field(
        default=None,
        description="Other APIs' clients this service answers: names, ignored fields.",
    )
