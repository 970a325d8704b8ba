"""Measuring a voice once, and keeping what was measured."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from deployments.voice_design.analysis import NotSpeech
from deployments.voice_design.profiles import ProfileCache, Speak, VoiceProfile, measure_voice
from tests.conftest import speech_like

RATE = 24_000


def fake_speaker(low_is_silent: bool = False) -> tuple[Speak, list[tuple[str, float]]]:
    calls: list[tuple[str, float]] = []

    def speak(text: str, language: str, pitch: float) -> np.ndarray:
        calls.append((language, pitch))
        if low_is_silent and pitch < 0:
            return np.zeros(RATE, np.float32)
        return speech_like(150.0 * 2.0**pitch, 2.0)

    return speak, calls


def test_a_pitched_voice_is_measured_at_its_lowest_and_highest_pitch() -> None:
    speak, calls = fake_speaker()
    profile = measure_voice(speak, "ta", RATE, pitched=True)
    assert [p for _, p in calls] == [0.0, 1.0, -1.0]
    assert {language for language, _ in calls} == {"en"}  # no Tamil probe: the English one
    assert profile.median_f0 == pytest.approx(150, rel=0.02)
    assert profile.pitch_f0 == pytest.approx((75, 300), rel=0.03)


def test_a_low_end_too_low_to_hear_is_mirrored_from_the_high_end() -> None:
    speak, _ = fake_speaker(low_is_silent=True)
    profile = measure_voice(speak, "hi", RATE, pitched=True)
    assert profile.pitch_f0 is not None
    assert profile.pitch_f0[0] == pytest.approx(75, rel=0.05)


def test_silence_cannot_be_profiled() -> None:
    with pytest.raises(NotSpeech):
        measure_voice(lambda *_: np.zeros(RATE, np.float32), "hi", RATE, pitched=False)


def test_the_cache_measures_once_and_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "profiles.json"
    cache = ProfileCache(path)
    measured: list[int] = []
    profile = VoiceProfile(140.0, 9.0, 4.4, 1100.0, (90.0, 220.0))

    def measure_it() -> VoiceProfile:
        measured.append(1)
        return profile

    key = ProfileCache.key("kokoro", "abc", 1.0)
    assert cache.get_or_measure(key, measure_it) == profile
    assert ProfileCache(path).get_or_measure(key, measure_it) == profile
    assert len(measured) == 1
    assert ProfileCache.key("kokoro", "abc", 1.1) != key  # what changes the sound is in the key
    path.write_text("not json")
    assert ProfileCache(path).get_or_measure(key, measure_it) == profile  # unreadable: measured
    assert json.loads(path.read_text())[key]["pitch_f0"] == [90.0, 220.0]


def test_a_voice_that_cannot_be_measured_still_serves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deployments.synthesis import profiling as engines
    from deployments.synthesis.engines.espeak import engine as espeak
    from deployments.synthesis.voices import VoiceConfig

    def unmeasurable(*_: object, **__: object) -> VoiceProfile:
        raise NotSpeech("under 0.3 s of voiced speech")

    monkeypatch.setenv("SPEECH_PROFILE_CACHE", str(tmp_path / "profiles.json"))
    monkeypatch.setattr(engines, "measure_voice", unmeasurable)
    engine = espeak.EspeakEngine.load({})
    voice = VoiceConfig(
        id="v", name="v", engine="espeak", languages=("hi",), gender="male", sample_rate=22050
    )
    assert engine.add_voice(voice) == 22050
    assert "v" in engine.info().voices and engine.info().profiles == {}


def test_processes_sharing_the_file_keep_what_each_measured(tmp_path: Path) -> None:
    """Two engines (or two replicas) open the cache, then each measures its own voice:
    the file keeps both, and a cache opened before the other wrote finds its voice
    without measuring it again."""
    path = tmp_path / "profiles.json"
    kokoro, espeak = ProfileCache(path), ProfileCache(path)
    measured: list[str] = []

    def measuring(name: str, f0: float) -> Callable[[], VoiceProfile]:
        def measure_it() -> VoiceProfile:
            measured.append(name)
            return VoiceProfile(f0, 9.0, 4.4, 1100.0)

        return measure_it

    first, second = ProfileCache.key("kokoro", "a"), ProfileCache.key("espeak", "b")
    kokoro.get_or_measure(first, measuring("kokoro", 150.0))
    espeak.get_or_measure(second, measuring("espeak", 110.0))
    assert set(json.loads(path.read_text())) == {first, second}
    assert espeak.get_or_measure(first, measuring("again", 0.0)).median_f0 == 150.0
    assert measured == ["kokoro", "espeak"]


def test_the_shipped_voices_come_measured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every voice of configs/voices.yaml with voice modes loads without a measurement:
    its profile is in the package (if this fails, a voice, a probe or the analysis
    changed: make the file again as deployments.voice_design.profiles says)."""
    from deployments.synthesis import profiling as engines
    from deployments.synthesis.synthesiser import Synthesiser, SynthesiserConfig

    measured: list[int] = []

    def counted(*args: object, **kwargs: object) -> VoiceProfile:
        measured.append(1)
        return VoiceProfile(100.0, 5.0, 4.0, 1000.0)

    monkeypatch.setenv("SPEECH_PROFILE_CACHE", str(tmp_path / "profiles.json"))
    monkeypatch.setattr(engines, "measure_voice", counted)
    info = Synthesiser.from_config(SynthesiserConfig(warm_up=False)).info()
    profiled = sum(len(engine.profiles) for engine in info.engines)
    assert profiled >= 9 + 15 and measured == []  # Kokoro's nine, eSpeak's fifteen
