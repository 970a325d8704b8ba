"""English words in Hindi sentences: the lexicon file, and the rule for every other word."""

from __future__ import annotations

import re

import pytest

from deployments.normaliser.english_words import LEXICON_PATH, lexicon, to_devanagari

DEVANAGARI_ONLY = re.compile(r"^[\u0900-\u097f ]+$")


def test_the_lexicon_is_sorted_lower_case_devanagari_and_unique() -> None:
    rows = [
        line.split("\t")
        for line in LEXICON_PATH.read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    ]
    english = [row[0] for row in rows]
    assert all(len(row) == 2 for row in rows)
    assert english == sorted(english) and len(set(english)) == len(english)
    assert all(word == word.lower() and word.isascii() for word in english)
    assert all(DEVANAGARI_ONLY.match(row[1]) for row in rows), [
        r for r in rows if not DEVANAGARI_ONLY.match(r[1])
    ]
    assert len(rows) >= 250


def test_every_lexicon_word_round_trips_whatever_its_case() -> None:
    for english, devanagari in lexicon().items():
        assert to_devanagari(english) == devanagari
        assert to_devanagari(english.capitalize()) == devanagari


@pytest.mark.parametrize(
    ("word", "expected"),
    [  # words not in the lexicon, by rule from their sounds
        ("cancel", "कैंसल"),
        ("refund", "रिफ़ंड"),
        ("computer", "कंप्यूटर"),
        ("online", "ऑनलाइन"),
        ("download", "डाउनलोड"),
        ("thanks", "थैंक्स"),
        ("return", "रिटर्न"),
        ("family", "फ़ैमिली"),
        ("singing", "सिंगिंग"),  # a vowel after ंग is a sign
        ("burned", "बर्नड"),  # a nasal after a consonant is a letter, not anusvara
        ("wanted", "वॉंटेड"),  # endings said as spelt: -ed, -age, -ment
        ("village", "विलेज"),
        ("assignment", "असाइनमेंट"),
    ],
)
def test_words_outside_the_lexicon_are_written_from_their_sounds(word: str, expected: str) -> None:
    from deployments.normaliser.english_words import from_phonemes, phonemes

    assert from_phonemes(phonemes(word), word) == expected


@pytest.mark.parametrize("word", ["strengths", "xylophone", "quixotic", "rhythm", "Zanzibar", "a"])
def test_no_latin_letter_is_left_for_any_word(word: str) -> None:
    assert DEVANAGARI_ONLY.match(to_devanagari(word))
