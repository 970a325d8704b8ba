"""Unicode hygiene applied to every input before anything else reads it.

NFC; zero-width and bidirectional controls removed; other control characters
removed (lone surrogates too); every kind of line break or wide space made a plain space. Nothing is
interpreted as markup. The cleaned text keeps a map back to the input, so that
segments can report where they came from.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

# Zero-width and bidirectional controls that change nothing a voice should say.
# ZWJ and ZWNJ (U+200C/D) are kept: they change how Indic conjuncts are written.
_REMOVED = frozenset(
    "\u00ad\u034f\u061c\u180e\u200b\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff"
    + "".join(map(chr, range(0x202A, 0x202F)))
    + "".join(map(chr, range(0x2066, 0x206A)))
)
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
    if ch in _REMOVED:
        return None
    if ch in _SPACES:
        return " "
    if unicodedata.category(ch) in ("Cc", "Cs"):
        return None  # controls; lone surrogates (the API refuses them before this)
    return ch


def clean(text: str) -> CleanText:
    """Clean ``text``: total on every string (lone surrogates are dropped)."""
    out: list[str] = []
    origin: list[int] = []
    run_start = 0
    for i in range(1, len(text) + 1):
        if i < len(text) and unicodedata.combining(text[i]):
            continue  # a combining mark joins the run of its base character
        run = unicodedata.normalize("NFC", text[run_start:i])
        for k, ch in enumerate(run):
            kept = _kept(ch)
            if kept is not None:
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
