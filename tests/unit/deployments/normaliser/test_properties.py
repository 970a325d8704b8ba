"""Properties of the normaliser over any text: it is total, idempotent, clean,
bounded, and its segments cover the input exactly once."""

from __future__ import annotations

import itertools
import unicodedata

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from deployments.normaliser.cleaning import clean
from deployments.normaliser.indic_scripts import SCRIPTS
from deployments.normaliser.normaliser import TextNormaliser
from deployments.reading import ReadingOptions

LANGUAGES = sorted({*SCRIPTS, "en", "ur"})
normaliser = TextNormaliser()

# Text that looks like what users send: Indic and Latin letters, digits of several
# scripts, punctuation, currency and unit marks, combining marks, controls.
alphabet = st.one_of(
    st.characters(min_codepoint=0x0900, max_codepoint=0x097F),
    st.characters(min_codepoint=0x0980, max_codepoint=0x0D7F),
    st.sampled_from(list("0123456789.,:;/-–%₹$€£½¾ kmgl°CRsINRडॉ.।?! \n\t")),
    st.characters(min_codepoint=0x20, max_codepoint=0x7E),
    st.sampled_from(["\u200b", "\u200d", "\u202e", "\u0301", "\u093c", "\x00", "\x7f"]),
)
texts = st.text(alphabet, max_size=200)
any_text = st.text(max_size=100)  # every code point, surrogates included


def _clean_of_controls(text: str) -> bool:
    return not any(
        unicodedata.category(ch) == "Cc"
        or unicodedata.bidirectional(ch)
        in {"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"}
        for ch in text
    )


@given(text=any_text, language=st.sampled_from(LANGUAGES))
def test_total_on_every_string(text: str, language: str) -> None:
    result = normaliser.normalise(text, ReadingOptions(language))
    assert isinstance(result.text, str)
    result.text.encode("utf-8")  # never a lone surrogate


@given(text=texts, language=st.sampled_from(LANGUAGES))
@example(text="₹1,250.50 और 10:30 बजे", language="hi")
@example(text="namaste 5 km", language="hi")
@example(text="Y.ऄ", language="hi")  # ई. (ईसवी) was read inside वाई.
@example(text="0:Zऺऺ়", language="hi")  # ज़ी's marks and the input's past the cap
def test_idempotent_clean_and_bounded(text: str, language: str) -> None:
    once = normaliser.normalise(text, ReadingOptions(language)).text
    assert normaliser.normalise(once, ReadingOptions(language)).text == once
    assert _clean_of_controls(once)
    assert unicodedata.is_normalized("NFC", once)
    assert len(once) <= 12 * len(text) + 16


@given(
    text=texts,
    language=st.sampled_from(LANGUAGES),
    quality=st.sampled_from(["fast", "balanced", "high"]),
)
def test_segments_cover_the_input_exactly_once(text: str, language: str, quality: str) -> None:
    result = normaliser.normalise(text, ReadingOptions(language, quality))
    spans = [(s.start, s.end) for s in result.segments]
    assert spans == sorted(spans)
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert end <= start, "segments overlap"
    assert all(0 <= s <= e <= len(text) for s, e in spans)
    covered = {i for s, e in spans for i in range(s, e)}
    cleaned = clean(text)
    for k, ch in enumerate(cleaned.text):
        if not ch.isspace():
            assert cleaned.origin[k] in covered, f"{ch!r} at {cleaned.origin[k]} is not spoken"
    assert [s.index for s in result.segments] == list(range(len(spans)))


@pytest.mark.parametrize(("text", "expected"), [("\ud800", ""), ("a\udfffb", "ab")])
def test_lone_surrogates_are_dropped(text: str, expected: str) -> None:
    """The API refuses them (400, protocol.py); the normaliser itself stays total."""
    assert normaliser.normalise(text, ReadingOptions("en")).text == expected
