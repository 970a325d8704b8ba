"""SSML read into stretches: runs of the text a listener hears that are normalised
alike and spoken alike.

A stretch ends wherever the speaking changes: at a pause (``break``, a paragraph's
end), where a ``prosody`` or ``lang`` element starts or ends. Inside a stretch,
``sub``, ``phoneme`` and ``say-as`` become :class:`Span` s with a pronunciation rule
of their own (an alias, phonemes), so they take the same path through the
normaliser as a dictionary's rules (``pronunciation.rewrite``); ``say-as`` kinds
the normaliser already reads (cardinal, date, time, currency) stay text.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from deployments.messages import Prosody
from deployments.normaliser.pronunciation import Span
from deployments.normaliser.ssml import pitch_of, rate_of, volume_of
from deployments.reading import Mark, PronunciationRule, SsmlText

# say-as kinds spoken one character at a time
SPELT = frozenset({"characters", "spell-out", "digits"})
PLUS = {"hi": "प्लस", "en": "plus"}
_DATE = re.compile(r"(\d{1,4})([-/.])(\d{1,2})([-/.])(\d{1,4})")
_HINDI_ORDINALS = {1: "ला", 2: "रा", 3: "रा", 4: "था", 6: "ठा"}


def within(prosody: Prosody, mark: Mark) -> Prosody:
    """``prosody`` inside ``mark`` (a ``prosody`` element): rates and gains multiply,
    pitches add."""
    rate, pitch, volume = (mark.get(k) for k in ("rate", "pitch", "volume"))
    return Prosody(
        prosody.speed * (rate_of(rate) if rate else 1.0),
        prosody.pitch + (pitch_of(pitch) if pitch else 0.0),
        prosody.volume * (volume_of(volume) if volume else 1.0),
    )


@dataclass(frozen=True)
class Stretch:
    """``text[start:end]`` of the document, read in ``language`` (None: the request's)
    and spoken with ``prosody``; ``spans`` are its elements that replace or respell
    their text, with offsets into the stretch."""

    start: int
    end: int
    language: str | None
    prosody: Prosody
    spans: tuple[Span, ...]


def stretches(document: SsmlText, language: str) -> list[Stretch]:
    """``document`` cut into stretches, in order, covering its text whole."""
    cuts = {0, len(document.text)} | {pause.at for pause in document.pauses}
    for mark in document.marks:
        if mark.element in ("prosody", "lang"):
            cuts |= {mark.start, mark.end}
    bounds = sorted(cuts)
    out: list[Stretch] = []
    for start, end in itertools.pairwise(bounds):
        prosody, spoken_in = Prosody(), None
        spans: list[Span] = []
        for mark in document.marks:  # outer elements first
            if mark.element in ("prosody", "lang"):
                if mark.start <= start and end <= mark.end:
                    if mark.element == "prosody":
                        prosody = within(prosody, mark)
                    else:
                        spoken_in = base_language(mark.get("xml:lang") or "")
            elif start <= mark.start and mark.end <= end:
                rule = rule_of(mark, document.text[mark.start : mark.end], spoken_in or language)
                if rule is not None:
                    spans.append(Span(mark.start - start, mark.end - start, rule))
        out.append(Stretch(start, end, spoken_in, prosody, tuple(spans)))
    return out


def base_language(tag: str) -> str:
    """The language subtag of a BCP-47 tag, lower case: ``en-IN`` -> ``en``."""
    return tag.replace("_", "-").split("-", 1)[0].lower()


def rule_of(mark: Mark, text: str, language: str) -> PronunciationRule | None:
    """The pronunciation rule an element makes of its ``text`` (None: read it as text)."""
    if mark.element == "sub":
        return PronunciationRule(text, "alias", alias=mark.get("alias") or "")
    if mark.element == "phoneme":
        ph, alphabet = mark.get("ph") or "", mark.get("alphabet") or "ipa"
        return PronunciationRule(text, "phoneme", phoneme=ph, alphabet=alphabet)
    if mark.element == "say-as":
        alias = said_as(mark.get("interpret-as") or "", text, language, mark.get("format"))
        if alias is not None and alias != text:
            return PronunciationRule(text, "alias", alias=alias)
    return None


def said_as(kind: str, text: str, language: str, form: str | None = None) -> str | None:
    """``text`` written the way the normaliser reads it as ``kind``, or None where it
    already does (cardinal numbers, currency, times)."""
    if kind in SPELT:
        return " ".join(ch for ch in text if not ch.isspace())
    if kind == "telephone":  # digit by digit, a pause between its groups
        groups = ", ".join(" ".join(group) for group in re.findall(r"\d+", text))
        plus = PLUS.get(language, "+") + " " if text.strip().startswith("+") else ""
        return plus + groups
    if kind == "ordinal":
        return ordinal(text.strip(), language)
    if kind == "date" and form in ("mdy", "md") and (m := _DATE.fullmatch(text.strip())):
        return f"{m[3]}{m[2]}{m[1]}{m[4]}{m[5]}"  # day first, as the reader reads dates
    return None


def ordinal(number: str, language: str) -> str | None:
    """``number`` written as the ordinal the language's reader reads (1st, 2रा)."""
    if not number.isdigit():
        return None
    n = int(number)
    if language == "en":
        suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        return f"{n}{suffix}"
    if language == "hi":
        return f"{n}{_HINDI_ORDINALS.get(n, 'वाँ')}"
    return None
