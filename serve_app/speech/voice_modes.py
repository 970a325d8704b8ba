"""The description and reference modes: a request's ``voice_description`` or
``reference_audio`` made into a voice built from the loaded ones.

The reading of a description and the search for a blend live in
``deployments.voice_design`` (no HTTP, no Ray); here they meet the catalog (which
voices are loaded, their measured profiles) and the API's errors.
"""

from __future__ import annotations

import base64
import binascii
import io
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import soundfile

from deployments.messages import SynthesisParams, VoiceDesign
from deployments.synthesis import VoiceConfig
from deployments.voice_design import (
    Candidate,
    Match,
    NotAVoice,
    NotSpeech,
    Report,
    Silence,
    SpeechMeasure,
    from_description,
    from_reference,
    measure,
    parse_description,
)
from serve_app.http.errors import InvalidRequest
from serve_app.settings import MAX_REFERENCE_B64_CHARS, REFERENCE_SECONDS

if TYPE_CHECKING:
    from serve_app.speech.catalog import Catalog


MAX_DESCRIPTION_CHARS = 4096  # as long as an input: OpenAI clients send long instructions


SPEED_LIMITS = (0.25, 4.0)


@dataclass(frozen=True)
class DesignedVoice:
    """A voice built for a request: the registered voice it speaks with, the params
    that make it (design, speed, pitch) and the report for ``x-service-voice-design``."""

    voice: VoiceConfig
    params: SynthesisParams
    report: Report


def header_value(report: Report) -> str:
    return "; ".join(f"{key}={value}" for key, value in report.items())


MIN_REFERENCE_RATE = 8000


def _reference_error(code: str, message: str) -> InvalidRequest:
    return InvalidRequest(code, message, "reference_audio")


def decode_reference(data: str) -> tuple[np.ndarray, int]:
    """Mono float samples and rate of a base64 WAV, within the length limits."""
    if len(data) > MAX_REFERENCE_B64_CHARS:
        raise _reference_error(
            "reference_audio_too_large",
            f"reference_audio is {len(data)} base64 characters; the limit is "
            f"{MAX_REFERENCE_B64_CHARS} (20 s of 16 kHz 16-bit mono WAV fits).",
        )
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise _reference_error(
            "reference_audio_invalid", "reference_audio is not base64."
        ) from None
    try:
        info = soundfile.info(io.BytesIO(raw))
        if info.format not in ("WAV", "WAVEX"):
            raise ValueError(info.format)
        samples, rate = soundfile.read(io.BytesIO(raw), dtype="float32", always_2d=True)
    except (RuntimeError, ValueError, soundfile.LibsndfileError):
        raise _reference_error(
            "reference_audio_invalid", "reference_audio must be a base64 WAV file (RIFF)."
        ) from None
    if rate < MIN_REFERENCE_RATE:
        raise _reference_error(
            "reference_audio_invalid",
            f"reference_audio is sampled at {rate} Hz; a voice needs at least "
            f"{MIN_REFERENCE_RATE} Hz (telephone audio).",
        )
    seconds = samples.shape[0] / rate
    low, high = REFERENCE_SECONDS
    if seconds < low:
        raise _reference_error(
            "reference_audio_too_short",
            f"reference_audio is {seconds:.2f} s; at least {low:g} s of speech is needed.",
        )
    if seconds > high:
        raise _reference_error(
            "reference_audio_too_long",
            f"reference_audio is {seconds:.1f} s; the limit is {high:g} s.",
        )
    return samples.mean(axis=1), int(rate)


def analyse_reference(data: str) -> SpeechMeasure:
    """The measure of a reference recording (blocking: ~10 ms a second of audio)."""
    samples, rate = decode_reference(data)
    try:
        return measure(samples, rate)
    except NotSpeech as e:
        code = (
            "reference_audio_silent"
            if isinstance(e, Silence)
            else "reference_audio_not_speech"
            if isinstance(e, NotAVoice)
            else "reference_audio_too_short"
        )
        raise _reference_error(
            code, f"reference_audio has no speech to match ({e}): record a voice speaking."
        ) from None


def check_description(text: str) -> str:
    if len(text) > MAX_DESCRIPTION_CHARS:
        raise InvalidRequest(
            "invalid_value",
            f"voice_description is {len(text)} characters; the limit is {MAX_DESCRIPTION_CHARS}.",
            "voice_description",
        )
    if not text.strip():
        raise InvalidRequest("invalid_value", "voice_description is empty.", "voice_description")
    return text


def candidates(
    catalog: Catalog, voice: VoiceConfig, language: str
) -> tuple[Candidate, list[Candidate]]:
    """``voice`` and the public voices of its engine whose own language is ``language``,
    each with its measured profile."""
    profiles = catalog.engine_of(voice).profiles
    base_profile = profiles.get(voice.id)
    if base_profile is None:
        raise InvalidRequest(
            "unsupported_feature",
            f"Voice '{voice.id}' was not measured, so no voice can be built from it.",
            "voice",
        )
    base = Candidate(voice.id, voice.gender, base_profile)
    pool = [
        Candidate(v.id, v.gender, profiles[v.id])
        for v in catalog.public_voices()
        if v.engine == voice.engine and v.languages[0] == language and v.id in profiles
    ]
    if base.voice_id not in {c.voice_id for c in pool}:
        pool.insert(0, base)
    return base, pool


def designed(
    catalog: Catalog,
    voice: VoiceConfig,
    params: SynthesisParams,
    description: str | None = None,
    heard: SpeechMeasure | None = None,
) -> DesignedVoice:
    """The voice ``description`` or the reference ``heard`` asks for, spoken by
    ``voice``'s engine in ``params.language``, with ``params``' own speed and pitch
    applied on top."""
    engine = catalog.engine_of(voice)
    base, pool = candidates(catalog, voice, params.language)
    pitched = "pitch" in engine.controls
    match: Match
    if description is not None:
        match = from_description(parse_description(description), base, pool, engine.blends, pitched)
    else:
        assert heard is not None
        match = from_reference(heard, pool, engine.blends, pitched)
    return apply(catalog, voice, params, match.design, match.speed, match.pitch, match.report)


def apply(
    catalog: Catalog,
    voice: VoiceConfig,
    params: SynthesisParams,
    design: VoiceDesign,
    speed: float,
    pitch: float,
    report: Report,
) -> DesignedVoice:
    """``params`` speaking ``design``: a single-voice design speaks that voice; the
    request's speed is multiplied and its pitch added."""
    speaker = voice
    if len(design.blend) == 1:
        speaker = catalog.voice(design.blend[0][0]) or voice
    low, high = SPEED_LIMITS
    made = replace(
        params,
        voice=speaker.id,
        speed=round(max(low, min(high, params.speed * speed)), 4),
        pitch=round(max(-1.0, min(1.0, params.pitch + pitch)), 4),
        design=design,
    )
    return DesignedVoice(speaker, made, report)
