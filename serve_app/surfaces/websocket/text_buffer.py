"""Text that arrives a few words at a time, cut into pieces worth synthesising.

A piece is cut when a sentence ends, when the first clause of the session ends
(so the first audio starts early), when the buffer reaches the next length of the
chunk schedule, on ``try_trigger_generation`` past a minimum, on ``flush``, and
at the end of input. Cuts fall on whitespace, never inside a word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from deployments.normaliser.pronunciation import PronunciationRule
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


# An SSML tag: closing (1), its name (2), self-closing (3).
_TAG = re.compile(r"<(/?)([A-Za-z][\w.:-]*)[^<>]*?(/?)>")


def inside_markup(text: str) -> bool:
    """Whether ``text`` ends inside a tag or inside an element (``speak`` aside: a
    piece of a stream of SSML is read as if ``speak`` held it)."""
    if text.rfind("<") > text.rfind(">"):
        return True
    depth = 0
    for tag in _TAG.finditer(text):
        if tag[2] != "speak" and not tag[3]:
            depth += -1 if tag[1] else 1
    return depth > 0


def without_speak(text: str) -> str:
    """``text`` without its ``speak`` tags (a stream's pieces are read one by one)."""
    return re.sub(r"</?speak\b[^<>]*>", " ", text)


class RuleGuard:
    """Where a cut would split what a pronunciation rule matches (``Dr. Iyer``: a
    sentence seems to end after ``Dr.``), so that a rule matches across a stream's
    messages. Only rules whose string has a place a cut can fall (a space, a
    punctuation mark) take part; a match not yet complete waits for its text."""

    def __init__(self, rules: Sequence[PronunciationRule]) -> None:
        self._rules: list[tuple[str, bool, list[int]]] = []
        for rule in rules:
            string = rule.string_to_replace
            places = [
                k
                for k in range(1, len(string))
                if not (string[k - 1].isalnum() and string[k].isalnum())
            ]
            if places:
                kept = string if rule.case_sensitive else string.lower()
                self._rules.append((kept, rule.case_sensitive, places))

    def splits(self, text: str, cut: int) -> bool:
        """Whether cutting ``text`` at ``cut`` may split a rule's match."""
        for string, case_sensitive, places in self._rules:
            for k in places:
                before, after = text[max(0, cut - k) : cut], text[cut : cut + len(string) - k]
                if not case_sensitive:
                    before, after = before.lower(), after.lower()
                if before == string[:k] and string[k:].startswith(after):
                    return True
        return False


class TextBuffer:
    """``markup``: the text is SSML, cut only where no tag or element is open;
    ``rules``: never cut inside what one of them may match; ``schedule`` None (auto
    mode): no cut by length, only at sentence ends, the first clause and flushes."""

    def __init__(
        self,
        schedule: tuple[int, ...] | None = DEFAULT_SCHEDULE,
        markup: bool = False,
        rules: Sequence[PronunciationRule] = (),
    ) -> None:
        if schedule is not None and (not schedule or any(n <= 0 for n in schedule)):
            raise ValueError("chunk_length_schedule needs positive lengths")
        self._schedule = schedule
        self._markup = markup
        self._guard = RuleGuard(rules) if rules else None
        self._text = ""
        self._start = 0
        self._pieces = 0

    def __len__(self) -> int:
        return len(self._text)

    def add(self, text: str) -> list[Piece]:
        """Append ``text``; return the pieces that are now ready, in order."""
        self._text += text
        pieces = []
        while (cut := self._cut_point()) is not None and not self._waits(cut):
            piece = self._take(cut)
            if piece is not None:
                pieces.append(piece)
        return pieces

    def flush(self) -> Piece | None:
        """Everything buffered, as one piece (None if it is only whitespace, or markup
        alone, which waits for the next text)."""
        return self._take(len(self._text))

    def try_trigger(self, minimum: int = TRY_TRIGGER_MIN_CHARS) -> Piece | None:
        """What is buffered up to the last complete word, if that is ``minimum`` or more."""
        spaces = [m.end() for m in re.finditer(" ", self._text)]
        cut = self._last_cut(spaces)
        if cut is None or cut - 1 < minimum:
            return None
        return self._take(cut)

    def _last_cut(self, candidates: list[int]) -> int | None:
        """The last of ``candidates`` the text may be cut at (outside markup)."""
        for cut in reversed(candidates):
            if self._markup and inside_markup(self._text[:cut]):
                continue
            if self._guard is not None and self._guard.splits(self._text, cut):
                continue
            return cut
        return None

    def _cut_point(self) -> int | None:
        text = self._text
        sentence_end = self._last_cut([m.end() for m in _SENTENCE_END.finditer(text)])
        if sentence_end is not None:
            return sentence_end
        clause = CLAUSE_END.search(text) if self._pieces == 0 else None
        if clause is not None and (cut := self._last_cut([clause.end()])) is not None:
            return cut
        if self._schedule is None:
            return None
        limit = self._schedule[min(self._pieces, len(self._schedule) - 1)]
        if len(text) >= limit:
            space = self._last_cut([m.end() for m in re.finditer(" ", text[:limit])])
            if self._markup or self._guard is not None:
                return space  # None: wait, whole, for the markup or the match to close
            return space if space is not None and space > 1 else len(text)
        return None

    def _waits(self, cut: int) -> bool:
        """Whether the text up to ``cut`` is markup alone (a ``break`` flushed by
        itself): it stays, to be heard before the next text, and counts as buffered."""
        head = self._text[:cut]
        return self._markup and _TAG.search(head) is not None and not _TAG.sub("", head).strip()

    def _take(self, cut: int) -> Piece | None:
        if self._waits(cut):
            return None
        text, self._text = self._text[:cut], self._text[cut:]
        start = self._start
        self._start += len(text)
        if self._markup:
            text = without_speak(text)
        if not text.strip():
            return None
        self._pieces += 1
        return Piece(text, start)
