"""OpenAI's speech request (``POST /v1/audio/speech`` with an OpenAI model id), as its
SDK sends it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from serve_app.speech.vocabulary import Format, Quality, UnicodeText


class VoiceRef(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str


class OpenAISpeechRequest(BaseModel):
    """OpenAI's speech request, and the fields of ours that make sense with it."""

    model_config = ConfigDict(extra="forbid")

    input: UnicodeText
    model: str
    voice: str | VoiceRef
    instructions: str | None = None
    response_format: Format = "mp3"
    speed: float = Field(1.0, ge=0.25, le=4.0)
    stream_format: Literal["audio", "sse"] = "audio"
    language: str | None = None
    sample_rate: int | None = None
    quality: Quality = "balanced"
