"""The TextNormaliser: what users type in, what a voice should be given out.

clean (Unicode hygiene) -> segment (sentences, a short first clause) -> read each
segment in its language (numbers, money, dates, ...) -> transliterate romanised
Hindi. Segments keep the offsets of the input they came from.
"""

from __future__ import annotations

import asyncio
import bisect
import functools
import unicodedata
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from deployments.messages import NormalisedText, PhonemeSpan, Prosody, Segment, Surroundings
from deployments.normaliser.cleaning import clean, clean_text
from deployments.normaliser.english_words import native_spellings
from deployments.normaliser.indic_scripts import SCRIPTS
from deployments.normaliser.languages import reader_for
from deployments.normaliser.pronunciation import (
    MARKER,
    RuleSet,
    Source,
    Span,
    compiled,
    rewrite,
    with_rules,
)
from deployments.normaliser.segmenter import PROFILES, segment
from deployments.normaliser.sources import word_sources
from deployments.normaliser.ssml import MAX_PAUSE_MS, parse
from deployments.normaliser.stretches import Stretch, stretches
from deployments.normaliser.surroundings import with_surroundings
from deployments.normaliser.transliteration import is_romanised, romanised_to_devanagari
from deployments.priority import run_in_background
from deployments.reading import AppliedRule, Pause, PronunciationRule, ReadingOptions, SsmlText

DEVANAGARI = range(0x0900, 0x0980)
# Normalising costs ~8 us a character here: up to this many it runs on the event
# loop (under 2 ms, less than a thread hop under load), longer texts on a thread.
INLINE_NORMALISE_CHARS = 200
INLINE_RULES = 100
# Where text that no listener waits for is read (a long-form job's chunks, hundreds of
# characters each): one thread below the process's priority (nice, not the idle
# class: a thread that holds the GIL must still get to give it back), so that a live
# request's text is read first while both wait for a core.
IN_BACKGROUND = ThreadPoolExecutor(1, "normalise-background", initializer=run_in_background)
T = TypeVar("T")


def dominant_script(text: str) -> str | None:
    """``devanagari``, ``latin`` or ``other``: the script most letters of ``text`` are in."""
    counts: Counter[str] = Counter()
    for ch in text:
        if not ch.isalpha() and unicodedata.category(ch) not in ("Mn", "Mc"):
            continue
        if ord(ch) in DEVANAGARI:
            counts["devanagari"] += 1
        elif ch.isascii() or "LATIN" in unicodedata.name(ch, ""):
            counts["latin"] += 1
        else:
            counts["other"] += 1
    return counts.most_common(1)[0][0] if counts else None


def representation(text: str, language: str) -> str:
    """The x-service-representation of ``text``: ``devanagari``, ``latin`` or ``native``."""
    script = dominant_script(text)
    if script is None:
        return "latin" if language == "en" else "native"
    return "native" if script == "other" else script


