"""Unicode hygiene: what no voice says is gone, what every script writes is kept."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deployments.normaliser.cleaning import JOINERS, MAX_MARKS, clean, clean_text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("hello" + "\u200b" * 4000, "hello"),  # zero-width spaces
        ("hello" + "\ufe0f" * 4000, "hello"),  # variation selectors
        ("hello" + "\U000e0041" * 100 + "\u2064\u180e\u00ad", "hello"),  # tags, invisibles
        ("a\ue000b\U000f0000c\U000e01ef", "abc"),  # private use, a variation selector
        ("hello" + "\u0301" * 4000, "hello" + "\u0301" * (MAX_MARKS + 1)),  # ó and four
        ("hello" + "\u200b\u0301" * 2000, "hello" + "\u0301" * MAX_MARKS),
        ("नमस्ते" + "\u094d" * 4000, "नमस्ते" + "\u094d" * (MAX_MARKS - 1)),
        ("hi" + "\u200d\u200c" * 1000 + "x", "hi\u200dx"),  # one joiner
    ],
)
def test_what_no_voice_says_is_dropped(text: str, expected: str) -> None:
    assert clean_text(text) == unicodedata.normalize("NFC", expected)


@pytest.mark.parametrize(
    "text",
    [
        "क्\u200dष",  # a half form with ZWJ
        "ज़ीं",  # nukta, vowel sign, anusvara
        "ന്\u200d",  # an old-style Malayalam chillu
        "ක්\u200dෂ",  # a Sinhala conjunct
        "नमस्ते, आप कैसे हैं?",
        "Tiếng Việt",  # two marks on a letter
        "a\u0300\u0301\u0302\u0303",  # four marks on one letter (kept: MAX_MARKS)
    ],
)
def test_what_scripts_write_is_kept(text: str) -> None:
    assert clean_text(text) == unicodedata.normalize("NFC", text)


@given(st.text(max_size=200))
def test_clean_is_idempotent_and_bounded(text: str) -> None:
    cleaned = clean(text)
    assert clean_text(cleaned.text) == cleaned.text
    marks = 0
    for ch in cleaned.text:
        category = unicodedata.category(ch)
        assert ch in JOINERS or category not in ("Cc", "Cf", "Cs", "Co", "Cn")
        marks = marks + 1 if ch in JOINERS or category[0] == "M" else 0
        assert marks <= MAX_MARKS
    assert len(cleaned.origin) == len(cleaned.text) + 1
