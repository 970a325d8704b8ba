"""The TextNormaliser: what users type in, what a voice should be given out."""

from __future__ import annotations

import unicodedata
from collections import Counter

from deployments.messages import NormalisedText
from deployments.normaliser.cleaning import clean_text
from deployments.normaliser.segmenter import PROFILES, segment

DEVANAGARI = range(0x0900, 0x0980)


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
    """Cleans and segments text for a canonical language and a quality profile.

    Language-specific reading rules (numbers, currency, dates) plug in here.
    """

    def normalise(self, text: str, language: str, quality: str = "balanced") -> NormalisedText:
        """Normalise ``text`` (raises ``InvalidText`` for text that is not valid Unicode)."""
        cleaned = clean_text(text)
        segments = segment(cleaned, PROFILES[quality])
        return NormalisedText(
            language=language,
            representation=representation(cleaned, language),
            text=cleaned,
            segments=segments,
        )
