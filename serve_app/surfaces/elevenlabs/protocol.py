"""ElevenLabs' wire models: the text-to-speech body and the WebSocket messages and query."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from serve_app.speech.vocabulary import (
    CONTROLS,
    DictionaryLocator,
    Speed,
    TextNormalization,
    UnicodeText,
)
from serve_app.surfaces.native.protocol import FlushId, WsGenerationConfig


class ElevenVoiceSettings(BaseModel):
    model_config = ConfigDict(extra="ignore")

    speed: float | None = Field(None, ge=0.5, le=2.0)


# the field that names pronunciation dictionaries, as their errors name it
LOCATORS = "pronunciation_dictionary_locators"


class ElevenSpeechRequest(BaseModel):
    """ElevenLabs' text-to-speech body: every field it defines, so that a typo is
    still refused."""

    model_config = ConfigDict(extra="forbid")

    text: UnicodeText
    model_id: str | None = None
    language_code: str | None = None
    voice_settings: ElevenVoiceSettings | None = None
    previous_text: str | None = None
    next_text: str | None = None
    previous_request_ids: list[str] | None = None
    next_request_ids: list[str] | None = None
    seed: int | None = None
    # checked as they are read (a locator without its id is a 400 naming it here)
    pronunciation_dictionary_locators: list[DictionaryLocator] | None = None
    apply_text_normalization: TextNormalization = "auto"
    apply_language_text_normalization: bool | None = None
    use_pvc_as_ivc: bool | None = None
    audio_effects: dict[str, Any] | None = None


class ElevenWsVoiceSettings(BaseModel):
    """ElevenLabs' voice settings: speed is honoured, the rest accepted and not applied."""

    model_config = ConfigDict(extra="ignore")

    speed: Speed = CONTROLS["speed"][2]


class ElevenWsMessage(BaseModel):
    """A client frame of ElevenLabs' WebSockets. ``stream-input``: text, flush, and
    ``{"text": ""}`` to end. ``multi-stream-input``: the same with ``context_id`` (each
    context its own audio), ``close_context``, ``close_socket``; there ``{"text": ""}``
    is a keep-alive."""

    model_config = ConfigDict(extra="forbid")

    text: UnicodeText | None = None
    context_id: str | None = Field(None, max_length=128)
    voice_settings: ElevenWsVoiceSettings | None = None
    generation_config: WsGenerationConfig | None = None
    xi_api_key: str | None = None
    authorization: str | None = None
    flush: bool = False
    flush_id: FlushId = None  # ours, as on our WebSocket
    clear: bool = False  # ours: drop what is queued (barge-in)
    try_trigger_generation: bool = False
    close_context: bool = False
    close_socket: bool = False
    pronunciation_dictionary_locators: list[DictionaryLocator] | None = None


class ElevenWsQuery(BaseModel):
    """Query parameters of ElevenLabs' WebSocket URLs; others it may add are ignored."""

    model_config = ConfigDict(extra="ignore")

    model_id: str | None = None
    output_format: str | None = None
    language_code: str | None = None
    inactivity_timeout: float = Field(20.0, gt=0, le=180)
    enable_ssml_parsing: bool = False
    phoneme_timestamps: bool = False  # ours: audio messages carry phonemes and visemes
    auto_mode: bool = False  # no chunk schedule: generate at sentence ends and flushes
    apply_text_normalization: TextNormalization = "auto"
    cache: bool = True  # ours: false, every text synthesised, none kept (the speech cache)
    # alignment in the message of its audio: always so here
    sync_alignment: bool = True
