"""Text that arrives a few words at a time, cut into pieces worth synthesising.

A piece is cut when a sentence ends, when the first clause of the session ends
(so the first audio starts early), when the buffer reaches the next length of the
chunk schedule, on ``try_trigger_generation`` past a minimum, on ``flush``, and
at the end of input. Cuts fall on whitespace, never inside a word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deployments.normaliser.segmenter import CLAUSE_END

DEFAULT_SCHEDULE = (120, 160, 250, 290)


TRY_TRIGGER_MIN_CHARS = 20


# A sentence has ended once the next character has arrived (whitespace), so that
# "3." followed later by "5" is not cut. A danda ends a sentence on its own.
_SENTENCE_END = re.compile(r"[।॥]|[.?!…](?=\s)")


@dataclass(frozen=True)
class Piece:
    """Text to synthesise; ``start`` is its offset in everything the session received."""

    text: str
    start: int


class TextBuffer:
    def __init__(self, schedule: tuple[int, ...] = DEFAULT_SCHEDULE) -> None:
        if not schedule or any(n <= 0 for n in schedule):
            raise ValueError("chunk_length_schedule needs positive lengths")
        self._schedule = schedule
        self._text = ""
        self._start = 0
        self._pieces = 0

    def __len__(self) -> int:
        return len(self._text)

    def add(self, text: str) -> list[Piece]:
        """Append ``text``; return the pieces that are now ready, in order."""
        self._text += text
        pieces = []
        while (cut := self._cut_point()) is not None:
            piece = self._take(cut)
            if piece is not None:
                pieces.append(piece)
        return pieces

    def flush(self) -> Piece | None:
        """Everything buffered, as one piece (None if it is only whitespace)."""
        return self._take(len(self._text))

    def try_trigger(self, minimum: int = TRY_TRIGGER_MIN_CHARS) -> Piece | None:
        """What is buffered up to the last complete word, if that is ``minimum`` or more."""
        cut = self._text.rfind(" ")
        if cut < minimum:
            return None
        return self._take(cut + 1)

    def _cut_point(self) -> int | None:
        text = self._text
        sentence_ends = [m.end() for m in _SENTENCE_END.finditer(text)]
        if sentence_ends:
            return sentence_ends[-1]
        if self._pieces == 0 and (clause := CLAUSE_END.search(text)):
            return clause.end()
        limit = self._schedule[min(self._pieces, len(self._schedule) - 1)]
        if len(text) >= limit:
            space = text.rfind(" ", 0, limit)
            return space + 1 if space > 0 else len(text)
        return None

    def _take(self, cut: int) -> Piece | None:
        text, self._text = self._text[:cut], self._text[cut:]
        start = self._start
        self._start += len(text)
        if not text.strip():
            return None
        self._pieces += 1
        return Piece(text, start)
