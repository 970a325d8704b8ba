"""A segment's share of Kokoro's model calls and what becomes of their audio.

Phonemes longer than one call may take are cut into passages; each passage's audio
opens with ~0.45 s of near-silence and closes with ~0.4 s: the opening is trimmed
and the close cut to a pause that suits the punctuation, a soft limiter keeps
peaks below full scale (two voices clip), and the frames the model gave each
token say when each word begins.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace

import numpy as np

from deployments.synthesis.engines.kokoro.backends import SAMPLES_PER_FRAME, Item, Voiced
from deployments.synthesis.engines.kokoro.phonemes import KOKORO_IPA, Phonemes
from deployments.timings import PhonemeTiming, WordTiming

SAMPLE_RATE = 24_000
# Trimming: samples above this are speech; keep a little before the first one.
SILENCE_THRESHOLD = 0.01
LEAD_S = 0.02
# Pause left after a passage, by how its text ends.
PAUSE_S = {"sentence": 0.30, "clause": 0.15, "word": 0.05}
SENTENCE_MARKS = frozenset(".!?…")
CLAUSE_MARKS = frozenset(",;:—")
# Soft limiter: transparent below the knee, approaching (never reaching) 1.0 above it.
LIMITER_KNEE = 0.9
# The voice is heard about this many frames before its tokens' frames say (at the
# start and inside a passage; Kokoro's own pipeline shifts its timestamps by as much):
# word and phoneme times move this much earlier.
HEARD_EARLY_FRAMES = 3
# Symbols that mark the phoneme after them (stress) or before them (length, aspiration,
# nasality, palatalisation): their frames are that phoneme's.
STRESS_MARKS = frozenset("ˈˌ")
MODIFIERS = frozenset("ːʰʲ\u0303ᵝ")


@dataclass(frozen=True)
class Heard:
    """A passage's audio, trimmed and limited, the words it starts (when each begins)
    and its phonemes (segment-relative times, words as offsets in the segment's text)."""

    audio: np.ndarray
    words: tuple[WordTiming, ...]
    phonemes: tuple[PhonemeTiming, ...]

    def shifted(self, chars: int) -> Heard:
        """The same audio, its words (and their phonemes') ``chars`` further on in the text."""
        if not chars:
            return self
        words = tuple(replace(w, start=w.start + chars, end=w.end + chars) for w in self.words)
        return Heard(self.audio, words, tuple(p.shifted(0, chars) for p in self.phonemes))


# A cut into the surrounding text's audio fades over this long (no click where it
# falls mid-sound).
SURROUNDING_FADE_S = 0.01


@dataclass(frozen=True)
class Passage:
    """One model call's share of a segment: its phonemes, where they start in the
    segment's phonemes, and the model's input for them. ``before``/``after``: tokens
    of surrounding text the input holds around the passage's own (read, then cut away).
    ``opens``/``closes``: whether its audio opens with the model's opening silence
    (trimmed) and closes with its closing one (cut to a pause); a part of a reading
    cut in a pause has neither on the side of the cut (its audio is kept as is)."""

    text: str
    start: int
    item: Item
    before: int = 0
    after: int = 0
    opens: bool = True
    closes: bool = True


_BREAKS = (
    re.compile(r"(?<=[.!?…])\s+"),
    re.compile(r"(?<=[,;:—])\s+"),
    re.compile(r"\s+"),
)


def cut_passages(
    phonemes: str, limit: int, count: Callable[[str], int], level: int = 0
) -> list[str]:
    """``phonemes`` cut into passages of at most ``limit`` tokens (``count`` counts a
    text's), at sentence ends first, then clause ends, then word ends."""
    if count(phonemes) <= limit:
        return [phonemes] if phonemes.strip() else []
    if level == len(_BREAKS):
        return [phonemes[i : i + limit] for i in range(0, len(phonemes), limit)]
    passages: list[str] = []
    current = ""
    for part in _BREAKS[level].split(phonemes):
        joined = f"{current} {part}".strip()
        if count(joined) <= limit:
            current = joined
            continue
        if current:
            passages.append(current)
        current = ""
        if count(part) <= limit:
            current = part
        else:
            passages.extend(cut_passages(part, limit, count, level + 1))
    if current:
        passages.append(current)
    return passages


def own_audio(voiced: Voiced, passage: Passage) -> Voiced:
    """The audio of ``passage``'s own tokens out of a call that read surrounding text too:
    cut where the durations say its first token begins and its last ends (each moved
    by the frames the voice is heard early, a frame of lead before), faded over
    :data:`SURROUNDING_FADE_S` where a cut falls; durations as a call of the passage alone
    would give them (what came before and after is the boundary tokens')."""
    durations = voiced.durations
    if durations is None or not (passage.before or passage.after):
        return voiced
    own = durations[1 + passage.before : durations.size - 1 - passage.after]
    frames = np.concatenate([[0], np.cumsum(durations)])
    first, end = int(frames[1 + passage.before]), int(frames[durations.size - 1 - passage.after])
    start_frame = max(0, first - HEARD_EARLY_FRAMES - 1) if passage.before else 0
    end_frame = max(start_frame, end - HEARD_EARLY_FRAMES) if passage.after else int(frames[-1])
    audio = voiced.audio[start_frame * SAMPLES_PER_FRAME : end_frame * SAMPLES_PER_FRAME]
    audio = faded(audio, SURROUNDING_FADE_S, start=bool(passage.before), end=bool(passage.after))
    around = [first - start_frame, *own.tolist(), max(0, end_frame - end)]
    return Voiced(audio, np.asarray(around, dtype=np.int64))


def faded(audio: np.ndarray, seconds: float, start: bool, end: bool) -> np.ndarray:
    """``audio`` (a copy) faded in over its first ``seconds`` (``start``) and out over
    its last (``end``), on a raised cosine."""
    audio = audio.copy()
    size = min(int(seconds * SAMPLE_RATE), audio.size // 2)
    if size:
        ramp = (0.5 - 0.5 * np.cos(np.linspace(0.0, np.pi, size))).astype(np.float32)
        if start:
            audio[:size] *= ramp
        if end:
            audio[-size:] *= ramp[::-1]
    return audio


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
    first, last = loud_span(audio)
    if last == 0:
        return 0, 0
    start = max(0, first - int(LEAD_S * SAMPLE_RATE))
    end = min(audio.size, last + int(pause_s * SAMPLE_RATE))
    return start, end


def loud_span(audio: np.ndarray) -> tuple[int, int]:
    """From ``audio``'s first loud sample to just after its last ((0, 0): none)."""
    loud = np.flatnonzero(np.abs(audio) > SILENCE_THRESHOLD)
    if loud.size == 0:
        return 0, 0
    return int(loud[0]), int(loud[-1]) + 1


def pause_after(phonemes: str) -> float:
    last = phonemes.rstrip()[-1:]
    if last in SENTENCE_MARKS:
        return PAUSE_S["sentence"]
    if last in CLAUSE_MARKS:
        return PAUSE_S["clause"]
    return PAUSE_S["word"]


def spoken(said: Phonemes, passages: list[Passage], voiced: Iterable[Voiced]) -> Iterator[Heard]:
    """Each passage's audio, trimmed and limited, with the words it starts and its
    phonemes, timed from the frames the model gave each token."""
    at = 0  # samples of the segment so far
    timed: set[int] = set()
    for passage, result in zip(passages, voiced, strict=False):
        start, end = speech_span(result.audio, pause_after(passage.text))
        start = start if passage.opens else 0
        end = end if passage.closes else result.audio.size
        audio = soft_limit(result.audio[start:end])
        words: list[WordTiming] = []
        phonemes: tuple[PhonemeTiming, ...] = ()
        symbols = said.token_symbols(passage.start, passage.start + len(passage.text))
        durations = result.durations
        if passage.start >= 0 and durations is not None and durations.size == len(symbols) + 2:
            frames = np.concatenate([[0], np.cumsum(durations)]) - HEARD_EARLY_FRAMES
            before = np.maximum(frames, 0) * SAMPLES_PER_FRAME
            for k, (_, owner) in enumerate(symbols, start=1):  # token 0 is the boundary
                if owner < 0 or owner in timed:
                    continue
                # The voice is heard a few frames before its first phoneme's own:
                # a passage's first word starts where the trim found its speech.
                trimmed = not words and passage.opens
                offset = 0 if trimmed else min(max(0, int(before[k]) - start), audio.size)
                timed.add(owner)
                first, last = said.words[owner]
                words.append(WordTiming(first, last, (at + offset) * 1000 // SAMPLE_RATE))
            # a phoneme sounds while the voice does: the durations of a passage's last
            # vowel run on past where its audio falls silent
            first, last = loud_span(result.audio)
            edges = np.clip(before, first, last) - start + at
            phonemes = _phonemes(said, symbols, edges)
        at += audio.size
        yield Heard(audio, tuple(words), phonemes)


@dataclass
class _Sound:
    ipa: str
    start: int  # samples of the segment
    end: int
    owner: int  # the word it says, -1 for none


def _phonemes(
    said: Phonemes, symbols: list[tuple[str, int]], edges: np.ndarray
) -> tuple[PhonemeTiming, ...]:
    """The phonemes of a passage's tokens (``edges[k]``: where token k starts, in samples
    of the segment; token 0 is the boundary): a stress mark's frames open the phoneme
    after it, a modifier's close the one before, spaces and punctuation are pauses."""
    sounds: list[_Sound] = []
    opened: int | None = None  # where a stress mark opened the next phoneme
    for k, (symbol, owner) in enumerate(symbols, start=1):
        begin, finish = int(edges[k]), int(edges[k + 1])
        if symbol in STRESS_MARKS:
            opened = begin if opened is None else opened
        elif symbol in MODIFIERS:
            if sounds and sounds[-1].end == begin:
                sounds[-1].ipa += symbol
                sounds[-1].end = finish
        elif not symbol.isalpha():
            opened = None  # a pause
        else:
            begin = begin if opened is None else opened
            sounds.append(_Sound(KOKORO_IPA.get(symbol, symbol), begin, finish, owner))
            opened = None
    phonemes = []
    for sound in sounds:
        if sound.end <= sound.start:
            continue  # trimmed away
        start_ms = sound.start * 1000 // SAMPLE_RATE
        duration_ms = sound.end * 1000 // SAMPLE_RATE - start_ms
        word = said.words[sound.owner] if sound.owner >= 0 else (-1, -1)
        phonemes.append(PhonemeTiming(sound.ipa, start_ms, duration_ms, *word))
    return tuple(phonemes)