class TextNormaliser:
    """Cleans, segments and reads text for a canonical language and a quality profile."""

    def warm_up(self) -> None:
        """Read a sentence in Hindi and English once: the first call of a reader
        compiles its patterns and loads its number tables (~40 ms here)."""
        for text, language in (("नमस्ते, ₹1,250 और 10:30 बजे।", "hi"), ("Hello, 25 km.", "en")):
            self.normalise(text, ReadingOptions(language))

    def normalise(self, text: str, options: ReadingOptions) -> NormalisedText:
        """``text`` read as ``options`` say. Never raises for plain text (lone
        surrogates, which the API refuses, are dropped); segment offsets index ``text``
        itself. The rules match the text as written, before any word is read: an alias
        is then read like the text around it. An SSML document (raises
        :class:`SsmlError` if it cannot be read) has its elements become rules,
        pauses, prosody and languages of the segments (``stretches``). Not ``read``:
        the text is cleaned and segmented, its numbers and symbols left as written."""
        language, ssml, rules, read = options.language, options.ssml, options.rules, options.read
        if ssml:
            document = ssml if isinstance(ssml, SsmlText) else parse(text)
            plan = stretches(document, language)
            body, to_input = document.text, document.span_in_input
        else:
            plan = [Stretch(0, len(text), None, Prosody(), ())]
            body, to_input = text, _same
        ruleset = compiled(rules) if rules else None
        parts = [_Read(s, *_prepared(body[s.start : s.end], s, ruleset)) for s in plan]
        romanised = language == "hi" and is_romanised(" ".join(r.source.text for r in parts))
        segment_profile = PROFILES[options.quality]
        said: list[tuple[_Read, Any, str]] = []
        for part in parts:
            reader = reader_for(part.stretch.language or language)
            part.reader = reader
            said += [
                (part, p, reader.read(p.text) if read else p.text)
                for p in segment(part.source.text, segment_profile)
            ]
        # Where what is said is in the language's own script, its English words are
        # written in that script too: no Latin word reaches an Indic voice.
        script = SCRIPTS.get(language)
        mixed = script is not None and any(script.letters.search(s) for _, _, s in said)

        def spelt(said: str, part: _Read) -> str:
            if romanised and part.stretch.language is None:
                return romanised_to_devanagari(said)
            return native_spellings(said, language) if mixed else said

        pieces: list[_Spoken] = []
        for part, piece, words in said:
            # Words put next to combining marks, or letters from transliteration,
            # may compose differently or carry marks of their own past the cap
            # (Z -> ज़ी before marks the input stacked on Z): clean again, which
            # keeps the output NFC and the normaliser idempotent.

            def read_match(match: str, part: _Read = part) -> str:
                return spelt(part.reader.read(match), part)

            spoken, spans = with_phonemes(spelt(words, part), part.marked, read_match)
            if spoken:
                start, end = part.in_document(piece.start, piece.end)
                pieces.append(
                    _Spoken(spoken, start, end, spans, part.stretch.prosody, piece.joins_next)
                )
        expansions = [
            (start, heard_in(a.rule) - heard_characters(body[start:end]))
            for part in parts
            for a in part.applied
            for start, end in [part.document_span(a.start, a.end)]
        ]
        expansions = [(start, extra) for start, extra in expansions if extra > 0]
        pauses = document.pauses if ssml else ()
        segments = _paused(text, pieces, pauses, to_input, bool(ssml), expansions)
        applied = tuple(
            AppliedRule(*to_input(*part.document_span(a.start, a.end)), a.rule)
            for part in parts
            for a in part.applied
        )
        # Segments are joined as the input had them: a space where it had space.
        spoken_text = "".join(
            ("" if i == 0 or s.start == segments[i - 1].end else " ") + s.text
            for i, s in enumerate(segments)
        )
        return NormalisedText(
            language=language,
            representation=representation(spoken_text, language),
            text=spoken_text,
            segments=tuple(segments),
            applied=applied,
            expansion=sum(extra for _, extra in expansions),
        )

    def normalise_around(
        self, text: str, options: ReadingOptions, around: Surroundings
    ) -> NormalisedText:
        """:meth:`normalise`, with the text ``around`` it read as it is (without its
        markup) and given to its first and last segment (``surroundings.py``)."""
        plain = replace(options, ssml=False)
        return with_surroundings(
            self.normalise(text, options), around, lambda t: self.normalise(t, plain).text
        )


def heard_characters(text: str) -> int:
    """Letters, marks and digits of ``text``: what an alias is billed by (its spaces
    and punctuation are not, as a spelt-out word costs what it spells)."""
    return sum(1 for ch in text if unicodedata.category(ch)[0] in "LMN")


def heard_phonemes(phonemes: str) -> int:
    """The sounds of a phoneme string, one character each: its letters and digits
    (IPA's, or eSpeak's and X-SAMPA's ASCII), not stress, length or tone marks
    (modifier letters), diacritics, spaces or punctuation. What a phoneme rule or
    an SSML ``phoneme`` is billed by, as the word it spells would be."""
    return sum(1 for ch in phonemes if unicodedata.category(ch) in ("Ll", "Lu", "Lo", "Nd"))


def heard_in(rule: PronunciationRule) -> int:
    """What a rule makes heard, in billed characters: its alias's, or its phonemes'."""
    return heard_characters(rule.alias) if rule.type == "alias" else heard_phonemes(rule.phoneme)


def _same(start: int, end: int) -> tuple[int, int]:
    return start, end


@dataclass
class _Read:
    """A stretch of the text, cleaned and rewritten by its rules, being read."""

    stretch: Stretch
    source: Source
    applied: tuple[AppliedRule, ...]
    marked: dict[str, tuple[PronunciationRule, str]]
    reader: Any = None

    def document_span(self, start: int, end: int) -> tuple[int, int]:
        """Offsets in the stretch's text (as the rules report them) in the document's."""
        return start + self.stretch.start, end + self.stretch.start

    def in_document(self, start: int, end: int) -> tuple[int, int]:
        """The document's offsets of ``source.text[start:end]``."""
        return self.document_span(*self.source.span_in_input(start, end))


