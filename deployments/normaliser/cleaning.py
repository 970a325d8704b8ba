"""Unicode hygiene applied to every input before anything else reads it.

NFC; what no voice says is removed: zero-width, bidirectional and other format
characters, variation selectors, controls, private-use and unassigned code points
(lone surrogates too), and marks stacked past what any script writes (a base
character keeps at most ``MAX_MARKS`` marks and joiners: "hello" followed by
thousands of combining accents is "hello" with a few); every kind of line break
or wide space made a plain space. Nothing is interpreted as markup. The cleaned
text keeps a map back to the input, so that segments can report where they came
from. It is also what a request is billed for: only characters a voice says.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

# ZWJ and ZWNJ are kept (one after a base): they change how Indic conjuncts are
# written. Every other format character (category Cf: zero-width space, soft hyphen,
# bidirectional controls, tags) changes nothing a voice should say.
JOINERS = frozenset("\u200c\u200d")
# Invisible marks and fillers outside category Cf: the combining grapheme joiner,
# variation selectors, Mongolian free variation selectors, Hangul fillers.
_REMOVED = frozenset(
    "\u034f\u115f\u1160\u180b\u180c\u180d\u180f\u3164\uffa0"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)
_DROPPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
# Marks (and joiners) one base character keeps. Real text stacks at most three or
# four: a consonant, nukta, virama and ZWJ; a vowel sign and an anusvara.
MAX_MARKS = 4
_SPACES = frozenset("\t\n\r\x0b\x0c\x85\u00a0\u1680\u2028\u2029\u202f\u205f\u3000") | frozenset(
    map(chr, range(0x2000, 0x200B))
)


@dataclass(frozen=True)
class CleanText:
    """Cleaned text; ``origin[i]`` is where its character ``i`` came from in the input
    (with one more entry, the input's length, for the end)."""

    text: str
    origin: tuple[int, ...]

    def span_in_input(self, start: int, end: int) -> tuple[int, int]:
        """The input offsets of ``text[start:end]``."""
        if end <= start:
            return self.origin[start], self.origin[start]
        return self.origin[start], self.origin[end - 1] + 1


def _kept(ch: str) -> str | None:
    if ch in _SPACES:
        return " "
    if ch in JOINERS:
        return ch
    if ch in _REMOVED or unicodedata.category(ch) in _DROPPED_CATEGORIES:
        return None  # format, control, private, unassigned; lone surrogates
    return ch


def _mark(ch: str) -> bool:
    return ch in JOINERS or unicodedata.category(ch)[0] == "M"


def clean(text: str) -> CleanText:
    """Clean ``text``: total on every string (lone surrogates are dropped)."""
    out: list[str] = []
    origin: list[int] = []
    run_start = 0
    marks = 0  # marks and joiners kept since the last base character
    for i in range(1, len(text) + 1):
        if i < len(text) and unicodedata.combining(text[i]):
            continue  # a combining mark joins the run of its base character
        run = unicodedata.normalize("NFC", text[run_start:i])
        for k, ch in enumerate(run):
            kept = _kept(ch)
            if kept is None:
                continue
            if _mark(kept):
                repeated_joiner = kept in JOINERS and out and out[-1] in JOINERS
                if marks >= MAX_MARKS or repeated_joiner:
                    continue
                marks += 1
            else:
                marks = 0
            out.append(kept)
            origin.append(min(run_start + k, i - 1))
        run_start = i
    cleaned = "".join(out)
    if not unicodedata.is_normalized("NFC", cleaned):
        # Compositions across starters (Hangul jamo): normalise the whole text and
        # map its characters back proportionally.
        cleaned = unicodedata.normalize("NFC", cleaned)
        scale = len(origin) / max(len(cleaned), 1)
        origin = [origin[min(int(k * scale), len(origin) - 1)] for k in range(len(cleaned))]
    return CleanText(cleaned, (*origin, len(text)))


def clean_text(text: str) -> str:
    return clean(text).text
