"""Where each word of a normalised text came from in the text as the user sent it.

Reading changes words ("₹1,250" -> "एक हज़ार दो सौ पचास रुपये", "Dr." -> "डॉक्टर") and
leaves most alone. Words are matched in order (difflib's longest matching blocks,
comparing words case-folded and without their punctuation); between two matched
words, what was said there is mapped to what was written there: word for word
where the counts agree (a transliterated word), else every said word to the whole
written stretch (a number read as several words). So a timing of a said word can
name the words the user wrote: "the original word, not the normalised one".
"""

from __future__ import annotations

import difflib
import re

_WORD = re.compile(r"\S+")
# Punctuation at either end of a word does not make it another word.
_EDGES = re.compile(r"^[^\w]+|[^\w]+$")

Source = tuple[int, int, int, int]  # (start, end) in the said text, (start, end) in the input


def _words(text: str) -> list[tuple[int, int, str]]:
    found = []
    for match in _WORD.finditer(text):
        key = _EDGES.sub("", match.group()).casefold()
        found.append((match.start(), match.end(), key or match.group()))
    return found


def word_sources(written: str, said: str, offset: int = 0) -> tuple[Source, ...]:
    """For each word of ``said``: its span there and the span in the input of what it
    says (``written`` is the input from ``offset`` on). Said words with nothing
    written in their place (a word a reading added) take their neighbour's span."""
    source, spoken = _words(written), _words(said)
    if not spoken:
        return ()
    if not source:
        whole = (offset, offset + len(written))
        return tuple((a, b, *whole) for a, b, _ in spoken)
    matcher = difflib.SequenceMatcher(
        None, [w[2] for w in source], [w[2] for w in spoken], autojunk=False
    )
    spans: list[tuple[int, int] | None] = [None] * len(spoken)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            for k in range(j2 - j1):
                spans[j1 + k] = (source[i1 + k][0], source[i1 + k][1])
        elif tag == "replace":
            stretch = (source[i1][0], source[i2 - 1][1])
            for j in range(j1, j2):
                spans[j] = stretch
    # inserted words: the span of the word written before them, else after them
    last: tuple[int, int] | None = None
    for j, span in enumerate(spans):
        if span is None:
            spans[j] = last
        else:
            last = span
    following = next(s for s in spans if s is not None) if any(spans) else (0, len(written))
    return tuple(
        (a, b, offset + (span or following)[0], offset + (span or following)[1])
        for (a, b, _), span in zip(spoken, spans, strict=True)
    )
