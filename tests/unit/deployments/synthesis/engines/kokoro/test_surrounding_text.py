"""Kokoro reading the text around a segment (previous_text / next_text): it speaks
the segment only, cut where the durations say, without a click, timed as alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from deployments.messages import AudioChunk, Segment, SynthesisParams
from deployments.synthesis.engines.kokoro.engine import KokoroEngine
from deployments.synthesis.registry import load_engine
from deployments.synthesis.voices import VoiceConfig, VoiceRegistry
from tests.unit.deployments.synthesis.test_phoneme_timings import TOLERANCE_MS, speech_span_ms

REGISTRY = Path(__file__).resolve().parents[6] / "configs" / "voices.yaml"
BEFORE = "आज सुबह से लगातार बारिश हो रही है।"
TEXT = "इसलिए दफ़्तर पहुँचने में देर हो सकती है।"
AFTER = "कृपया घर से थोड़ा पहले निकलें।"


@pytest.fixture(scope="module")
def kokoro() -> tuple[KokoroEngine, VoiceConfig]:
    voice = VoiceRegistry.from_file(REGISTRY).get("default")
    assert voice is not None
    engine = load_engine("kokoro", {})
    assert isinstance(engine, KokoroEngine)
    engine.add_voice(voice)
    return engine, voice


def said(kokoro: tuple[KokoroEngine, VoiceConfig], before: str = "", after: str = "") -> AudioChunk:
    engine, voice = kokoro
    segment = Segment(0, TEXT, 0, len(TEXT), previous_text=before, next_text=after)
    params = SynthesisParams(voice.id, "hi", with_phonemes=True)
    chunks = list(engine.synthesise(segment, voice, params))
    return AudioChunk(
        np.concatenate([c.samples for c in chunks]),
        chunks[0].sample_rate,
        0,
        tuple(w for c in chunks for w in c.words),
        phonemes=tuple(p for c in chunks for p in c.phonemes),
    )


@pytest.mark.parametrize(("before", "after"), [(BEFORE, ""), ("", AFTER), (BEFORE, AFTER)])
def test_only_the_segment_is_spoken(
    kokoro: tuple[KokoroEngine, VoiceConfig], before: str, after: str
) -> None:
    alone, read = said(kokoro), said(kokoro, before, after)
    # the same phonemes, of the segment's own words, and about as long
    assert [p.phoneme for p in read.phonemes] == [p.phoneme for p in alone.phonemes]
    assert {(w.start, w.end) for w in read.words} == {(w.start, w.end) for w in alone.words}
    assert 0.75 < read.samples.size / alone.samples.size < 1.25
    # the phonemes still span the speech: nothing of the surrounding text is left at either end
    speech_starts, speech_ends = speech_span_ms(read)
    first = read.phonemes[0].start_ms
    last = read.phonemes[-1].start_ms + read.phonemes[-1].duration_ms
    assert abs(speech_starts - first) <= TOLERANCE_MS and abs(speech_ends - last) <= TOLERANCE_MS


def test_a_cut_into_the_surrounding_text_does_not_click(
    kokoro: tuple[KokoroEngine, VoiceConfig],
) -> None:
    """Where the audio was cut (its first and last samples), it rises from and falls
    to silence: no step a listener hears as a click."""
    read = said(kokoro, BEFORE, AFTER)
    peak = float(np.abs(read.samples).max())
    assert float(np.abs(read.samples[:24]).max()) < 0.02 * peak  # the first millisecond
    assert float(np.abs(read.samples[-24:]).max()) < 0.02 * peak
    steps = np.abs(np.diff(read.samples[:480]))  # the first 20 ms
    assert float(steps.max()) < 0.25 * peak


def test_surrounding_text_changes_the_reading(kokoro: tuple[KokoroEngine, VoiceConfig]) -> None:
    alone, read = said(kokoro), said(kokoro, BEFORE, AFTER)
    assert alone.samples.size != read.samples.size or not np.allclose(alone.samples, read.samples)
