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
- ``pronunciation_dictionary_locators`` (up to 3): the project's dictionaries
  (``/v1/pronunciation-dictionaries``), applied as ours are.
- ``voice_settings.speed`` is honoured. Fields that shape ElevenLabs' own voices or
  requests and that ours have no counterpart for are accepted and not applied (one
  list, ``serve_app.surfaces.compat.ELEVENLABS_IGNORED_FIELDS``, also in /v1/capabilities):
  ``stability``, ``similarity_boost``, ``style``, ``use_speaker_boost``,
  ``previous_text``, ``next_text``, ``seed``, ... Our text normalisation always runs.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

from pydantic import ValidationError
from starlette.responses import Response

from deployments.normaliser import without_tags
from deployments.timings import Alignment, Timings
from serve_app.http.body import validate
from serve_app.http.errors import InvalidRequest, NotFound, from_validation_error
from serve_app.speech.catalog import Catalog
from serve_app.speech.checked import CheckedRequest
from serve_app.speech.service import SpeechService
from serve_app.speech.vocabulary import SpeechRequest, preferring
from serve_app.surfaces.compat import ClientNames, client_language
from serve_app.surfaces.elevenlabs.protocol import LOCATORS, ElevenSpeechRequest
from serve_app.surfaces.framing import DeliveryResponse

DEFAULT_OUTPUT_FORMAT = "mp3_44100_128"


_OUTPUT_FORMAT = re.compile(r"(pcm|ulaw|alaw|mp3|opus)_(\d+)(?:_(\d+))?")


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
    ssml: bool = False,
    phonemes: bool = False,
) -> ElevenRequest:
    """ElevenLabs' request as ours (400/404 with our codes for what is wrong in it);
    ``ssml``: its text is SSML (``enable_ssml_parsing``, docs/pronunciation.md); ``phonemes``:
    the query asks for phoneme timings (ours: the /with-timestamps routes carry them)."""
    eleven = validate(ElevenSpeechRequest, document)
    wire = output_format(output)
    known = eleven.model_id in (None, model_id) or names.names_model(eleven.model_id)
    if not known:
        raise NotFound("model_not_found", f"No model '{eleven.model_id}'.", "model_id")
    sample = without_tags(eleven.text) if ssml else eleven.text
    language = client_language(catalog, eleven.language_code, sample, "language_code")
    voice = names.voice(voice_id, catalog)
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
        "text_type": "ssml" if ssml else "text",
        "phoneme_timestamps": phonemes,
        "apply_text_normalization": eleven.apply_text_normalization,
        "seed": eleven.seed,
        "previous_text": eleven.previous_text,
        "next_text": eleven.next_text,
        "previous_request_ids": eleven.previous_request_ids,
        "next_request_ids": eleven.next_request_ids,
    }
    if eleven.pronunciation_dictionary_locators is not None:
        fields["pronunciation_dictionaries"] = eleven.pronunciation_dictionary_locators
    request = as_ours(fields)
    if voice is not None:  # a name of ours: the language's own voice where it does not speak it
        request = preferring(request, voice.id)
    return ElevenRequest(request, wire.bitrate_kbps)


# Our request's fields by the names ElevenLabs' body gives them, for errors.
_THEIR_NAMES = {
    "input": "text",
    "model": "model_id",
    "language": "language_code",
    "speed": "voice_settings.speed",
    "pronunciation_dictionaries": LOCATORS,
}


def as_ours(fields: dict[str, object]) -> SpeechRequest:
    """``fields`` as our request; what our request refuses (four request ids where
    three are allowed) is a 400 naming ElevenLabs' field, never a 500."""
    try:
        return SpeechRequest.model_validate(fields)
    except ValidationError as e:
        error = from_validation_error(e)
    head, dot, rest = (error.param or "").partition(".")
    param = _THEIR_NAMES.get(head, head) + dot + rest
    message = error.message.replace(f"'{error.param}'", f"'{param}'")
    raise InvalidRequest(error.code, message, param or None) from None


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


async def timestamped(
    service: SpeechService,
    speech: CheckedRequest,
    stream: bool,
    extra_headers: dict[str, str] | None = None,
) -> Response:
    """ElevenLabs' audio with timestamps: one JSON object (``stream`` false) or one a
    line, each ``{"audio_base64", "alignment", "normalized_alignment"}`` with times in
    seconds from the start of the audio (alignment null where the engine gives none)."""
    delivery = await service.deliver(speech, "http")
    rate = speech.voicing.sample_rate
    headers = {**speech.headers(), **(extra_headers or {})}

    def piece(
        data: bytes, alignment: dict[str, object] | None, timings: Timings | None
    ) -> dict[str, object]:
        body: dict[str, object] = {
            "audio_base64": base64.b64encode(data).decode("ascii"),
            "alignment": alignment,
            "normalized_alignment": alignment,
        }
        return body | timings.as_wire() if timings is not None else body

    if not stream:
        try:
            parts = await delivery.collect()
        finally:
            await delivery.aclose()
        merged: Alignment | None = None
        timed: Timings | None = None
        offset = 0
        for chunk in parts:
            if chunk.alignment is not None:
                merged = (
                    chunk.alignment
                    if merged is None
                    else merged.followed_by(chunk.alignment, offset)
                )
            if chunk.timings is not None:
                timed = (timed or Timings()).followed_by(chunk.timings, offset)
            offset += chunk.audio_samples * 1000 // rate
        body = piece(b"".join(c.data for c in parts), timestamps(merged, 0), timed)
        return Response(json.dumps(body), media_type="application/json", headers=headers)

    async def lines() -> AsyncIterator[bytes]:
        offset_ms = 0
        async for chunk in delivery:
            timed = chunk.timings.moved(offset_ms) if chunk.timings is not None else None
            line = piece(chunk.data, timestamps(chunk.alignment, offset_ms), timed)
            yield json.dumps(line).encode() + b"\n"
            offset_ms += chunk.audio_samples * 1000 // rate

    return DeliveryResponse(lines(), delivery, media_type="application/json", headers=headers)
