"""From what is asked (traits of a description, or a measured reference) to a voice
the engine can speak: a weighted blend of registered voices, a speed, and for
engines with pitch controls a pitch and range.

One search serves both modes. A target (median F0, and where known brightness,
pitch range and a required gender) is compared with every voice of the engine
and language, and, where the engine can blend voices (Kokoro mixes style
tables), with every blend of two of them in steps of 5 %, including up to 25 %
past either voice (away from the other: the only way to a voice higher than the
highest, or lower than the lowest). A blend's sound is predicted from its voices'
measured profiles: F0 and brightness as weighted geometric means, pitch range
and rate as weighted means. Measured on Kokoro's Hindi voices: a 50/50 blend of
201 Hz and 136 Hz voices speaks at 163 Hz (165 predicted); 120/-20 at 215 Hz (218
predicted); at 130/-30 the rhythm already drifted (3.1 syllables a second against
4.2), so blends stop at 25 %. The cost is the squared F0 error in semitones plus
smaller terms for brightness and range, a little for mixing at all (a single
voice wins a tie) and more for going past a voice. An engine with a pitch control (eSpeak) moves its
pitch to close the F0 gap, from the voice's measured F0 at its lowest and highest
pitch; among its voices, the one that needs the least of that wins.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from deployments.messages import VoiceDesign
from deployments.voice_design.analysis import SpeechMeasure
from deployments.voice_design.description import Report, VoiceTraits
from deployments.voice_design.profiles import VoiceProfile

PITCH_SPAN_ST = 4.0  # a description's "high"/"low" at full strength, in semitones
BRIGHTNESS_SPAN = 0.25  # octaves of spectral centroid at full strength
RANGE_SPAN_ST = 3.0  # semitones of pitch range at full expressiveness
PACE_SPAN = 0.5  # octaves of speed at full pace: fast = 1.41x, slow = 0.71x
GENDER_SHARE = 0.7  # the least weight a stated gender keeps in a blend
WEIGHT_STEP = 0.05
EXTRAPOLATION = 0.25  # how far past a voice a blend may go (further, artefacts)
MIX_COST = 0.05
EXTRAPOLATION_COST = 3.0  # per unit of weight past a voice
SHIFT_COST = 0.05  # per squared semitone a pitch control moves a voice
RANGE_COST = 0.02  # per squared semitone of pitch range
LIKELY_GENDER_COST = 2.0  # for a blend wholly of the other gender than a reference's
MALE_BELOW_HZ = 165.0  # a reference's median F0 under this is most likely a man's
REFERENCE_SPEED = (0.7, 1.5)
DEFAULT_VARIANTS = {"female": "f3", "male": "m3"}  # eSpeak, when no voice has the gender


@dataclass(frozen=True)
class Candidate:
    """A registered voice the search may use."""

    voice_id: str
    gender: str
    profile: VoiceProfile


@dataclass(frozen=True)
class Target:
    f0: float
    gender: str | None = None
    brightness_hz: float | None = None
    range_st: float | None = None
    brightness_weight: float = 4.0
    likely_gender: str | None = None  # a preference, not a rule (a reference's, by its F0)


@dataclass(frozen=True)
class Match:
    """The voice built for a target, what it is predicted to sound like, and the
    report the response carries (``x-service-voice-design``)."""

    design: VoiceDesign
    speed: float  # multiplies the request's speed
    pitch: float  # the engine's pitch control, -1..1 (0 where it has none)
    expected_f0: float | None
    expected_rate: float | None
    report: Report


def _log2_mean(values: list[tuple[float, float]]) -> float:
    return float(2.0 ** sum(w * math.log2(v) for w, v in values))


def _predict(blend: list[tuple[Candidate, float]]) -> VoiceProfile:
    return VoiceProfile(
        median_f0=_log2_mean([(w, c.profile.median_f0) for c, w in blend]),
        f0_range_st=sum(w * c.profile.f0_range_st for c, w in blend),
        syllable_rate=sum(w * c.profile.syllable_rate for c, w in blend),
        brightness_hz=_log2_mean([(w, c.profile.brightness_hz) for c, w in blend]),
    )


def _semitones(a: float, b: float) -> float:
    return 12.0 * math.log2(a / b)


def _pitch_for(profile: VoiceProfile, f0: float) -> float:
    """The pitch control (-1..1) that brings ``profile`` nearest ``f0``, interpolated
    in log F0 between the measured points."""
    if profile.pitch_f0 is None:
        return 0.0
    low, high = profile.pitch_f0
    mid = profile.median_f0
    if f0 >= mid:
        span = math.log2(high / mid)
        value = math.log2(f0 / mid) / span if span > 0 else 0.0
    else:
        span = math.log2(mid / low)
        value = -math.log2(mid / f0) / span if span > 0 else 0.0
    return max(-1.0, min(1.0, value))


def _f0_at(profile: VoiceProfile, pitch: float) -> float:
    if profile.pitch_f0 is None or pitch == 0:
        return profile.median_f0
    end = profile.pitch_f0[1] if pitch > 0 else profile.pitch_f0[0]
    return float(profile.median_f0 * (end / profile.median_f0) ** abs(pitch))


def _blends(candidates: list[Candidate], can_blend: bool) -> list[list[tuple[Candidate, float]]]:
    options = [[(c, 1.0)] for c in candidates]
    if can_blend:
        steps = round(1 / WEIGHT_STEP)
        past = round(EXTRAPOLATION / WEIGHT_STEP)
        for i, a in enumerate(candidates):
            for b in candidates[i + 1 :]:
                for k in range(-past, steps + past + 1):
                    if k in (0, steps):
                        continue
                    w = round(k * WEIGHT_STEP, 2)
                    options.append([(a, round(1 - w, 2)), (b, w)])
    return options


def _cost(blend: list[tuple[Candidate, float]], target: Target, pitched: bool) -> float:
    if target.gender is not None:
        share = sum(w for c, w in blend if c.gender == target.gender)
        if share < GENDER_SHARE - 1e-9:
            return math.inf
    predicted = _predict(blend)
    f0 = predicted.median_f0
    cost = 0.0
    if pitched:
        f0 = _f0_at(blend[0][0].profile, _pitch_for(blend[0][0].profile, target.f0))
        cost += SHIFT_COST * _semitones(f0, predicted.median_f0) ** 2
    cost += _semitones(f0, target.f0) ** 2
    if target.brightness_hz is not None:
        ratio = math.log2(predicted.brightness_hz / target.brightness_hz)
        cost += (target.brightness_weight * ratio) ** 2
    if target.range_st is not None:
        cost += RANGE_COST * (predicted.f0_range_st - target.range_st) ** 2
    if target.likely_gender is not None:
        share = sum(w for c, w in blend if c.gender == target.likely_gender)
        cost += LIKELY_GENDER_COST * max(0.0, 1.0 - share)
    if len(blend) > 1:
        past = sum(max(0.0, w - 1.0) + max(0.0, -w) for _, w in blend) / 2
        cost += MIX_COST + EXTRAPOLATION_COST * past
    return cost


def best_blend(
    target: Target, candidates: list[Candidate], can_blend: bool, pitched: bool
) -> list[tuple[Candidate, float]]:
    """The blend (or single voice) of ``candidates`` nearest ``target``; the first
    found wins a tie, so the answer is deterministic for a given order."""
    best: list[tuple[Candidate, float]] | None = None
    best_cost = math.inf
    for blend in _blends(candidates, can_blend):
        cost = _cost(blend, target, pitched)
        if cost < best_cost - 1e-12:
            best, best_cost = blend, cost
    if best is None:  # no voice of the gender: the closest in pitch, whatever its gender
        return best_blend(Target(target.f0), candidates, can_blend, pitched)
    return best


def _blend_text(blend: list[tuple[Candidate, float]]) -> str:
    return "+".join(f"{c.voice_id}:{w:.2f}" for c, w in blend)


def from_description(
    traits: VoiceTraits,
    base: Candidate,
    candidates: list[Candidate],
    can_blend: bool,
    pitched: bool,
) -> Match:
    """The voice ``traits`` describe, relative to ``base`` (the voice asked for, or the
    language's default) when they keep its gender, else to that gender's voices."""
    gender = traits.gender or (base.gender if base.gender in DEFAULT_VARIANTS else None)
    own = [c for c in candidates if c.gender == gender] if gender else list(candidates)
    variant = None
    if gender and not own:
        if not pitched:  # an engine without variants: the nearest voices, any gender
            gender, own = None, list(candidates)
        else:  # eSpeak: the asked voice in a variant of the asked gender
            variant, own = DEFAULT_VARIANTS[gender], [base]
    if base in own or not own:
        reference = base.profile
    else:  # the gender's voices, as an even blend of them
        reference = _predict([(c, 1.0 / len(own)) for c in own])
    target = Target(
        f0=reference.median_f0 * 2.0 ** (traits.pitch * PITCH_SPAN_ST / 12.0),
        gender=gender if variant is None else None,
        brightness_hz=reference.brightness_hz * 2.0 ** (traits.brightness * BRIGHTNESS_SPAN)
        if traits.brightness
        else None,
        range_st=reference.f0_range_st + RANGE_SPAN_ST * traits.expressiveness
        if traits.expressiveness
        else None,
    )
    pool = [base] if variant else candidates
    blend = best_blend(target, pool, can_blend, pitched)
    speed = 2.0 ** (PACE_SPAN * traits.pace)
    pitch = _pitch_for(blend[0][0].profile, target.f0) if pitched and not variant else 0.0
    if variant:
        pitch = traits.pitch
    return _finish(
        blend,
        speed=speed,
        pitch=pitch,
        pitch_range=traits.expressiveness if pitched else 0.0,
        variant=variant,
        report={"mode": "description", **traits.applied(), "ignored_words": len(traits.ignored)},
        known_f0=variant is None,
    )


def from_reference(
    heard: SpeechMeasure, candidates: list[Candidate], can_blend: bool, pitched: bool
) -> Match:
    """The voice nearest a reference recording: its median F0, pitch range and (a
    little, as microphones colour it) brightness, voices of the gender its F0
    suggests preferred, then the speed that brings the blend's syllable rate to the
    recording's."""
    target = Target(
        f0=heard.median_f0,
        range_st=heard.f0_range_st,
        brightness_hz=heard.brightness_hz,
        brightness_weight=1.0,
        likely_gender="male" if heard.median_f0 < MALE_BELOW_HZ else "female",
    )
    blend = best_blend(target, candidates, can_blend, pitched)
    predicted = _predict(blend)
    low, high = REFERENCE_SPEED
    speed = max(low, min(high, heard.syllable_rate / predicted.syllable_rate))
    pitch = _pitch_for(blend[0][0].profile, target.f0) if pitched else 0.0
    return _finish(
        blend,
        speed=speed,
        pitch=pitch,
        pitch_range=0.0,
        variant=None,
        report={
            "mode": "reference",
            "target_f0": round(heard.median_f0, 1),
            "target_rate": round(heard.syllable_rate, 2),
            "target_range_st": round(heard.f0_range_st, 1),
        },
        known_f0=True,
    )


def _finish(
    blend: list[tuple[Candidate, float]],
    speed: float,
    pitch: float,
    pitch_range: float,
    variant: str | None,
    report: Report,
    known_f0: bool,
) -> Match:
    predicted = _predict(blend)
    expected_f0 = _f0_at(blend[0][0].profile, pitch) if len(blend) == 1 else predicted.median_f0
    expected_rate = predicted.syllable_rate * speed
    design = VoiceDesign(
        blend=tuple((c.voice_id, w) for c, w in blend),
        variant=variant,
        pitch_range=round(pitch_range, 3),
    )
    report = {**report, "blend": _blend_text(blend), "speed": round(speed, 3)}
    if pitch:
        report["pitch"] = round(pitch, 3)
    if pitch_range:
        report["pitch_range"] = round(pitch_range, 3)
    if variant:
        report["variant"] = variant
    if known_f0:
        report["achieved_f0"] = round(expected_f0, 1)
        report["achieved_rate"] = round(expected_rate, 2)
    return Match(
        design=design,
        speed=speed,
        pitch=pitch,
        expected_f0=expected_f0 if known_f0 else None,
        expected_rate=expected_rate,
        report=report,
    )
