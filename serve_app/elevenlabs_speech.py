"""ElevenLabs' text-to-speech REST endpoints on our pipeline.

``POST /v1/text-to-speech/{voice_id}`` (and ``/stream``) answer with audio,
``/with-timestamps`` with one JSON object and ``/stream/with-timestamps`` with a JSON
object a line, each ``{"audio_base64", "alignment", "normalized_alignment"}``, as
ElevenLabs' SDK and Pipecat's ``ElevenLabsHttpTTSService`` read them. The request
becomes our own :class:`SpeechRequest`:

- ``voice_id``: ElevenLabs' premade voice ids map to ours (``configs/compat.yaml``);
  our voice ids work too.
- ``model_id``: ElevenLabs' model ids are aliases of ours.
- ``output_format`` (query): ``pcm_<rate>``, ``ulaw_8000``, ``alaw_8000``,
  ``mp3_<rate>_<kbps>``, ``opus_48000_<kbps>``; default ``mp3_44100_128``.
- ``language_code``: ours when sent, else the language of the text's script.
- ``voice_settings.speed`` is honoured. Fields that shape ElevenLabs' own voices or
  requests and that ours have no counterpart for are accepted and not applied (one
  list, ``serve_app.compat.ELEVENLABS_IGNORED_FIELDS``, also in /v1/capabilities):
  ``stability``, ``similarity_boost``, ``style``, ``use_speaker_boost``,
  ``previous_text``, ``next_text``, ``seed``, ``pronunciation_dictionary_locators``,
  ... Our text normalisation always runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from deployments.synthesis.alignment import Alignment
from serve_app.catalog import Catalog
from serve_app.compat import ClientNames, client_language
from serve_app.errors import InvalidRequest, NotFound, validate
from serve_app.protocol import SpeechRequest, UnicodeText

DEFAULT_OUTPUT_FORMAT = "mp3_44100_128"
_OUTPUT_FORMAT = re.compile(r"(pcm|ulaw|alaw|mp3|opus)_(\d+)(?:_(\d+))?")


class ElevenVoiceSettings(BaseModel):
    model_config = ConfigDict(extra="ignore")

    speed: float | None = Field(None, ge=0.5, le=2.0)


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
    pronunciation_dictionary_locators: list[dict[str, Any]] | None = None
    apply_text_normalization: str | None = None
    apply_language_text_normalization: bool | None = None
    use_pvc_as_ivc: bool | None = None
    audio_effects: dict[str, Any] | None = None


@dataclass(frozen=True)
class OutputFormat:
    format: str
    sample_rate: int
    bitrate_kbps: int | None


def output_format(value: str | None) -> OutputFormat:
    """``pcm_24000``, ``ulaw_8000``, ``mp3_44100_128``, ``opus_48000_64``, ... (400
    ``invalid_value`` for any other)."""
    match = _OUTPUT_FORMAT.fullmatch(value or DEFAULT_OUTPUT_FORMAT)
    rate = int(match[2]) if match else 0
    fixed = {"ulaw": 8000, "alaw": 8000, "opus": 48000}
    if (
        match is None
        or fixed.get(match[1], rate) != rate
        or (match[3] is not None) != (match[1] in ("mp3", "opus"))
    ):
        raise InvalidRequest(
            "invalid_value",
            f"output_format '{value}' is not one of pcm_<rate>, ulaw_8000, alaw_8000, "
            "mp3_<rate>_<kbps>, opus_48000_<kbps>.",
            "output_format",
        )
    return OutputFormat(match[1], rate, int(match[3]) if match[3] else None)


@dataclass(frozen=True)
class ElevenRequest:
    request: SpeechRequest
    bitrate_kbps: int | None


def from_elevenlabs(
    document: object,
    voice_id: str,
    output: str | None,
    stream: bool,
    names: ClientNames,
    catalog: Catalog,
    model_id: str,
) -> ElevenRequest:
    """ElevenLabs' request as ours (400/404 with our codes for what is wrong in it)."""
    eleven = validate(ElevenSpeechRequest, document)
    wire = output_format(output)
    known = eleven.model_id in (None, model_id) or names.names_model(eleven.model_id)
    if not known:
        raise NotFound("model_not_found", f"No model '{eleven.model_id}'.", "model_id")
    language = client_language(catalog, eleven.language_code, eleven.text, "language_code")
    voice = names.voice(voice_id, language, catalog)
    speed = eleven.voice_settings.speed if eleven.voice_settings else None
    fields: dict[str, object] = {
        "input": eleven.text,
        "model": model_id,
        "language": language,
        "voice": voice.id if voice is not None else voice_id,  # None: perhaps the project's
        "response_format": wire.format,
        "sample_rate": wire.sample_rate,
        "speed": speed if speed is not None else 1.0,
        "stream": stream,
    }
    return ElevenRequest(SpeechRequest(**fields), wire.bitrate_kbps)  # type: ignore[arg-type]


def timestamps(alignment: Alignment | None, offset_ms: int) -> dict[str, object] | None:
    """Our character alignment (relative to its chunk) as ElevenLabs' (seconds from the
    start of the audio)."""
    if alignment is None:
        return None
    starts = [offset_ms + s for s in alignment.char_start_times_ms]
    ends = [s + d for s, d in zip(starts, alignment.char_durations_ms, strict=True)]
    return {
        "characters": list(alignment.chars),
        "character_start_times_seconds": [s / 1000 for s in starts],
        "character_end_times_seconds": [e / 1000 for e in ends],
    }