def _prepared(
    text: str, stretch: Stretch, rules: RuleSet | None
) -> tuple[Source, tuple[AppliedRule, ...], dict[str, tuple[PronunciationRule, str]]]:
    """``text`` cleaned, then rewritten by the stretch's own spans and ``rules``."""
    cleaned = clean(text)
    if rules is None and not stretch.spans:
        return cleaned, (), {}
    # the stretch's spans, from offsets in ``text`` to offsets in the cleaned text
    given = [
        Span(
            bisect.bisect_left(cleaned.origin, p.start),
            bisect.bisect_left(cleaned.origin, p.end),
            p.rule,
        )
        for p in stretch.spans
    ]
    rewritten = rewrite(cleaned, with_rules(cleaned.text, given, rules))
    marked = {marker: (rule, match) for marker, rule, match in rewritten.marked}
    return rewritten, rewritten.applied, marked


@dataclass(frozen=True)
class _Spoken:
    text: str
    start: int  # in the document
    end: int
    phonemes: tuple[PhonemeSpan, ...]
    prosody: Prosody
    joins_next: bool = False


def _paused(
    text: str,
    pieces: list[_Spoken],
    pauses: tuple[Pause, ...],
    to_input: Callable[[int, int], tuple[int, int]],
    billed_as_heard: bool,
    expansions: list[tuple[int, int]],
) -> list[Segment]:
    """The segments of ``pieces``, offsets in ``text`` (the input) and where their words
    came from in it (sources.py), each pause the silence after
    the last segment before it (before the first segment, for a pause that opens);
    ``billed_as_heard``: billed by offsets in the text heard, not the input's;
    ``expansions``: ``(where, characters)`` an alias adds to what is billed, in the
    text heard, counted by every segment that ends after it starts."""
    before = [0] * len(pieces)
    after = [0] * len(pieces)
    ends = [p.end for p in pieces]
    for pause in pauses:
        k = bisect.bisect_right(ends, pause.at) - 1
        if k >= 0:
            after[k] += pause.ms
        elif pieces:
            before[0] += pause.ms
    segments = []
    for i, p in enumerate(pieces):
        start, end = to_input(p.start, p.end)
        extra = sum(added for at, added in expansions if at < p.end)
        billed = p.end + extra if billed_as_heard or extra else None
        segments.append(
            Segment(
                i,
                p.text,
                start,
                end,
                p.phonemes,
                p.prosody,
                pause_before_ms=min(before[i], MAX_PAUSE_MS),
                pause_after_ms=min(after[i], MAX_PAUSE_MS),
                billed_end=billed,
                joins_next=p.joins_next and i + 1 < len(pieces),
                sources=word_sources(text[start:end], p.text, start),
            )
        )
    return segments


def with_phonemes(
    spoken: str,
    marked: dict[str, tuple[PronunciationRule, str]],
    read: Callable[[str], str],
) -> tuple[str, tuple[PhonemeSpan, ...]]:
    """``spoken`` cleaned, each phoneme rule's marker replaced by the reading of the
    text the rule matched (``read``), and where in it each rule's phonemes belong."""
    if not marked:
        return clean_text(spoken), ()
    out: list[str] = []
    size = 0
    spans: list[PhonemeSpan] = []
    for i, part in enumerate(MARKER.split(spoken)):
        if i % 2:
            rule, match = marked[part]
            part = clean_text(read(match)) or match
            spans.append(PhonemeSpan(size, size + len(part), rule.phoneme, rule.alphabet))
        else:
            part = clean_text(part)
        out.append(part)
        size += len(part)
    return "".join(out), tuple(spans)


async def off_loop_if_long(call: Callable[..., T], text: str, *args: Any) -> T:
    """``call(text, *args)``, on a thread when the text is long enough to matter."""
    if len(text) <= INLINE_NORMALISE_CHARS:
        return call(text, *args)
    return await asyncio.to_thread(call, text, *args)


async def normalise_off_loop(
    normaliser: TextNormaliser,
    text: str,
    options: ReadingOptions,
    around: Surroundings | None = None,
) -> NormalisedText:
    """``normaliser.normalise`` (with the text ``around`` it, where given: one call), on
    a thread when the text is long enough to matter, or its rules are many (the first
    use of a large dictionary builds its trie: ~30 ms a thousand rules here);
    background text always on the thread below the process's priority, never on the
    event loop that live requests' text is read on."""
    read: Callable[[str], NormalisedText] = functools.partial(normaliser.normalise, options=options)
    if around:
        read = functools.partial(normaliser.normalise_around, options=options, around=around)
    if options.background:
        return await asyncio.get_running_loop().run_in_executor(IN_BACKGROUND, read, text)
    if len(options.rules) > INLINE_RULES:
        return await asyncio.to_thread(read, text)
    whole = text + (around.previous_text + around.next_text if around else "")
    if len(whole) <= INLINE_NORMALISE_CHARS:
        return read(text)
    return await asyncio.to_thread(read, text)
