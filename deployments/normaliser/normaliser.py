"""The TextNormaliser: what users type in, what a voice should be given out.

clean (Unicode hygiene) -> segment (sentences, a short first clause) -> read each
segment in its language (numbers, money, dates, ...) -> transliterate romanised
Hindi. Segments keep the offsets of the input they came from.
"""

from __future__ import annotations

import asyncio
import unicodedata
from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

from deployments.messages import NormalisedText, PhonemeSpan, Segment
from deployments.normaliser.cleaning import clean, clean_text
from deployments.normaliser.english_words import native_spellings
from deployments.normaliser.indic_scripts import SCRIPTS
from deployments.normaliser.languages import reader_for
from deployments.normaliser.pronunciation import (
    MARKER,
    AppliedRule,
    PronunciationRule,
    Source,
    compiled,
    rewrite,
)
from deployments.normaliser.segmenter import PROFILES, segment
from deployments.normaliser.transliteration import is_romanised, romanised_to_devanagari

DEVANAGARI = range(0x0900, 0x0980)
# Normalising costs ~8 us a character here: up to this many it runs on the event
# loop (under 2 ms, less than a thread hop under load), longer texts on a thread.
INLINE_NORMALISE_CHARS = 200
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
            self.normalise(text, language)

    def normalise(
        self,
        text: str,
        language: str,
        quality: str = "balanced",
        rules: tuple[PronunciationRule, ...] = (),
    ) -> NormalisedText:
        """Normalise ``text``. Never raises (lone surrogates, which the API refuses, are
        dropped); segment offsets index ``text`` itself. ``rules`` match the text as
        written, before any word is read: an alias is then read like the text around it.
        """
        cleaned: Source = clean(text)
        applied: tuple[AppliedRule, ...] = ()
        marked: dict[str, tuple[PronunciationRule, str]] = {}
        if rules:
            cleaned = rewrite(cleaned, compiled(rules))
            applied = cleaned.applied
            marked = {marker: (rule, match) for marker, rule, match in cleaned.marked}
        reader = reader_for(language)
        romanised = language == "hi" and is_romanised(cleaned.text)
        pieces = [
            (piece, reader.read(piece.text)) for piece in segment(cleaned.text, PROFILES[quality])
        ]
        # Where what is said is in the language's own script, its English words are
        # written in that script too: no Latin word reaches an Indic voice.
        script = SCRIPTS.get(language)
        mixed = script is not None and any(script.letters.search(said) for _, said in pieces)
        segments: list[Segment] = []

        def spelt(said: str) -> str:
            if romanised:
                return romanised_to_devanagari(said)
            return native_spellings(said, language) if mixed else said

        for piece, said in pieces:
            # Words put next to combining marks, or letters from transliteration,
            # may compose differently or carry marks of their own past the cap
            # (Z -> ज़ी before marks the input stacked on Z): clean again, which
            # keeps the output NFC and the normaliser idempotent.
            spoken, spans = with_phonemes(spelt(said), marked, lambda m: spelt(reader.read(m)))
            if not spoken:
                continue
            start, end = cleaned.span_in_input(piece.start, piece.end)
            segments.append(Segment(len(segments), spoken, start, end, spans))
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
        )


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
    language: str,
    quality: str,
    rules: tuple[PronunciationRule, ...] = (),
) -> NormalisedText:
    """``normaliser.normalise``, on a thread when the text is long enough to matter."""
    return await off_loop_if_long(normaliser.normalise, text, language, quality, rules)
