"""The measures, against signals whose answers are known, then against real voices."""

from __future__ import annotations

import numpy as np
import pytest

from deployments.messages import SynthesisParams
from deployments.synthesis.engines.espeak.engine import EspeakEngine
from deployments.synthesis.voices import VoiceConfig
from deployments.voice_design.analysis import NotSpeech, Silence, measure
from tests.conftest import speech_like

RATE = 24_000


def voiced(f0: np.ndarray | float, seconds: float, syllables_per_s: float = 4.0) -> np.ndarray:
    return speech_like(f0, seconds, RATE, syllables_per_s)


@pytest.mark.parametrize("f0", [90.0, 150.0, 230.0, 380.0])
def test_median_f0_of_a_steady_buzz(f0: float) -> None:
    heard = measure(voiced(f0, 3.0), RATE)
    assert heard.median_f0 == pytest.approx(f0, rel=0.02)
    assert heard.f0_range_st < 0.5


def test_a_glide_spans_its_range_and_the_envelope_gives_the_rate() -> None:
    # an octave glide: 10th to 90th percentile spans 80 % of 12 semitones
    glide = np.geomspace(110.0, 220.0, 4 * RATE)
    heard = measure(voiced(glide, 4.0, syllables_per_s=4.0), RATE)
    assert heard.f0_range_st == pytest.approx(9.6, abs=1.0)
    assert heard.median_f0 == pytest.approx(np.sqrt(110 * 220), rel=0.04)
    assert heard.syllable_rate == pytest.approx(4.0, abs=0.6)
    assert measure(voiced(150.0, 4.0, syllables_per_s=6.0), RATE).syllable_rate > 5.0


def test_silence_and_noise_are_not_speech() -> None:
    with pytest.raises(Silence):
        measure(np.zeros(2 * RATE, np.float32), RATE)
    noise = np.random.default_rng(7).normal(0, 0.1, 2 * RATE).astype(np.float32)
    with pytest.raises(NotSpeech):
        measure(noise, RATE)


def test_espeak_pitch_settings_move_the_measured_f0_in_order() -> None:
    engine = EspeakEngine.load({})
    # A female variant: eSpeak's plain Hindi voice at pitch -0.5 is ~85 Hz, and eSpeak's
    # samples vary a little from one call to the next (the same call twice differs),
    # which there made the pitch tracker lose the voicing in ~1 run in 20 (measured).
    voice = VoiceConfig(
        id="v",
        name="v",
        engine="espeak",
        languages=("hi",),
        gender="female",
        sample_rate=22050,
        params={"variant": "f3"},
    )
    medians = []
    for pitch in (-0.5, 0.0, 0.5):
        settings = engine.settings_for(voice, SynthesisParams("v", "hi", pitch=pitch))
        utterance = engine._library.synthesise("नमस्ते, आज मौसम बहुत अच्छा है।", settings)
        samples = np.concatenate(utterance.blocks).astype(np.float32) / 32768
        medians.append(measure(samples, engine._library.sample_rate).median_f0)
    assert medians == sorted(medians) and medians[2] / medians[0] > 1.3
