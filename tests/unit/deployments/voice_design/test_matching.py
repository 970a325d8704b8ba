"""The blend search, on voices with made-up profiles (the numbers of Kokoro's and
eSpeak's Hindi voices, rounded)."""

from __future__ import annotations

import math

import pytest

from deployments.voice_design.analysis import SpeechMeasure
from deployments.voice_design.description import parse
from deployments.voice_design.matching import (
    EXTRAPOLATION,
    GENDER_SHARE,
    Candidate,
    from_description,
    from_reference,
)
from deployments.voice_design.profiles import VoiceProfile

KOKORO = [
    Candidate("alpha", "female", VoiceProfile(201.0, 8.2, 4.7, 1167.0)),
    Candidate("beta", "female", VoiceProfile(177.0, 9.2, 4.9, 1255.0)),
    Candidate("omega", "male", VoiceProfile(135.0, 11.6, 4.2, 1144.0)),
    Candidate("psi", "male", VoiceProfile(139.0, 12.2, 4.4, 1063.0)),
]
ESPEAK = [
    Candidate("aditi", "female", VoiceProfile(222.0, 6.7, 5.0, 2019.0, (158.0, 335.0))),
    Candidate("arjun", "male", VoiceProfile(97.0, 4.3, 4.9, 1776.0, (71.0, 157.0))),
]


def heard(f0: float, rate: float = 4.5, range_st: float = 9.0) -> SpeechMeasure:
    return SpeechMeasure(
        median_f0=f0,
        f0_low=f0 / 2 ** (range_st / 24),
        f0_high=f0 * 2 ** (range_st / 24),
        syllable_rate=rate,
        loudness_db=-20.0,
        brightness_hz=1150.0,
        speech_s=5.0,
        voiced_s=3.0,
    )


def weights(blend: tuple[tuple[str, float], ...]) -> dict[str, float]:
    return dict(blend)


def test_a_deep_slow_male_voice_from_the_female_default() -> None:
    match = from_description(
        parse("a calm, deep male voice, speaking slowly"), KOKORO[0], KOKORO, True, False
    )
    mix = weights(match.design.blend)
    male = sum(w for v, w in mix.items() if v in ("omega", "psi"))
    assert male >= GENDER_SHARE and match.expected_f0 is not None
    assert match.expected_f0 < 135.0  # lower than the lowest voice: past it
    assert match.speed == pytest.approx(2**-0.5)
    assert match.report["gender"] == "male" and "blend" in match.report


def test_a_high_female_voice_goes_past_the_highest_but_no_further_than_allowed() -> None:
    match = from_description(parse("a very high female voice"), KOKORO[0], KOKORO, True, False)
    assert match.expected_f0 is not None and match.expected_f0 > 201.0
    assert max(abs(w) for w in weights(match.design.blend).values()) <= 1 + EXTRAPOLATION + 1e-9
    assert math.isclose(sum(weights(match.design.blend).values()), 1.0)


def test_words_about_pitch_order_the_voices() -> None:
    f0 = {}
    for text in ("a low female voice", "a female voice", "a high female voice"):
        match = from_description(parse(text), KOKORO[1], KOKORO, True, False)
        f0[text] = match.expected_f0
    assert f0["a low female voice"] < f0["a female voice"] < f0["a high female voice"]


def test_no_words_about_the_voice_keep_it() -> None:
    match = from_description(parse("please read this"), KOKORO[1], KOKORO, True, False)
    assert match.design.blend == (("beta", 1.0),) and match.speed == 1.0


def test_an_engine_without_blends_moves_its_pitch_instead() -> None:
    deep = from_description(parse("a deep male voice"), ESPEAK[0], ESPEAK, False, True)
    assert deep.design.blend == (("arjun", 1.0),) and -1.0 <= deep.pitch < 0
    high = from_description(parse("a high voice"), ESPEAK[0], ESPEAK, False, True)
    assert high.design.blend == (("aditi", 1.0),) and high.pitch > 0
    assert high.expected_f0 is not None and high.expected_f0 > 222.0


def test_a_gender_no_voice_has_is_a_variant_on_espeak() -> None:
    only_female = [ESPEAK[0]]
    match = from_description(parse("a male voice"), ESPEAK[0], only_female, False, True)
    assert match.design.variant == "m3" and match.design.blend == (("aditi", 1.0),)
    assert match.expected_f0 is None and "achieved_f0" not in match.report


@pytest.mark.parametrize("voice", KOKORO)
def test_a_reference_lands_near_its_voice(voice: Candidate) -> None:
    match = from_reference(
        heard(voice.profile.median_f0, range_st=voice.profile.f0_range_st), KOKORO, True, False
    )
    heaviest = max(match.design.blend, key=lambda item: item[1])[0]
    gender = {c.voice_id: c.gender for c in KOKORO}
    assert gender[heaviest] == voice.gender
    assert match.expected_f0 == pytest.approx(voice.profile.median_f0, rel=0.03)


def test_a_reference_s_pace_sets_the_speed_within_bounds() -> None:
    fast = from_reference(heard(180.0, rate=6.5), KOKORO, True, False)
    slow = from_reference(heard(180.0, rate=1.0), KOKORO, True, False)
    assert fast.speed > 1.2 and slow.speed == 0.7
    assert fast.report["target_rate"] == 6.5 and "achieved_rate" in fast.report


def test_a_reference_on_espeak_picks_the_voice_of_its_gender_and_sets_pitch() -> None:
    match = from_reference(heard(142.0), ESPEAK, False, True)
    assert match.design.blend == (("arjun", 1.0),) and match.pitch > 0
    assert match.expected_f0 == pytest.approx(142.0, rel=0.01)
