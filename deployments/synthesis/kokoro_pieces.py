"""A segment's share of Kokoro's model calls and what becomes of their audio.

Phonemes longer than one call may take are cut into pieces; each piece's audio
opens with ~0.45 s of near-silence and closes with ~0.4 s: the opening is trimmed
and the close cut to a pause that suits the punctuation, a soft limiter keeps
peaks below full scale (two voices clip), and the frames the model gave each
token say when each word begins.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from deployments.messages import WordTiming
from deployments.synthesis.kokoro_backends import SAMPLES_PER_FRAME, Item, Voiced
from deployments.synthesis.kokoro_phonemes import Phonemes

SAMPLE_RATE = 24_000
# Trimming: samples above this are speech; keep a little before the first one.
SILENCE_THRESHOLD = 0.01
LEAD_S = 0.02
# Pause left after a piece, by how its text ends.
PAUSE_S = {"sentence": 0.30, "clause": 0.15, "word": 0.05}
SENTENCE_MARKS = frozenset(".!?…")
CLAUSE_MARKS = frozenset(",;:—")
# Soft limiter: transparent below the knee, approaching (never reaching) 1.0 above it.
LIMITER_KNEE = 0.9


@dataclass(frozen=True)
class Piece:
    """One model call's share of a segment: its phonemes, where they start in the
    segment's phonemes, and the model's input for them."""

    text: str
    start: int
    item: Item


def soft_limit(audio: np.ndarray, knee: float = LIMITER_KNEE) -> np.ndarray:
    """``audio`` with peaks above ``knee`` bent smoothly below full scale."""
    magnitude = np.abs(audio)
    if magnitude.size == 0 or magnitude.max() <= knee:
        return audio
    headroom = 1.0 - knee
    bent = knee + headroom * np.tanh((magnitude - knee) / headroom)
    limited = np.where(magnitude > knee, np.sign(audio) * bent, audio)
    return limited.astype(np.float32)


def trim(audio: np.ndarray, pause_s: float) -> np.ndarray:
    """``audio`` without the model's opening silence, its closing silence cut to ``pause_s``."""
    start, end = speech_span(audio, pause_s)
    return audio[start:end]


def speech_span(audio: np.ndarray, pause_s: float) -> tuple[int, int]:
    """Where :func:`trim` cuts ``audio``: from a little before its first loud sample to
    ``pause_s`` after its last."""
    loud = np.flatnonzero(np.abs(audio) > SILENCE_THRESHOLD)
    if loud.size == 0:
        return 0, 0
    start = max(0, int(loud[0]) - int(LEAD_S * SAMPLE_RATE))
    end = min(audio.size, int(loud[-1]) + 1 + int(pause_s * SAMPLE_RATE))
    return start, end


def pause_after(phonemes: str) -> float:
    last = phonemes.rstrip()[-1:]
    if last in SENTENCE_MARKS:
        return PAUSE_S["sentence"]
    if last in CLAUSE_MARKS:
        return PAUSE_S["clause"]
    return PAUSE_S["word"]


def spoken(
    said: Phonemes, pieces: list[Piece], voiced: Iterable[Voiced]
) -> Iterator[tuple[np.ndarray, tuple[WordTiming, ...]]]:
    """Each piece's audio, trimmed and limited, with the words it starts: when each
    begins (ms from the segment's start), from the frames the model gave each token."""
    at = 0  # samples of the segment so far
    timed: set[int] = set()
    for piece, result in zip(pieces, voiced, strict=False):
        start, end = speech_span(result.audio, pause_after(piece.text))
        audio = soft_limit(result.audio[start:end])
        words: list[WordTiming] = []
        owners = said.token_owners(piece.start, piece.start + len(piece.text))
        durations = result.durations
        if piece.start >= 0 and durations is not None and durations.size == len(owners) + 2:
            before = np.concatenate([[0], np.cumsum(durations)]) * SAMPLES_PER_FRAME
            for k, owner in enumerate(owners, start=1):  # token 0 is the boundary
                if owner < 0 or owner in timed:
                    continue
                # The voice is heard a few frames before its first phoneme's own:
                # a piece's first word starts where the trim found its speech.
                offset = min(max(0, int(before[k]) - start), audio.size) if words else 0
                timed.add(owner)
                first, last = said.words[owner]
                words.append(WordTiming(first, last, (at + offset) * 1000 // SAMPLE_RATE))
        at += audio.size
        yield audio, tuple(words)
