"""Splitting text into the segments a voice speaks one at a time.

Sentences end at a danda (``।``, ``॥``), ``?``, ``!``, ``…`` or a full stop that
is followed by a space. The first segment is kept short, at a clause boundary, so
the first audio leaves early; how short depends on the quality profile.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from deployments.messages import Segment

_SENTENCE_END = re.compile(r"(?:[।॥?!…]+|\.+(?=\s|$))[\"'\u201d\u2019)\]]*")
# Words whose full stop does not end a sentence (titles, units, "etc." mid-sentence).
ABBREVIATIONS = frozenset(
    "dr mr mrs ms prof sr jr st no vs etc rs "
    "approx fig vol inc ltd co a.m p.m rd ave sq ft डॉ प्रो श्री सु कु स्व "
    "पं मो रु कि मी सं पृ ई नं इं ले मा वै कै ब्रि अधि एड श्रीमती "
    "er adv smt shri lt col capt maj gen सौ प्रा चि ডা শ্রী শ্রীমতী অধ্যাপক திரு திருமதி "
    "செல்வி டாக் డా శ్రీ శ్రీమతి ప్రొ ಡಾ ಶ್ರೀ ಶ್ರೀಮತಿ ಪ್ರೊ ಕು".split()
)
# A clause ends at a comma, semicolon, colon, Arabic comma or dash before a space,
# but not at a comma with a digit on both sides ("Jan 15, 2027", "1, 2 और 3"): the
# reader needs the whole date or list.
CLAUSE_END = re.compile("(?:(?<!\\d),|,(?!\\s+\\d)|[;:\u060c\u2014\u2013])(?=\\s)")
_TOKEN_BEFORE = re.compile(r"[^\s\"'(\u201c\u2018]+$")


def _ends_sentence(text: str, match: re.Match[str]) -> bool:
    """A full stop ends a sentence unless it closes an abbreviation or an initial."""
    if not match.group().startswith("."):
        return True
    token = _TOKEN_BEFORE.search(text, max(0, match.start() - 40), match.start())
    if token is None:
        return True
    word = token.group()
    initial = len(word) == 1 and word.isalpha()  # A. P. J. Abdul Kalam
    return not (initial or word.casefold() in ABBREVIATIONS)


@dataclass(frozen=True)
class SegmentationProfile:
    """How a quality profile cuts text.

    ``first_clause_min``: the first sentence is cut at its first clause boundary when
    it is longer than this many characters (0: always; None: never).
    ``max_chars``: no segment is longer; longer ones are cut at a space.
    """

    first_clause_min: int | None
    max_chars: int = 400


PROFILES = {
    "fast": SegmentationProfile(first_clause_min=0, max_chars=300),
    # A neural voice's time to first audio grows with the audio of the first segment
    # (Kokoro on 2 cores: ~0.3 s per second of speech): a first sentence longer than
    # a short greeting starts with its first clause.
    "balanced": SegmentationProfile(first_clause_min=24, max_chars=400),
    "high": SegmentationProfile(first_clause_min=None, max_chars=600),
}


def _spans(text: str, pattern: re.Pattern[str], start: int, end: int) -> list[tuple[int, int]]:
    spans = []
    pos = start
    for match in pattern.finditer(text, start, end):
        if pattern is _SENTENCE_END and not _ends_sentence(text, match):
            continue
        spans.append((pos, match.end()))
        pos = match.end()
    if pos < end:
        spans.append((pos, end))
    return spans


def _strip(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if end > start else None


def _cap_length(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    pieces = []
    while end - start > max_chars:
        cut = text.rfind(" ", start + 1, start + max_chars)
        if cut <= start:
            cut = start + max_chars
        pieces.append((start, cut))
        start = cut
    pieces.append((start, end))
    return pieces


def segment(text: str, profile: SegmentationProfile) -> tuple[Segment, ...]:
    """Cut ``text`` into segments whose offsets index ``text``; whitespace is dropped."""
    spans: list[tuple[int, int, bool]] = []  # start, end, cut only for first audio
    cut_first = profile.first_clause_min
    for s, e in _spans(text, _SENTENCE_END, 0, len(text)):
        if not spans and cut_first is not None and e - s > cut_first:
            clauses = _spans(text, CLAUSE_END, s, e)
            if len(clauses) > 1:
                spans.append((*clauses[0], True))
                s = clauses[0][1]
        spans.append((s, e, False))
    segments: list[Segment] = []
    for s, e, cut in spans:
        stripped = _strip(text, s, e)
        if stripped is None:
            continue
        pieces = [
            piece
            for ps, pe in _cap_length(text, *stripped, profile.max_chars)
            if (piece := _strip(text, ps, pe)) is not None
        ]
        for k, (ps, pe) in enumerate(pieces):
            joins = cut and k == len(pieces) - 1
            segments.append(Segment(len(segments), text[ps:pe], ps, pe, joins_next=joins))
    if segments and segments[-1].joins_next:  # nothing after it to join
        segments[-1] = replace(segments[-1], joins_next=False)
    return tuple(segments)
