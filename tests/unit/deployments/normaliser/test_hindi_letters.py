"""Indian names typed in Latin letters, read as Hindi, in each Indian script."""

from __future__ import annotations

import pytest

from deployments.normaliser.english_words import from_phonemes, native_spelling, phonemes
from deployments.normaliser.hindi_letters import hindi_in_script
from deployments.normaliser.indic_scripts import SCRIPTS

# What each language's own newspapers write for these names.
NAMES = [
    ("mr", "Mayank", "मयंक"),
    ("bn", "Anjali", "অঞ্জলি"),  # the nasal before a stop joins the cluster
    ("bn", "Aishwarya", "ঐশ্বর্যা"),  # Hindi's व is Bengali's ব
    ("bn", "Vivek", "বিবেক"),
    ("as", "Rohit", "ৰোহিত"),
    ("ta", "Kapil", "கபில்"),  # a pulli on the last consonant
    ("ta", "Deepak", "தீபக்"),  # one letter for d and t, p and b, k and g
    ("ta", "Nikhil", "நிகில்"),  # ந at the start
    ("ta", "Priyanka", "ப்ரியங்கா"),
    ("ta", "Krishna", "கிருஷ்ணா"),
    ("te", "Kapil", "కపిల్"),
    ("te", "Mayank", "మయంక్"),  # Telugu keeps the anusvara
    ("kn", "Rohit", "ರೋಹಿತ್"),
    ("kn", "Aishwarya", "ಐಶ್ವರ್ಯಾ"),
    ("gu", "Priyanka", "પ્રિયંકા"),
    ("pa", "Anjali", "ਅੰਜਲਿ"),  # tippi after a short vowel
    ("pa", "Harsh", "ਹਰਸ਼"),  # ष as ਸ਼, side by side
    ("ml", "Kapil", "കപിൽ"),  # a chillu at the end
    ("ml", "Anjali", "അഞ്ജലി"),
    ("or", "Sanjay", "ସଂଜୟ୍"),
]


@pytest.mark.parametrize(("language", "name", "expected"), NAMES)
def test_an_indian_name_is_written_as_the_language_writes_it(
    language: str, name: str, expected: str
) -> None:
    assert native_spelling(name, language) == expected


@pytest.mark.parametrize("language", ["ta", "te", "bn"])
def test_english_words_keep_their_english_reading(language: str) -> None:
    """A capitalised English word (a sentence's first) is not taken for a name."""
    assert native_spelling("Order", language) == native_spelling("order", language)
    assert native_spelling("Payment", language) == native_spelling("payment", language)


def test_lower_case_romanised_words_are_not_hindi_outside_devanagari() -> None:
    """``aap`` in Tamil text is not Hindi's आप (typed Tamil is not Hindi)."""
    assert native_spelling("aap", "hi") == "आप"
    assert native_spelling("aap", "ta") == from_phonemes(phonemes("aap"), "aap", SCRIPTS["ta"])


def test_a_letter_a_script_lacks_gives_none() -> None:
    """ॠ has no place in Tamil: the caller falls back to the word's English sounds."""
    assert hindi_in_script("ॠ", SCRIPTS["ta"]) is None
    assert hindi_in_script("कपिल", SCRIPTS["hi"]) == "कपिल"
