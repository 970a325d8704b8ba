"""Wire models: request bodies, response bodies and SSE event payloads, in one place."""

from __future__ import annotations

from typing import Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

from serve_app.accounts import Usage

Format = Literal["pcm", "mp3", "wav"]
StreamFormat = Literal["audio", "sse"]
Quality = Literal["fast", "balanced", "high"]


class SpeechRequest(BaseModel):
    """Body of POST /v1/audio/speech. Only ``input`` is required; unknown fields are refused."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)

    input: str = Field(description="Text to speak; 1..4096 characters after NFC.")
    model: str = Field(
        "service-v1",
        validation_alias=AliasChoices("model", "model_id"),
        description="A model id from GET /v1/models; `model_id` is accepted too.",
    )
    language: str | None = Field(
        None, description="Language code, tag, name or endonym; default Hindi (`hi`)."
    )
    voice: str = Field("default", description="A registered voice id.")
    response_format: Format = "pcm"
    stream: bool = True
    stream_format: StreamFormat = "audio"
    quality: Quality = "balanced"
    speed: float = Field(1.0, ge=0.5, le=2.0)
    pitch: float = Field(0.0, ge=-1.0, le=1.0)
    volume: float = Field(1.0, ge=0.0, le=2.0)
    sample_rate: int | None = Field(None, description="8000, 16000, 22050, 24000, 44100, 48000.")
    voice_description: str | None = None
    reference_audio: str | None = None

    @field_validator("input")
    @classmethod
    def _no_surrogates(cls, value: str) -> str:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            raise ValueError("input holds a lone surrogate code point") from e
        return value


class HealthStatus(BaseModel):
    status: Literal["ok"] = "ok"


class ModelEntry(BaseModel):
    id: str
    object: Literal["model"] = "model"
    owned_by: str


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelEntry]


class UsageTotals(BaseModel):
    requests: int
    characters: int
    audio_ms: int
    spent_deci_micros: int


class UsageResponse(BaseModel):
    balance_deci_micros: int
    usage: UsageTotals

    @classmethod
    def of(cls, usage: Usage) -> UsageResponse:
        """SPEC.md's usage object for a project's ledger totals."""
        return cls(
            balance_deci_micros=usage.balance,
            usage=UsageTotals(
                requests=usage.requests,
                characters=usage.characters,
                audio_ms=usage.audio_ms,
                spent_deci_micros=usage.spent,
            ),
        )


class RequestUsage(BaseModel):
    """What one request was billed for (SSE ``audio.done``, headers, WebSocket)."""

    characters: int
    audio_ms: int
    cost_deci_micros: int


class AudioDelta(BaseModel):
    type: Literal["audio.delta"] = "audio.delta"
    index: int
    delta: str
    ttfa_ms: float | None = None


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
