"""The ``espeak`` engine: eSpeak NG in-process, through our ctypes binding."""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from deployments.espeak_binding import (
    EspeakError,
    EspeakLibrary,
    PhonemeEvent,
    VoiceSettings,
    espeak_library,
    languages,
)
from deployments.messages import AudioChunk, Segment, SynthesisParams
from deployments.synthesis.engine import CancelToken, EngineError, EngineInfo
from deployments.synthesis.options import EspeakOptions, EspeakVoiceParams
from deployments.synthesis.profiling import measure_profile
from deployments.synthesis.voices import VoiceConfig
from deployments.timings import PhonemeTiming, WordTiming
from deployments.voice_design.profiles import ProfileCache, VoiceProfile

MIN_RATE_WPM, MAX_RATE_WPM = 80, 450
INT16_SCALE = 1.0 / 32768.0


# With phoneme input on, "[[" in the client's own text would start eSpeak phonemes:
# there brackets become parentheses (the same length, and read alike: not at all).
_NO_PHONEME_INPUT = str.maketrans("[]", "()")


@dataclass(frozen=True)
class PhonemeText:
    """A segment's text for eSpeak, with ``[[...]]`` (its phoneme notation) where a
    rule gives eSpeak phonemes, and the way back: ``parts`` are (position here,
    position in the segment's text, length there, whether it is phonemes)."""

    text: str
    parts: tuple[tuple[int, int, int, bool], ...]

    @property
    def has_phonemes(self) -> bool:
        return any(phonemes for *_, phonemes in self.parts)

    @classmethod
    def of(cls, segment: Segment) -> PhonemeText:
        text, parts, cursor = [], [], 0
        size = 0
        for span in sorted(segment.phonemes, key=lambda s: s.start):
            if span.alphabet != "espeak" or span.start < cursor:
                continue  # IPA: eSpeak reads the words (the rule's text, read)
            plain = segment.text[cursor : span.start].translate(_NO_PHONEME_INPUT)
            for piece, start, length, phonemes in (
                (plain, cursor, span.start - cursor, False),
                (f"[[{span.phonemes}]]", span.start, span.end - span.start, True),
            ):
                parts.append((size, start, length, phonemes))
                text.append(piece)
                size += len(piece)
            cursor = span.end
        parts.append((size, cursor, len(segment.text) - cursor, False))
        rest = segment.text[cursor:]
        text.append(rest.translate(_NO_PHONEME_INPUT) if parts[1:] else rest)
        return cls("".join(text), tuple(parts))

    def span_of(self, position: int, length: int) -> tuple[int, int]:
        """The segment's offsets of the word eSpeak timed at ``position``: phonemes
        are their whole span."""
        at = max(i for i, part in enumerate(self.parts) if part[0] <= position or i == 0)
        here, there, size, phonemes = self.parts[at]
        if phonemes:
            return there, there + size
        start = there + min(position - here, size)
        return start, min(start + length, there + size)


def _clamp(value: float, low: int, high: int) -> int:
    return round(min(max(value, low), high))


