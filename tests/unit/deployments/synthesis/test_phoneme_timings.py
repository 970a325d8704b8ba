"""Phoneme timings and visemes through the Synthesiser, from the real engines: Kokoro's
durations (the default voice) and eSpeak NG's phoneme events, checked against the
audio they time."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from deployments.messages import AudioChunk, PhonemeSpan, Segment, SynthesisParams
from deployments.normaliser.normaliser import TextNormaliser
from deployments.normaliser.sources import word_sources
from deployments.reading import ReadingOptions
from deployments.synthesis.registry import load_engine
from deployments.synthesis.synthesiser import Synthesiser
from deployments.synthesis.visemes import VISEMES
from deployments.synthesis.voices import VoiceRegistry

REGISTRY = Path(__file__).resolve().parents[4] / "configs" / "voices.yaml"
KOKORO, ESPEAK = "default", "hi-espeak-aditi"
TEXT = "मुझे 25 किलो चावल चाहिए, ₹1,250 में।"
# The span of speech: where the audio is within 40 dB of its loudest 10 ms.
SPEECH_DB = 40
TOLERANCE_MS = 50


@pytest.fixture(scope="module")
def synthesiser() -> Synthesiser:
    every = VoiceRegistry.from_file(REGISTRY)
    chosen = VoiceRegistry([every.get(KOKORO), every.get(ESPEAK)])  # type: ignore[list-item]
    engines = {name: load_engine(name, {}) for name in ("kokoro", "espeak")}
    return Synthesiser(chosen, engines)


def spoken(synthesiser: Synthesiser, voice: str, text: str = TEXT) -> list[AudioChunk]:
    segments = TextNormaliser().normalise(text, ReadingOptions("hi")).segments
    params = SynthesisParams(voice, "hi", with_phonemes=True)
    return [synthesiser.speak(segment, params) for segment in segments]


def speech_span_ms(chunk: AudioChunk) -> tuple[float, float]:
    frame = chunk.sample_rate // 100
    energy = np.convolve(chunk.samples.astype(np.float64) ** 2, np.ones(frame) / frame, "same")
    loud = np.flatnonzero(energy > energy.max() * 10 ** (-SPEECH_DB / 10))
    return loud[0] * 1000 / chunk.sample_rate, (loud[-1] + 1) * 1000 / chunk.sample_rate


@pytest.mark.parametrize("voice", [KOKORO, ESPEAK])
def test_phonemes_are_in_order_and_span_the_speech(synthesiser: Synthesiser, voice: str) -> None:
    for chunk in spoken(synthesiser, voice):
        assert chunk.timings is not None and chunk.timings.phonemes
        phonemes = chunk.timings.phonemes
        ends = [p.start_ms + p.duration_ms for p in phonemes]
        assert all(p.duration_ms > 0 for p in phonemes)
        assert all(a.start_ms <= b.start_ms for a, b in itertools.pairwise(phonemes))
        assert all(
            end <= nxt.start_ms for end, nxt in zip(ends[:-1], phonemes[1:], strict=True)
        )  # no overlap
        first, last = speech_span_ms(chunk)
        assert abs(phonemes[0].start_ms - first) <= TOLERANCE_MS
        assert abs(ends[-1] - last) <= TOLERANCE_MS
        assert chunk.phonemes == ()  # the engine's raw timings do not travel twice


@pytest.mark.parametrize("voice", [KOKORO, ESPEAK])
def test_each_phoneme_names_the_word_the_user_wrote(synthesiser: Synthesiser, voice: str) -> None:
    words = {
        TEXT[p.start : p.end]
        for chunk in spoken(synthesiser, voice)
        for p in chunk.timings.phonemes  # type: ignore[union-attr]
    }
    # "25" and "₹1,250" were read as Hindi words: the phonemes of those words point
    # at the digits as written
    assert {"मुझे", "25", "किलो", "चावल", "₹1,250"} <= words
    assert "पच्चीस" not in words


@pytest.mark.parametrize("voice", [KOKORO, ESPEAK])
def test_visemes_cover_the_audio_one_shape_at_a_time(synthesiser: Synthesiser, voice: str) -> None:
    for chunk in spoken(synthesiser, voice):
        assert chunk.timings is not None
        visemes = chunk.timings.visemes
        duration_ms = chunk.samples.size * 1000 // chunk.sample_rate
        assert visemes[0].start_ms == 0
        assert visemes[-1].start_ms + visemes[-1].duration_ms == duration_ms
        for a, b in itertools.pairwise(visemes):
            assert a.start_ms + a.duration_ms == b.start_ms  # no gap, no overlap
            assert a.viseme != b.viseme  # a repeated shape is one
        assert {v.viseme for v in visemes} <= set(VISEMES)
        # silence where no phoneme sounds: before the first (Kokoro's lead-in) and after
        # the last (the pause a sentence ends with)
        assert (visemes[0].viseme == "sil") == (chunk.timings.phonemes[0].start_ms > 0)
        assert visemes[-1].viseme == "sil"
        assert {"PP", "kk", "aa"} <= {v.viseme for v in visemes}  # m, k, aa


def test_a_phoneme_rule_is_heard_as_its_own_phonemes(synthesiser: Synthesiser) -> None:
    """A dictionary rule that gives IPA for a word: the timings show those phonemes."""
    text = "मेरा नाम ज़ोया है।"
    start = text.index("ज़ोया")
    rule = PhonemeSpan(start, start + len("ज़ोया"), "zoːjaː", "ipa")
    segment = Segment(0, text, 0, len(text), phonemes=(rule,), sources=word_sources(text, text))
    chunk = synthesiser.speak(segment, SynthesisParams(KOKORO, "hi", with_phonemes=True))
    assert chunk.timings is not None
    said = [p.phoneme for p in chunk.timings.phonemes if p.start == start]
    assert said == ["z", "oː", "j", "aː"]


def test_without_asking_there_are_no_timings(synthesiser: Synthesiser) -> None:
    for voice in (KOKORO, ESPEAK):
        segment = Segment(0, "नमस्ते।", 0, len("नमस्ते।"))
        chunk = synthesiser.speak(segment, SynthesisParams(voice, "hi"))
        assert chunk.timings is None and chunk.phonemes == ()


def test_a_pause_before_moves_the_timings_with_the_audio(synthesiser: Synthesiser) -> None:
    text = "नमस्ते।"
    params = SynthesisParams(KOKORO, "hi", with_phonemes=True)
    plain = synthesiser.speak(Segment(0, text, 0, len(text)), params)
    paused = synthesiser.speak(Segment(0, text, 0, len(text), pause_before_ms=300), params)
    assert plain.timings is not None and paused.timings is not None
    assert [p.start_ms + 300 for p in plain.timings.phonemes] == [
        p.start_ms for p in paused.timings.phonemes
    ]
    assert paused.timings.visemes[0].viseme == "sil"
    assert paused.timings.visemes[0].duration_ms >= 300
