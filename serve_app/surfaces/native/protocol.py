"""Our API's own wire models: discovery bodies (readiness, models, voices), SSE event
payloads, errors and the WebSocket's frames. A speech request's body is the service's
own :class:`~serve_app.speech.vocabulary.SpeechRequest`."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from serve_app.settings import DEFAULT_MODEL_ID
from serve_app.speech.streams.text_buffer import DEFAULT_SCHEDULE
from serve_app.speech.vocabulary import (
    CONTROLS,
    DICTIONARIES_FIELD,
    Dictionaries,
    Pitch,
    Quality,
    RequestUsage,
    Speed,
    StreamableFormat,
    TextNormalization,
    TextType,
    UnicodeText,
    VoiceRecord,
    Volume,
)


class HealthStatus(BaseModel):
    status: Literal["ok"] = "ok"


class ModelEntry(BaseModel):
    id: str
    object: Literal["model"] = "model"
    owned_by: str


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelEntry]


class VoiceList(BaseModel):
    object: Literal["list"] = "list"
    data: list[VoiceRecord]


class PipelineStage(BaseModel):
    """Where a stage runs ("deployment", "ingress", or "deployment; espeak in the
    ingress") and its running replicas (a stage in the ingress runs in each)."""

    placement: str
    replicas: int | None


class EngineStatus(BaseModel):
    name: str
    modes: list[str] = Field(default_factory=list)
    device: str
    sample_rate: int
    voices: list[str]
    controls: list[str]
    alignment: bool
    state: Literal["running", "scaled_to_zero"] = Field(
        "running",
        description="scaled_to_zero: its Synthesiser deployment has no replica while idle "
        "(what its last replica had loaded is shown); the next request starts one and "
        "waits for it.",
    )
    stats: dict[str, Any] = Field(default_factory=dict, description="Engine counters.")


class SpeechCacheStatus(BaseModel):
    """What the replica's speech cache holds in its memory now."""

    entries: int = Field(description="Sentences (groups of clauses spoken as one).")
    bytes: int = Field(description="Their audio, and what it takes to keep it.")
    evictions: int = Field(description="Dropped to make room since the replica started.")


class ReplicaStatus(BaseModel):
    """The ingress replica that answered: what it holds open now (leaks show here)."""

    asyncio_tasks: int
    open_fds: int
    threads: int
    active_requests: int
    warm_up_s: float | None = Field(
        default=None,
        description="Seconds this replica spent serving its warm-up request before it "
        "took any (None: not warmed up, or the warm-up failed).",
    )
    speech_cache: SpeechCacheStatus | None = Field(
        default=None, description="Its speech cache's memory (None: no speech cache)."
    )


class Readiness(BaseModel):
    status: Literal["ready"] = "ready"
    model: str
    sample_rate: int
    languages: list[str]
    voices: list[str]
    loras: list[str]
    stream_formats: list[str]
    modes: list[str]
    language_policy_version: str
    pipeline: dict[str, PipelineStage]
    engines: list[EngineStatus]
    replica: ReplicaStatus | None = None


class AudioDelta(BaseModel):
    type: Literal["audio.delta"] = "audio.delta"
    index: int
    delta: str
    ttfa_ms: float | None = None
    phonemes: dict[str, list[str] | list[int]] | None = None
    visemes: dict[str, list[str] | list[int]] | None = None


class AudioDone(BaseModel):
    type: Literal["audio.done"] = "audio.done"
    chunks: int
    usage: RequestUsage


class ErrorInfo(BaseModel):
    message: str
    type: str
    code: str
    param: str | None
    request_id: str


class ErrorResponse(BaseModel):
    error: ErrorInfo


class WsVoiceSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    speed: Speed = CONTROLS["speed"][2]
    pitch: Pitch = CONTROLS["pitch"][2]
    volume: Volume = CONTROLS["volume"][2]


class WsGenerationConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    chunk_length_schedule: list[Annotated[int, Field(ge=1, le=1000)]] = Field(
        default_factory=lambda: list(DEFAULT_SCHEDULE), min_length=1, max_length=10
    )


FlushId = Annotated[
    str | None,
    Field(
        max_length=128,
        description="Names a flush: once the last audio of the text it flushed is sent, "
        '`{"flushDone": true, "flushId": ...}` follows.',
    ),
]


class WsInputMessage(BaseModel):
    """A client frame. The first may carry settings and the key; then text, flush, end.
    ``text`` is required but in a ``clear``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    text: UnicodeText | None = None
    voice_settings: WsVoiceSettings | None = None
    generation_config: WsGenerationConfig | None = None
    authorization: str | None = None
    flush: bool = False
    flush_id: FlushId = None
    clear: bool = False
    try_trigger_generation: bool = False
    pronunciation_dictionaries: Dictionaries = DICTIONARIES_FIELD


class WsQuery(BaseModel):
    """Query parameters of the WebSocket URL (never the key)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    language: str | None = None
    response_format: StreamableFormat = "pcm"
    sample_rate: int | None = None
    quality: Quality = "balanced"
    model: str = Field(DEFAULT_MODEL_ID, validation_alias=AliasChoices("model", "model_id"))
    inactivity_timeout: float = Field(20.0, gt=0, le=180)
    text_type: TextType = "text"
    phoneme_timestamps: bool = False
    auto_mode: bool = False
    apply_text_normalization: TextNormalization = "auto"
    cache: bool = True  # false: every text synthesised, none kept (the speech cache)
    # alignment in the message of its own audio: always so here (ElevenLabs' choice)
    sync_alignment: bool = True


class WsAudioMessage(BaseModel):
    audio: str
    isFinal: Literal[False] = False
    index: int
    alignment: dict[str, list[str] | list[int]] | None


class WsFinalMessage(BaseModel):
    isFinal: Literal[True] = True
    usage: RequestUsage
