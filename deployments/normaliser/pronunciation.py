"""Pronunciation rules (``deployments.reading.PronunciationRule``) found in a text:
say this text instead (``alias``), or say it with these phonemes (``phoneme``),
matched in the text as the client wrote it.

A rule names the text it replaces (``string_to_replace``, any script: ``SBI``,
``Dr. Iyer``, ``ज़ोमैटो``), whether case matters and whether it must stand as a
whole word; the shape is ElevenLabs' (their SDK sends it unchanged). Rules are
matched before normalisation changes any word, so a rule for ``Zomato`` still
matches although the normaliser would write it in Devanagari: :func:`split`
cuts the text into spans, each either plain text (normalised as usual), an
alias (normalised in its place) or phonemes (given to the engine as they are).

Where several rules match at one place the longest match wins, then the rule
listed first; matches never overlap. Phonemes are IPA, or eSpeak's own notation
(``alphabet="espeak"``), which the eSpeak-based engines take directly.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import Protocol

from deployments.normaliser.cleaning import clean_text
from deployments.reading import MAX_RULES, AppliedRule, PronunciationRule, RuleError

# Joiners and the underscore join a word as letters, marks and digits do.
_JOINING = frozenset("_\u200c\u200d")


@dataclass(frozen=True)
class Span:
    """``text[start:end]`` of the client's text, and the rule that matched it (None
    for plain text)."""

    start: int
    end: int
    rule: PronunciationRule | None


def _in_word(ch: str) -> bool:
    """Whether ``ch`` belongs to a word: a letter, combining mark or digit of any
    script, or a joiner (a whole-word match must not stop before राम's ा), but not
    punctuation, a danda (।, ॥) included, which ends a Hindi sentence as "." does."""
    return unicodedata.category(ch)[0] in "LMN" or ch in _JOINING


def _fold(ch: str) -> str:
    """``ch`` as a rule that ignores case compares it (one character to one, as a
    regular expression's IGNORECASE does)."""
    lower = ch.lower()
    return lower if len(lower) == 1 else ch


@dataclass
class _Node:
    """A place in the rules' trie: the rules whose string ends here, listed order first."""

    children: dict[str, _Node]
    ending: list[tuple[int, PronunciationRule]]


class RuleSet:
    """Rules in a trie of their strings (case folded): finding them costs each place
    of the text at most the length of the longest string, however many rules there
    are (a pattern of 10,000 alternatives tried each of them at every place)."""

    def __init__(self, rules: list[PronunciationRule]) -> None:
        if len(rules) > MAX_RULES:
            raise RuleError(f"a dictionary holds at most {MAX_RULES} rules")
        self.rules = rules
        self._root = _Node({}, [])
        for order, rule in enumerate(rules):
            node = self._root
            for ch in rule.string_to_replace:
                node = node.children.setdefault(_fold(ch), _Node({}, []))
            node.ending.append((order, rule))

    def _match_at(self, text: str, start: int) -> tuple[int, PronunciationRule] | None:
        """The end and rule of the longest rule matching at ``start`` (of those as long,
        the one listed first), or None."""
        after_word = start > 0 and _in_word(text[start - 1])
        best: tuple[int, PronunciationRule] | None = None
        node = self._root
        for end in range(start + 1, len(text) + 1):
            found = node.children.get(_fold(text[end - 1]))
            if found is None:
                break
            node = found
            before_word = end < len(text) and _in_word(text[end])
            for _, rule in node.ending:  # in listed order: the first that holds wins
                if rule.word_boundaries and (after_word or before_word):
                    continue
                if rule.case_sensitive and text[start:end] != rule.string_to_replace:
                    continue
                best = (end, rule)
                break
        return best

    def split(self, text: str) -> list[Span]:
        """``text`` cut into plain spans and the spans rules matched, in order,
        covering it whole."""
        spans: list[Span] = []
        position = start = 0
        if self.rules:
            while start < len(text):
                match = self._match_at(text, start)
                if match is None:
                    start += 1
                    continue
                end, rule = match
                if start > position:
                    spans.append(Span(position, start, None))
                spans.append(Span(start, end, rule))
                position = start = end
        if position < len(text) or not spans:
            spans.append(Span(position, len(text), None))
        return spans


@dataclass(frozen=True)
class Rewritten:
    """Text with every alias in place of what its rule matched, and where each of its
    characters came from: ``starts[i]``/``ends[i]`` are the input offsets character
    ``i`` covers (an alias's characters cover the whole match), one more entry each
    for the end."""

    text: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    applied: tuple[AppliedRule, ...]
    # each phoneme rule's place: a marker character, the rule and the text it matched
    marked: tuple[tuple[str, PronunciationRule, str], ...] = ()

    def span_in_input(self, start: int, end: int) -> tuple[int, int]:
        """The input offsets of ``text[start:end]``."""
        if end <= start:
            return self.starts[start], self.starts[start]
        return self.starts[start], self.ends[end - 1]


class Source(Protocol):
    """Text to read and the way back to the input (cleaned, or rewritten by rules)."""

    @property
    def text(self) -> str: ...

    def span_in_input(self, start: int, end: int) -> tuple[int, int]: ...


# A phoneme rule's match is held in the text by one private-use character (which no
# input keeps: cleaning removes them) while the text is read; the normaliser then puts
# the match's own reading in its place and tells the engine its phonemes.
MARKER_BASE = 0xF0000
MAX_MARKED = 0xFFFD  # plane 15's private-use characters
MARKER = re.compile(f"([{chr(MARKER_BASE)}-{chr(MARKER_BASE + MAX_MARKED - 1)}])")


def with_rules(text: str, given: list[Span], rules: RuleSet | None) -> list[Span]:
    """``text`` cut into spans: ``given`` ones (in order, not overlapping: an SSML
    document's elements) where they are, ``rules`` matched in the text between them."""
    spans: list[Span] = []
    position = 0
    for span in [*given, Span(len(text), len(text), None)]:
        if span.start > position:
            gap = text[position : span.start]
            found = rules.split(gap) if rules is not None else [Span(0, len(gap), None)]
            spans += [Span(p.start + position, p.end + position, p.rule) for p in found]
        if span.end > span.start:
            spans.append(span)
        position = max(position, span.end)
    return spans


def rewrite(source: Source, spans: list[Span]) -> Rewritten:
    """``source.text`` with each alias rule's alias where it matched, and a marker
    (:data:`MARKER`) where a phoneme rule matched; ``spans`` (of
    :meth:`RuleSet.split` or :func:`with_rules`) cover the text in order."""
    text, starts, ends, applied = [], [], [], []
    marked: list[tuple[str, PronunciationRule, str]] = []
    for span in spans:
        if span.start == span.end:
            continue
        rule = span.rule
        if rule is not None and rule.type == "phoneme" and len(marked) < MAX_MARKED:
            marker = chr(MARKER_BASE + len(marked))
            marked.append((marker, rule, source.text[span.start : span.end]))
            start, end = source.span_in_input(span.start, span.end)
            applied.append(AppliedRule(start, end, rule))
            text.append(marker)
            starts.append(start)
            ends.append(end)
            continue
        if rule is None or rule.type != "alias":
            for i in range(span.start, span.end):
                text.append(source.text[i])
                start, end = source.span_in_input(i, i + 1)
                starts.append(start)
                ends.append(end)
            continue
        start, end = source.span_in_input(span.start, span.end)
        applied.append(AppliedRule(start, end, rule))
        alias = clean_text(rule.alias)
        text.append(alias)
        starts.extend([start] * len(alias))
        ends.extend([end] * len(alias))
    whole = "".join(text)
    tail = source.span_in_input(len(source.text), len(source.text))[0]
    return Rewritten(whole, (*starts, tail), (*ends, tail), tuple(applied), tuple(marked))


@functools.lru_cache(maxsize=32)
def compiled(rules: tuple[PronunciationRule, ...]) -> RuleSet:
    """The rule set of ``rules``, compiled once for the requests that use it."""
    return RuleSet(list(rules))
