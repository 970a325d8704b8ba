"""How audio says its text: word and character timings, phonemes and visemes. An
engine gives them on its chunks' clock; the Synthesiser maps them onto the request's
input; the surfaces send them beside the audio (``as_wire``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol


class ReadFrom(Protocol):
    """A text read from an input (``deployments.messages.Segment``)."""

    def source_of(self, start: int, end: int) -> tuple[int, int]:
        """The input's span of ``text[start:end]``; (-1, -1) if unknown."""
        ...


@dataclass(frozen=True)
class WordTiming:
    """A word at ``text[start:end]`` of its segment, starting ``start_ms`` into its audio."""

    start: int
    end: int
    start_ms: int


@dataclass(frozen=True)
class Alignment:
    """Per character of a text: start time and duration in ms, relative to its audio."""

    chars: tuple[str, ...]
    char_start_times_ms: tuple[int, ...]
    char_durations_ms: tuple[int, ...]

    def followed_by(self, other: Alignment, offset_ms: int) -> Alignment:
        """This alignment, then ``other`` whose audio starts ``offset_ms`` after ours."""
        return Alignment(
            self.chars + other.chars,
            self.char_start_times_ms + tuple(t + offset_ms for t in other.char_start_times_ms),
            self.char_durations_ms + other.char_durations_ms,
        )

    def as_wire(self) -> dict[str, list[str] | list[int]]:
        return {
            "chars": list(self.chars),
            "charStartTimesMs": list(self.char_start_times_ms),
            "charDurationsMs": list(self.char_durations_ms),
        }


@dataclass(frozen=True)
class PhonemeTiming:
    """One phoneme as it sounds: its IPA, when it starts and how long it lasts (ms, on
    its chunk's clock), and the word it says as ``text[start:end]``: of its segment's
    text as an engine gives it, of the request's input once the Synthesiser has
    mapped it (-1, -1: no word, or none found). Once mapped, ``said_start`` and
    ``said_end`` keep where the word is in the segment's text, so that the audio
    can be mapped onto another input that reads the same (the speech cache)."""

    phoneme: str
    start_ms: int
    duration_ms: int
    start: int = -1
    end: int = -1
    said_start: int = -1
    said_end: int = -1

    def in_input(self, segment: ReadFrom) -> PhonemeTiming:
        """This phoneme, its word where ``segment``'s text has it (``said_start``,
        else ``start``), with its word in the input ``segment`` was read from."""
        said_start, said_end = (
            (self.said_start, self.said_end) if self.said_start >= 0 else (self.start, self.end)
        )
        if said_start < 0:
            return replace(self, start=-1, end=-1, said_start=-1, said_end=-1)
        start, end = segment.source_of(said_start, said_end)
        return replace(self, start=start, end=end, said_start=said_start, said_end=said_end)

    def shifted(self, ms: int, chars: int = 0) -> PhonemeTiming:
        """The same phoneme ``ms`` later, its word ``chars`` further on."""
        found = self.start >= 0
        return replace(
            self,
            start_ms=self.start_ms + ms,
            start=self.start + chars if found else -1,
            end=self.end + chars if found else -1,
        )


@dataclass(frozen=True)
class VisemeTiming:
    """A mouth shape (deployments.synthesis.visemes) from ``start_ms`` for ``duration_ms``."""

    viseme: str
    start_ms: int
    duration_ms: int


@dataclass(frozen=True)
class Timings:
    """What a chunk of audio says, phoneme by phoneme and as mouth shapes."""

    phonemes: tuple[PhonemeTiming, ...] = ()
    visemes: tuple[VisemeTiming, ...] = ()

    def followed_by(self, other: Timings, offset_ms: int) -> Timings:
        """These timings, then ``other``'s, whose audio starts ``offset_ms`` after ours."""
        later = other.moved(offset_ms)
        return Timings(self.phonemes + later.phonemes, self.visemes + later.visemes)

    def moved(self, ms: int, chars: int = 0) -> Timings:
        """These timings ``ms`` later, their words ``chars`` further on in the text."""
        return Timings(
            tuple(p.shifted(ms, chars) for p in self.phonemes),
            tuple(replace(v, start_ms=v.start_ms + ms) for v in self.visemes),
        )

    def as_wire(self) -> dict[str, dict[str, list[str] | list[int]]]:
        """``phonemes`` and ``visemes``, each as columns (as alignments are sent)."""
        return {
            "phonemes": {
                "phonemes": [p.phoneme for p in self.phonemes],
                "startTimesMs": [p.start_ms for p in self.phonemes],
                "durationsMs": [p.duration_ms for p in self.phonemes],
                "wordStarts": [p.start for p in self.phonemes],
                "wordEnds": [p.end for p in self.phonemes],
            },
            "visemes": {
                "visemes": [v.viseme for v in self.visemes],
                "startTimesMs": [v.start_ms for v in self.visemes],
                "durationsMs": [v.duration_ms for v in self.visemes],
            },
        }