class EspeakEngine:
    """eSpeak NG voices: a language voice (``hi``) plus an optional variant (``f3``).

    Voice ``params`` in the registry: ``variant`` (eSpeak variant name), ``rate_wpm``
    (words per minute at speed 1.0, default 175), ``pitch`` (0..100, default 50),
    ``pitch_range`` (0..100, default 50). Options: ``language_voices`` maps a
    language code to eSpeak's voice name where the two differ.
    """

    def __init__(self, library: EspeakLibrary, language_voices: dict[str, str]) -> None:
        self._library = library
        self._shipped = {name.lower() for name in languages()}
        self._language_voices = {k.lower(): v for k, v in language_voices.items()}
        self._voices: list[str] = []
        self._params: dict[str, EspeakVoiceParams] = {}
        self._profiles: dict[str, VoiceProfile] = {}
        self._profile_cache = ProfileCache()

    @classmethod
    def load(cls, options: dict[str, Any]) -> EspeakEngine:
        return cls(espeak_library(), EspeakOptions.model_validate(options).language_voices)

    def add_voice(self, voice: VoiceConfig) -> int:
        for language in voice.languages:
            if self._voice_name(language).lower() not in self._shipped:
                raise EngineError(f"eSpeak NG has no language {language!r} for voice {voice.id!r}")
        self._params[voice.id] = EspeakVoiceParams.model_validate(voice.params)
        self._voices.append(voice.id)
        profile = self._measure(voice)
        if profile is not None:
            self._profiles[voice.id] = profile
        return self._library.sample_rate

    def _measure(self, voice: VoiceConfig) -> VoiceProfile | None:
        """The voice's profile at pitch 0, -1 and +1, keyed by its settings."""
        rate = self._library.sample_rate
        key = ProfileCache.key("espeak", voice.params, voice.languages[0], rate)
        return measure_profile(self, voice, self._profile_cache, key, rate, pitched=True)

    def info(self) -> EngineInfo:
        codes = {name for name in self._shipped if "-" not in name}
        codes.update(self._language_voices)
        return EngineInfo(
            name="espeak",
            languages=tuple(sorted(codes)),
            sample_rate=self._library.sample_rate,
            device="cpu",
            voices=tuple(self._voices),
            modes=("preset", "description", "reference"),
            multilingual_voices=True,
            alignment=True,
            phonemes=True,
            profiles=dict(self._profiles),
        )

    def _voice_name(self, language: str) -> str:
        return self._language_voices.get(language, language)

    def settings_for(self, voice: VoiceConfig, params: SynthesisParams) -> VoiceSettings:
        """eSpeak's settings for ``voice`` speaking ``params.language`` at the asked prosody
        (and in the variant and pitch range a ``VoiceDesign`` asks for)."""
        own = self._params.get(voice.id) or EspeakVoiceParams.model_validate(voice.params)
        design = params.design
        name = self._voice_name(params.language)
        variant = (design.variant if design else None) or own.variant
        if variant:
            name = f"{name}+{variant}"
        pitch_range = own.pitch_range + 50.0 * (design.pitch_range if design else 0.0)
        return VoiceSettings(
            name=name,
            rate_wpm=_clamp(own.rate_wpm * params.speed, MIN_RATE_WPM, MAX_RATE_WPM),
            pitch=_clamp(own.pitch + 50.0 * params.pitch, 0, 100),
            pitch_range=_clamp(pitch_range, 0, 100),
        )

    def synthesise(
        self,
        segment: Segment,
        voice: VoiceConfig,
        params: SynthesisParams,
        cancel: CancelToken | None = None,
    ) -> Iterator[AudioChunk]:
        settings = self.settings_for(voice, params)
        should_stop = (lambda: cancel.cancelled) if cancel is not None else (lambda: False)
        said = PhonemeText.of(segment)
        try:
            utterance = self._library.synthesise(
                said.text, settings, should_stop, phoneme_input=said.has_phonemes
            )
        except EspeakError as e:
            raise EngineError(str(e)) from e
        words = tuple(
            WordTiming(*said.span_of(w.text_position, w.length), w.audio_ms)
            for w in utterance.words
        )
        phonemes: tuple[PhonemeTiming, ...] = ()
        if params.with_phonemes and utterance.blocks:
            audio = np.concatenate(utterance.blocks)
            rate = self._library.sample_rate
            phonemes = phoneme_timings(utterance.phonemes, words, audio, rate)
        for i, block in enumerate(utterance.blocks):
            yield AudioChunk(
                samples=block.astype(np.float32) * np.float32(INT16_SCALE),
                sample_rate=self._library.sample_rate,
                segment=segment.index,
                words=words if i == 0 else (),
                phonemes=phonemes if i == 0 else (),
            )


def phoneme_timings(
    events: list[PhonemeEvent], words: tuple[WordTiming, ...], audio: np.ndarray, rate: int
) -> tuple[PhonemeTiming, ...]:
    """eSpeak's phoneme events as timings, named without their stress marks, each
    saying the last word that began by its start. A phoneme lasts until the next event;
    where that event is unnamed (a pause, or a sound with no IPA), on while its audio
    still sounds, up to the next named phoneme: eSpeak places a pause before the
    clause's last vowel has died away."""
    starts = [w.start_ms for w in words]
    frame = max(1, rate // 100)  # 10 ms
    sounding = _sounding(audio, frame)
    total_ms = audio.size * 1000 // rate
    named = [i for i, event in enumerate(events) if _name(event)]
    timings = []
    for n, i in enumerate(named):
        event = events[i]
        limit = events[named[n + 1]].audio_ms if n + 1 < len(named) else total_ms
        end_ms = min(events[i + 1].audio_ms if i + 1 < len(events) else total_ms, limit)
        while end_ms < limit and sounding[min(end_ms // 10, sounding.size - 1)]:
            end_ms = min(limit, end_ms // 10 * 10 + 10)
        k = bisect.bisect_right(starts, event.audio_ms) - 1
        word = (words[k].start, words[k].end) if k >= 0 else (-1, -1)
        timings.append(PhonemeTiming(_name(event), event.audio_ms, end_ms - event.audio_ms, *word))
    return tuple(t for t in timings if t.duration_ms > 0)


def _name(event: PhonemeEvent) -> str:
    """An event's phoneme, without stress marks ("": a pause, or no IPA for it)."""
    name = event.name.replace("ˈ", "").replace("ˌ", "").strip()
    return "" if name.startswith("_") else name


def _sounding(audio: np.ndarray, frame: int) -> np.ndarray:
    """Per ``frame`` of ``audio``: whether it is within 40 dB of the loudest frame."""
    count = max(1, audio.size // frame)
    frames = (
        audio[: count * frame].astype(np.float64).reshape(count, -1)
        if audio.size
        else np.zeros((1, 1))
    )
    energy = (frames**2).mean(axis=1)
    return energy > energy.max() * 1e-4 if energy.max() > 0 else np.zeros(count, bool)
