"""A text read once and rendered in two parts: a sooner first audio for the price of a
few frames, not of a second model call.

A sentence's first clause may be cut from it for a sooner first audio
(``Segment.joins_next``). Spoken as a model call of its own, the clause costs the
sentence up to ~35% more compute: each call renders its own ~0.45 s of opening and ~0.4 s
of closing silence and reads its text afresh (and the clause is read as if it ended
the sentence). Here the sentence is read once (the reader: ~3% of a call) and its
frames are rendered in two runs, cut where the reading pauses between the clause
and the rest: the frame of least predicted energy from just before the clause's
mark to the next word's first frame, if it is a pause (energy at most
:data:`QUIET_ENERGY`; a reading that runs on through the mark is not cut). Each run
renders :data:`OVERLAP_FRAMES` past the cut (the decoder convolves across it), which
are dropped, and the two meet in the pause (each faded over :data:`FADE_S`), so the
sentence keeps its own prosody and timing and every frame is rendered once, plus
the overlap. The decoder normalises each run over its own frames, as it does any
call's: each part sounds as a call of its own would (its spectral balance moves as
a clause spoken alone does, up to ~20% in centroid against the whole reading).

Measured with ``python -m loadtest.kokoro_parts`` (the default voice, one-thread
sessions, four Hindi sentences, 2026-11-26, 2 cores): in parts a sentence took -7% to
+5% of its time whole, as two calls +3% to +37%; its first audio came 5-20% sooner
than the clause's alone; each part's speech level was within 1.7 dB of the same
span of the whole reading, the parts met at -57 to -70 dB. Over ten clause ends in
Hindi and English the reader's energy at the cut was <= -0.1 where the reading
paused (the whole rendering there -48 to -67 dB) and ~6 where it ran on (-27 dB,
not cut).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from deployments.synthesis.engines.kokoro.backends import SAMPLES_PER_FRAME, Reading, Voiced
from deployments.synthesis.engines.kokoro.passages import (
    HEARD_EARLY_FRAMES,
    Heard,
    Passage,
    faded,
    own_audio,
    spoken,
)
from deployments.synthesis.engines.kokoro.phonemes import Phonemes

# The predicted energy (the reader's, per frame) at or under which the reading pauses.
QUIET_ENERGY = 1.0
# Frames rendered past the cut on either side, then dropped.
OVERLAP_FRAMES = 4
FADE_S = 0.005


def pause_frame(reading: Reading, mark: int, next_word: int) -> int | None:
    """The frame at which to cut ``reading``: the quietest from a little before frame
    ``mark`` (where the clause's last word ends) up to ``next_word`` (where the next
    word's first token starts), or None where the reading does not pause there."""
    energy = reading.frame_energy()
    low = max(1, mark - HEARD_EARLY_FRAMES)  # a word falls silent as early as it is heard
    high = min(next_word, reading.frames - 1)
    if high <= low:
        return None
    cut = low + int(np.argmin(energy[low:high]))
    return cut if energy[cut] <= QUIET_ENERGY else None


def split_point(said: Phonemes, split_at: int) -> tuple[int, int] | None:
    """Where ``said`` (a text's phonemes) is cut to part the text at its character
    ``split_at``: the index of the second part's first symbol, and the index just
    after the first part's last word's last symbol (marks and spaces between them
    are the first part's); None where either part would have no word."""
    owners, words = said.owners, said.words
    at = next((i for i, o in enumerate(owners) if o >= 0 and words[o][0] >= split_at), 0)
    last = max((i for i in range(at) if owners[i] >= 0), default=-1)
    return (at, last + 1) if last >= 0 else None


def cut_frame(
    reading: Reading, said: Phonemes, passage: Passage, split: tuple[int, int]
) -> int | None:
    """The frame of ``reading`` (of ``passage``, all of ``said`` and the tokens of
    surrounding text around it) at which to cut it for ``split``
    (:func:`split_point`), or None where the reading does not pause there."""
    at, word_end = split
    starts = np.concatenate([[0], np.cumsum(reading.durations)])  # token k from starts[k]
    mark = int(starts[1 + passage.before + len(said.token_symbols(0, word_end))])
    next_word = int(starts[1 + passage.before + len(said.token_symbols(0, at))])
    return pause_frame(reading, mark, next_word)


def heard_parts(
    said: Phonemes,
    reading: Reading,
    passage: Passage,
    split: tuple[int, int],
    cut: int,
    render: Callable[[int, int], np.ndarray],
) -> Iterator[Heard]:
    """The two parts of ``reading`` (of ``passage``: all of ``said``, with any surrounding
    text read around it) cut at frame ``cut``, each as :func:`~.passages.spoken` hears a
    passage: trimmed where it holds the model's silence (or the surrounding text), not where it
    was cut, its words and phonemes timed from its own start. ``render(start, end)``
    renders a run of the reading's frames."""
    at = split[0]
    tokens = passage.before + len(said.token_symbols(0, at))  # up to the cut, past token 0
    durations = reading.durations
    runs = render_parts(render, reading, cut)
    # each part's durations as the model would give a call of its own: the first
    # closes on an empty boundary, the second opens with the frames from the cut to
    # its first token
    first = Passage(said.text[:at], 0, passage.item, before=passage.before, closes=False)
    voiced = Voiced(next(runs), np.concatenate([durations[: tokens + 1], [0]]))
    yield from spoken(said, [first], [own_audio(voiced, first)])
    second = Passage(said.text[at:], at, passage.item, after=passage.after, opens=False)
    opening = int(durations[: tokens + 1].sum()) - cut
    voiced = Voiced(next(runs), np.concatenate([[opening], durations[tokens + 1 :]]))
    yield from spoken(said, [second], [own_audio(voiced, second)])


def render_parts(
    render: Callable[[int, int], np.ndarray], reading: Reading, cut: int
) -> Iterator[np.ndarray]:
    """The audio of ``reading``'s frames before ``cut``, then (when asked for the next)
    from ``cut`` to the end: each rendered with :data:`OVERLAP_FRAMES` beyond the cut,
    faded where it was cut."""
    end = min(reading.frames, cut + OVERLAP_FRAMES)
    head = render(0, end)[: cut * SAMPLES_PER_FRAME]
    yield faded(head, FADE_S, start=False, end=True)
    start = max(0, cut - OVERLAP_FRAMES)
    tail = render(start, reading.frames)[(cut - start) * SAMPLES_PER_FRAME :]
    yield faded(tail, FADE_S, start=True, end=False)
