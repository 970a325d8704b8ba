"""Text that arrives a few words at a time, cut into pieces worth synthesising.

A piece is cut when a sentence ends, when the first clause of the session ends
(so the first audio starts early), when the buffer reaches the next length of the
chunk schedule, on ``try_trigger_generation`` past a minimum, on ``flush``, and
at the end of input. Cuts fall on whitespace, never inside a word.

The work a message costs is bounded by its own length (and the length of the
longest pronunciation rule), not by what is buffered: sentence ends, clause ends,
markup and rule matches are found in the new text only, once, and what they allow
is kept (:class:`Markup`, :class:`RuleGuard`). ``examined`` counts the characters
looked at, for the test that holds it to that.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from deployments.normaliser import CLAUSE_END
from deployments.reading import PronunciationRule

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


def without_speak(text: str) -> str:
    """``text`` without its ``speak`` tags (a stream's pieces are read one by one)."""
    return re.sub(r"</?speak\b[^<>]*>", " ", text)


class Markup:
    """Where a stream of SSML may be cut: not inside a tag, nor inside an element
    (``speak`` aside: a piece is read as if ``speak`` held it). Offsets count from
    the start of the stream; the text is read as it arrives, each character once."""

    def __init__(self) -> None:
        self._read = 0  # offset read up to
        self._depth = 0  # elements open (speak aside) after the tags read
        self._tag: int | None = None  # where an unclosed "<" begins
        self._open: int | None = None  # where the region we are inside began
        self._regions: list[tuple[int, int]] = []  # closed: cuts in [lo, hi] are inside

    def read(self, text: str, start: int) -> int:
        """Read ``text`` (the buffer, beginning at offset ``start``) past what was
        read; the characters read."""
        end, pos, read = start + len(text), self._read, self._read
        while pos < end:
            if self._tag is None:
                i = text.find("<", pos - start)
                if i < 0:
                    break
                self._tag = start + i
                if self._open is None:
                    self._open = self._tag + 1  # cuts after the "<" are inside
                pos = self._tag + 1
                continue
            j = text.find(">", pos - start)
            if j < 0:
                break
            # the tag is what follows the last "<" before this ">"
            opened = start + text.rfind("<", self._tag - start, j)
            tag = _TAG.fullmatch(text, opened - start, j + 1)
            if tag is not None and tag[2] != "speak" and not tag[3]:
                self._depth += -1 if tag[1] else 1
            self._tag, pos = None, start + j + 1
            if self._depth <= 0 and self._open is not None:
                self._depth = max(0, self._depth)
                self._regions.append((self._open, start + j))
                self._open = None
        self._read = end
        return end - read

    def inside(self, cut: int) -> bool:
        """Whether the text before offset ``cut`` ends inside a tag or an element."""
        if self._open is not None and cut >= self._open:
            return True
        i = bisect.bisect_right(self._regions, (cut, cut)) - 1
        candidates = self._regions[max(0, i) : i + 2]
        return any(lo <= cut <= hi for lo, hi in candidates)

    def forget(self, before: int) -> None:
        """Drop what is known of offsets before ``before`` (cut and sent)."""
        while self._regions and self._regions[0][1] < before:
            self._regions.pop(0)


def _folded(text: str) -> str:
    """``text`` in lower case, character for character (offsets kept)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def _places(string: str) -> tuple[int, ...]:
    """Where a cut can fall inside ``string``: between two characters not both letters
    or digits (a space, a punctuation mark)."""
    return tuple(
        k for k in range(1, len(string)) if not (string[k - 1].isalnum() and string[k].isalnum())
    )


class RuleGuard:
    """Where a cut would split what a pronunciation rule matches (``Dr. Iyer``: a
    sentence seems to end after ``Dr.``), so that a rule matches across a stream's
    messages. Only rules whose string has a place a cut can fall take part. Matches
    are found by an Aho-Corasick automaton (pyahocorasick) over the new text only: a
    complete match forbids its places for good; a match not yet complete (the text's
    end is the start of a rule's string) forbids them until the text goes on."""

    def __init__(self, rules: Sequence[PronunciationRule]) -> None:
        self._automata, self.longest = _automata(tuple(rules))
        self._read = 0
        self._never: set[int] = set()  # inside a complete match
        self._pending: set[int] = set()  # inside the start of one, at the text's end

    def read(self, text: str, start: int) -> int:
        """Read ``text`` (the buffer, from offset ``start``) past what was read; the
        characters looked at."""
        end = start + len(text)
        if not self._automata:
            return 0
        origin = max(start, self._read - self.longest + 1)
        region = text[origin - start :]
        examined = 0
        for automaton, case_sensitive in self._automata:
            haystack = region if case_sensitive else _folded(region)
            examined += len(haystack)
            for last, (length, places) in automaton.iter(haystack):
                match_end = origin + last + 1
                if match_end > self._read:  # not found before
                    self._never.update(match_end - length + k for k in places)
        self._pending = set()
        for s in range(max(start, end - self.longest + 1), end):
            tail = text[s - start :]
            for automaton, case_sensitive in self._automata:
                examined += len(tail)
                if automaton.match(tail if case_sensitive else _folded(tail)):
                    self._pending.update(s + k for k in (*_places(tail), len(tail)))
        self._read = end
        return examined

    def allows(self, cut: int) -> bool | None:
        """Whether a cut at offset ``cut`` splits no match: True, False (never: a
        complete match), None (not yet: the start of a match the text may complete)."""
        if cut in self._never:
            return False
        return None if cut in self._pending else True

    def forget(self, before: int) -> None:
        if len(self._never) > 1024 + 4 * self.longest:  # now and then: O(1) a character
            self._never = {n for n in self._never if n >= before}


@functools.lru_cache(maxsize=32)
def _automata(rules: tuple[PronunciationRule, ...]) -> tuple[list[tuple[Any, bool]], int]:
    """The automata of ``rules``' strings that have places (case-sensitive ones, and the
    others folded to lower case) and the longest string's length: built once for a
    session's dictionaries, whatever contexts and messages read them."""
    import ahocorasick

    automata: list[tuple[Any, bool]] = []
    longest = 0
    for case_sensitive in (True, False):
        strings = {
            r.string_to_replace if case_sensitive else _folded(r.string_to_replace)
            for r in rules
            if r.case_sensitive == case_sensitive and _places(r.string_to_replace)
        }
        if not strings:
            continue
        automaton = ahocorasick.Automaton()
        for string in strings:
            automaton.add_word(string, (len(string), _places(string)))
        automaton.make_automaton()
        automata.append((automaton, case_sensitive))
        longest = max(longest, *(len(s) for s in strings))
    return automata, longest


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
        self._markup = Markup() if markup else None
        self._guard = RuleGuard(rules) if rules else None
        self._text = ""
        self._start = 0  # the offset of the buffer's first character in the stream
        self._pieces = 0
        self._ends: list[int] = []  # sentence ends not cut at yet, that a cut may take
        self._found = 0  # the last sentence end found
        self._sentences_read = 0  # offsets read for sentence and clause ends
        self._clause: int | None = None  # the first clause's end, before the first piece
        self.examined = 0

    def __len__(self) -> int:
        return len(self._text)

    def add(self, text: str) -> list[Piece]:
        """Append ``text``; return the pieces that are now ready, in order."""
        self._text += text
        self._read()
        pieces = []
        while (cut := self._cut_point()) is not None and not self._waits(cut):
            piece = self._take(cut)
            if piece is not None:
                pieces.append(piece)
        return pieces

    def flush(self) -> Piece | None:
        """Everything buffered, as one piece (None if it is only whitespace, or markup
        alone, which waits for the next text)."""
        return self._take(self._start + len(self._text))

    def try_trigger(self, minimum: int = TRY_TRIGGER_MIN_CHARS) -> Piece | None:
        """What is buffered up to the last complete word, if that is ``minimum`` or more."""
        cut = None
        space = self._text.rfind(" ")
        while space >= 0 and cut is None and space >= minimum:
            cut = self._allowed(self._start + space + 1)
            space = self._text.rfind(" ", 0, space)
        if cut is None:
            return None
        return self._take(cut)

    def _read(self) -> None:
        """Find the sentence ends (and before the first piece, the clause end) in what
        arrived, and read it for markup and rule matches."""
        start, end = self._start, self._start + len(self._text)
        # a mark whose following space just arrived; a clause mark's digit before it
        origin = max(start, self._sentences_read - 2)
        for match in _SENTENCE_END.finditer(self._text, origin - start):
            if (at := start + match.end()) > self._found:
                self._ends.append(at)
                self._found = at
        if self._pieces == 0 and self._clause is None:
            clause = CLAUSE_END.search(self._text, origin - start)
            self._clause = start + clause.end() if clause is not None else None
        self.examined += end - origin
        self._sentences_read = end
        if self._markup is not None:
            self.examined += self._markup.read(self._text, start)
        if self._guard is not None:
            self.examined += self._guard.read(self._text, start)

    def _allows(self, cut: int) -> bool | None:
        """Whether a cut at offset ``cut`` is allowed: True, False (never), or None (not
        yet: a rule's match may go on past it)."""
        if self._markup is not None and self._markup.inside(cut):
            return False
        return self._guard.allows(cut) if self._guard is not None else True

    def _allowed(self, cut: int) -> int | None:
        return cut if self._allows(cut) else None

    def _sentence_end(self) -> int | None:
        """The last sentence end a cut may take (those that never may are dropped)."""
        for i in range(len(self._ends) - 1, -1, -1):
            allowed = self._allows(self._ends[i])
            if allowed:
                return self._ends[i]
            if allowed is False:
                del self._ends[i]
        return None

    def _cut_point(self) -> int | None:
        sentence_end = self._sentence_end()
        if sentence_end is not None:
            return sentence_end
        first = self._clause if self._pieces == 0 and self._clause is not None else None
        if first is not None and first > self._start and self._allows(first):
            return first
        if self._schedule is None:
            return None
        limit = self._schedule[min(self._pieces, len(self._schedule) - 1)]
        if len(self._text) >= limit:
            space = self._text.rfind(" ", 0, limit)
            self.examined += limit
            cut = None
            while space >= 0 and cut is None:
                cut = self._allowed(self._start + space + 1)
                space = self._text.rfind(" ", 0, space)
            if self._markup is not None or self._guard is not None:
                return cut  # None: wait, whole, for the markup or the match to close
            whole = self._start + len(self._text)
            return cut if cut is not None and cut - self._start > 1 else whole
        return None

    def _waits(self, cut: int) -> bool:
        """Whether the text up to ``cut`` is markup alone (a ``break`` flushed by
        itself): it stays, to be heard before the next text, and counts as buffered."""
        if self._markup is None:
            return False
        head = self._text[: cut - self._start]
        return _TAG.search(head) is not None and not _TAG.sub("", head).strip()

    def _take(self, cut: int) -> Piece | None:
        if self._waits(cut):
            return None
        size = cut - self._start
        text, self._text = self._text[:size], self._text[size:]
        start = self._start
        self._start = cut
        self._ends = [end for end in self._ends if end > cut]
        for reader in (self._markup, self._guard):
            if reader is not None:
                reader.forget(cut)
        if self._markup is not None:
            text = without_speak(text)
        if not text.strip():
            return None
        self._pieces += 1
        return Piece(text, start)
