"""English words in sentences of Indian languages: the Hindi lexicon file, and the rule
for every other word in every Brahmic script."""

from __future__ import annotations

import re
import unicodedata

import pytest

from deployments.normaliser.english_words import (
    LEXICON_PATH,
    from_phonemes,
    lexicon,
    native_spelling,
    phonemes,
)
from deployments.normaliser.indic_scripts import SCRIPTS

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


@pytest.mark.parametrize("language", ["bn", "ta", "te", "kn"])
def test_the_loanword_lexicons_are_sorted_lower_case_and_in_their_script(language: str) -> None:
    """The units and currencies of the number-reading languages (languages/indic.py)."""
    path = LEXICON_PATH.with_name(f"{language}_english.tsv")
    rows = [
        line.split("\t")
        for line in path.read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    ]
    english = [row[0] for row in rows]
    assert english == sorted(english) and len(set(english)) == len(english)
    assert all(word == word.lower() and word.isascii() for word in english)
    script = SCRIPTS[language]
    assert all(script.letters.search(form) for row in rows for form in row[1:])
    assert all(len(row) in (2, 3) for row in rows)  # a plural (after numbers) may follow
    assert all(lexicon(language)[w] == native_spelling(w, language) for w in english)


# English words that are also common romanised Hindi (to = तो, is = इस, pet = पेट):
# typed Hindi must keep them, so the lexicon leaves them to the rule. (Where both
# readings are written alike, bus = बस, pass = पास, the lexicon may hold them.)
ROMANISED_HINDI = (
    "the to is in us do so me he hi are main use bad her age man sun mat band "
    "par per bar tab log mere ya na ha ma le de re pe ye hum ham kam ho mile sake "
    "pair jab kar tum ab bat din dil mai hai jo ka ki ke ko se ne ab sab aap ap had bhi "
    "ek kal aaj hain door pure more am teen char pal ban dan pet hat jan das"
).split()


def test_the_lexicon_leaves_romanised_hindi_words_alone() -> None:
    assert not set(ROMANISED_HINDI) & set(lexicon("hi"))


def test_the_lexicon_holds_thousands_of_words() -> None:
    assert len(lexicon("hi")) >= 3000


def test_every_lexicon_word_round_trips_whatever_its_case() -> None:
    for english, devanagari in lexicon("hi").items():
        assert native_spelling(english, "hi") == devanagari
        assert native_spelling(english.capitalize(), "hi") == devanagari


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
        ("burned", "बर्न्ड"),  # a nasal after a consonant is a letter, not anusvara
        ("wanted", "वॉंटेड"),  # endings said as spelt: -ed, -age, -ment
        ("village", "विलेज"),
        ("assignment", "असाइनमेंट"),
    ],
)
def test_words_outside_the_lexicon_are_written_from_their_sounds(word: str, expected: str) -> None:
    assert from_phonemes(phonemes(word), word) == expected


@pytest.mark.parametrize("word", ["strengths", "xylophone", "quixotic", "rhythm", "Zanzibar", "a"])
def test_no_latin_letter_is_left_for_any_word(word: str) -> None:
    assert DEVANAGARI_ONLY.match(native_spelling(word, "hi"))


# Common English loans as each language's press writes them (the rule gives these).
IN_EACH_SCRIPT = {
    "mr": {"bank": "बॅंक", "order": "ऑर्डर", "app": "ॲप"},
    "bn": {"bank": "ব্যাংক", "online": "অনলাইন", "phone": "ফোন", "app": "অ্যাপ", "computer": "কম্প্যূটর"},
    "as": {"train": "ট্ৰেন", "online": "অনলাইন"},
    "pa": {"bank": "ਬੈਂਕ", "order": "ਆਰਡਰ", "number": "ਨੰਬਰ", "station": "ਸਟੇਸ਼ਨ", "phone": "ਫ਼ੋਨ"},
    "gu": {"bank": "બેંક", "order": "ઑર્ડર", "online": "ઑનલાઇન", "phone": "ફોન", "number": "નંબર"},
    "or": {"order": "ଅର୍ଡର୍", "phone": "ଫୋନ୍", "online": "ଅନଲାଇନ୍"},
    "ta": {"bank": "பேங்க்", "order": "ஆர்டர்", "online": "ஆன்லைன்", "number": "நம்பர்",
           "phone": "ஃபோன்", "customer": "கஸ்டமர்", "singing": "ஸிங்கிங்"},
    "te": {"bank": "బ్యాంక్", "order": "ఆర్డర్", "app": "యాప్", "phone": "ఫోన్",
           "number": "నంబర్", "station": "స్టేషన్", "computer": "కంప్యూటర్"},
    "kn": {"bank": "ಬ್ಯಾಂಕ್", "order": "ಆರ್ಡರ್", "phone": "ಫೋನ್", "number": "ನಂಬರ್",
           "download": "ಡೌನ್ಲೋಡ್"},
    "ml": {"bank": "ബാങ്ക്", "order": "ഓർഡർ", "online": "ഓൻലൈൻ", "train": "ട്രേൻ",
           "computer": "കമ്പ്യൂടർ"},
}  # fmt: skip


@pytest.mark.parametrize(
    ("language", "word", "expected"),
    [
        (lang, word, spelt)
        for lang, words in IN_EACH_SCRIPT.items()
        for word, spelt in words.items()
    ],
)
def test_each_script_writes_english_words_its_own_way(
    language: str, word: str, expected: str
) -> None:
    assert native_spelling(word, language) == expected


WORDS = "strengths xylophone rhythm Zanzibar boy switch video bottle awesome queue a".split()


@pytest.mark.parametrize("language", sorted(SCRIPTS))
def test_every_script_writes_every_word_in_its_own_letters(language: str) -> None:
    """Only the script's own block (and the joiner-free virama sequences it makes):
    no Latin letter, no letter of another script, no unassigned code point."""
    block = SCRIPTS[language].block
    for word in WORDS:
        spelt = native_spelling(word, language)
        assert spelt, word
        for ch in spelt.replace(" ", ""):
            assert block <= ord(ch) < block + 0x80, (word, spelt, ch)
            assert unicodedata.name(ch, ""), (word, spelt, hex(ord(ch)))


@pytest.mark.parametrize("language", sorted(SCRIPTS))
def test_initialisms_are_spelled_letter_by_letter(language: str) -> None:
    assert "xkq" not in lexicon(language)
    spelt = native_spelling("XKQ", language)
    assert spelt.split() == [native_spelling(letter, language) for letter in "XKQ"]


def test_languages_without_a_brahmic_script_keep_latin_words() -> None:
    assert native_spelling("order", "en") == "order"
    assert native_spelling("order", "ur") == "order"
