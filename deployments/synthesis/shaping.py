"""A segment's own way of being spoken (SSML): its prosody on top of the request's
controls, and the silence before and after it.

Applied by the Synthesiser around every engine, so a pause is real silence at the
voice's rate in every format and on every surface, and the word timings and
alignment of the segment move with it.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from deployments.messages import AudioChunk, Prosody, Segment, SynthesisParams
from deployments.timings import Alignment

SPEED_RANGE = (0.5, 2.0)
PITCH_RANGE = (-1.0, 1.0)
NEUTRAL = Prosody()


def _clamp(value: float, bounds: tuple[float, float]) -> float:
    return min(max(value, bounds[0]), bounds[1])


def spoken_params(segment: Segment, params: SynthesisParams) -> SynthesisParams:
    """The request's controls with the segment's prosody: speeds multiply, pitches
    add, each kept in the API's range (engines without pitch ignore it)."""
    prosody = segment.prosody
    if prosody == NEUTRAL:
        return params
    return replace(
        params,
        speed=_clamp(params.speed * prosody.speed, SPEED_RANGE),
        pitch=_clamp(params.pitch + prosody.pitch, PITCH_RANGE),
    )


def shaped(chunk: AudioChunk, segment: Segment) -> AudioChunk:
    """``chunk`` (all of ``segment``'s audio) at the segment's volume, with its pauses
    as silence; word and phoneme timings and alignment shifted past the pause before it."""
    gain = segment.prosody.volume
    before, after = segment.pause_before_ms, segment.pause_after_ms
    if gain == 1.0 and before == 0 and after == 0:
        return chunk
    rate = chunk.sample_rate
    samples = chunk.samples
    if gain != 1.0:
        samples = np.clip(samples * np.float32(gain), -1.0, 1.0).astype(np.float32)
    if before or after:
        silence = [np.zeros(rate * ms // 1000, np.float32) for ms in (before, after)]
        samples = np.concatenate([silence[0], samples, silence[1]])
    words = tuple(replace(w, start_ms=w.start_ms + before) for w in chunk.words)
    phonemes = tuple(p.shifted(before) for p in chunk.phonemes)
    alignment = chunk.alignment
    if alignment is not None and before:
        alignment = Alignment(
            alignment.chars,
            tuple(t + before for t in alignment.char_start_times_ms),
            alignment.char_durations_ms,
        )
    return replace(chunk, samples=samples, words=words, alignment=alignment, phonemes=phonemes)
