"""Gujarati, Malayalam, Punjabi and Odia: money, dates, the clock, ranges, fractions,
percentages, units, titles, telephone numbers, codes and English words as their
speakers say them; their numbers checked against AI4Bharat's indic-numtowords, the
published source they are taken from; and, for every language with a number reader,
no digit or sign left for the voice, and the reading stable when read again."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st
from indic_numtowords import num2words

from deployments.normaliser.indic_scripts import SCRIPTS
from deployments.normaliser.languages import number_languages
from deployments.normaliser.normaliser import TextNormaliser
from deployments.reading import ReadingOptions

FOUR = ("gu", "ml", "pa", "or")
TABLE = [
    # money: rupees and paise, one rupee, other currencies by name
    ("gu", "₹1,250.50", "એક હજાર બસો પચાસ રૂપિયા પચાસ પૈસા"),
    ("gu", "₹1", "એક રૂપિયો"),
    ("gu", "$20", "વીસ ડૉલર"),
    ("ml", "₹1,250.50", "ആയിരത്തി ഇരുനൂറ്റമ്പത് രൂപ അമ്പത് പൈസ"),
    ("ml", "₹1", "ഒരു രൂപ"),
    ("pa", "₹2,50,000", "ਦੋ ਲੱਖ ਪੰਜਾਹ ਹਜ਼ਾਰ ਰੁਪਏ"),
    ("pa", "₹1", "ਇੱਕ ਰੁਪਇਆ"),
    ("or", "₹1.50", "ଏକ ଟଙ୍କା ପଚାଶ ପଇସା"),
    ("or", "$20", "କୋଡିଏ ଡଲାର"),
    # dates, day first, with month names and years
    ("gu", "15/08/2024", "પંદર ઓગસ્ટ બે હજાર ચોવીસ"),
    ("gu", "15/08/1947", "પંદર ઓગસ્ટ ઓગણીસ સો સુડતાલીસ"),  # years in hundreds
    ("ml", "15/08/2024", "പതിനഞ്ച് ഓഗസ്റ്റ് രണ്ടായിരത്തി ഇരുപത്തിനാല്"),
    ("pa", "06-05", "ਛੇ ਮਈ"),
    ("pa", "15/08/1947", "ਪੰਦਰਾਂ ਅਗਸਤ ਉੱਨੀ ਸੌ ਸਨਤਾਲੀ"),
    ("or", "15/08/1947", "ପନ୍ଦର ଅଗଷ୍ଟ ଊଣେଇଶ ଶହ ସତଚାଳିଶ"),
    # the clock
    ("gu", "10:00", "દસ વાગ્યે"),
    ("gu", "10:30", "દસ વાગીને ત્રીસ મિનિટ"),
    ("ml", "12:10:10", "പന്ത്രണ്ട് മണി പത്ത് മിനിറ്റ് പത്ത് സെക്കൻഡ്"),
    ("pa", "10:30", "ਦਸ ਵੱਜ ਕੇ ਤੀਹ ਮਿੰਟ"),
    ("or", "10:00", "ଦଶଟା"),
    # ranges ("from" a case ending in Odia), percentages, decimals
    ("gu", "10-20", "દસ થી વીસ"),
    ("ml", "10-20", "പത്ത് മുതൽ ഇരുപത് വരെ"),
    ("pa", "10-20", "ਦਸ ਤੋਂ ਵੀਹ"),
    ("or", "10-20", "ଦଶରୁ କୋଡିଏ"),
    ("gu", "45%", "પિસ્તાલીસ ટકા"),
    ("ml", "45%", "നാല്പത്തിയഞ്ച് ശതമാനം"),
    ("pa", "2.5", "ਦੋ ਦਸ਼ਮਲਵ ਪੰਜ"),
    # halves and quarters by name; other fractions "a by b"
    ("gu", "2½ કિલો", "અઢી કિલો"),
    ("gu", "1¾", "પોણા બે"),
    ("ml", "1½", "ഒന്നര"),
    ("ml", "1¼", "ഒന്നേകാൽ"),
    ("ml", "21½", "ഇരുപത്തിയൊന്നര"),
    ("pa", "3½", "ਸਾਢੇ ਤਿੰਨ"),
    ("pa", "12/3", "ਬਾਰਾਂ ਬਟਾ ਤਿੰਨ"),
    ("or", "2½", "ଅଢ଼େଇ"),
    # units, in the language's script (its own abbreviations too)
    ("gu", "5 km", "પાંચ કિલોમીટર"),
    ("gu", "25°C", "પચ્ચીસ ડિગ્રી સેલ્સિયસ"),
    ("ml", "5 കി.മീ.", "അഞ്ച് കിലോമീറ്റർ"),
    ("pa", "20 kg", "ਵੀਹ ਕਿਲੋਗ੍ਰਾਮ"),
    ("or", "5 km", "ପାଞ୍ଚ କିଲୋମିଟର"),
    # titles, telephone numbers in their groups, codes digit by digit, English words
    ("gu", "ડૉ. શાહ", "ડૉક્ટર શાહ"),
    ("pa", "ਡਾ. ਸਿੰਘ", "ਡਾਕਟਰ ਸਿੰਘ"),
    ("ml", "ഡോ. നായർ", "ഡോക്ടർ നായർ"),
    ("or", "ଡା. ମିଶ୍ର", "ଡାକ୍ତର ମିଶ୍ର"),
    ("gu", "98765 43210", "નવ આઠ સાત છ પાંચ, ચાર ત્રણ બે એક શૂન્ય"),
    ("or", "OTP 4821", "ଓ ଟୀ ପୀ ଚାରି ଆଠ ଦୁଇ ଏକ"),
    ("pa", "ਤੁਹਾਡਾ bank order", "ਤੁਹਾਡਾ ਬੈਂਕ ਆਰਡਰ"),
    # ordinals: the language's own ending, or the English way said in English
    ("gu", "21મી સદી", "એકવીસમી સદી"),
    ("gu", "2nd ફ્લોર", "સેકંડ ફ્લોર"),
    ("ml", "1st", "ഫർസ്ട്"),
    ("pa", "5th", "ਫ਼ਿਫ਼ਥ"),
    ("or", "2nd", "ସେକଂଡ୍"),
    # digits of the language's own script
    ("gu", "૧૨", "બાર"),
    ("or", "୨୫", "ପଚିଶ"),
]

_normaliser = TextNormaliser()


def read(text: str, language: str) -> str:
    return _normaliser.normalise(text, ReadingOptions(language, "high")).text


@pytest.mark.parametrize(("language", "text", "expected"), TABLE)
def test_the_four_languages_read_as_their_speakers_say(
    language: str, text: str, expected: str
) -> None:
    assert read(text, language) == expected


# Malayalam as it is written (the numbers' pages of Malayalam Wikipedia, school
# primers): a unit joins the number before it, through യ before a vowel.
MALAYALAM_WRITTEN = {
    23: "ഇരുപത്തിമൂന്ന്", 26: "ഇരുപത്തിയാറ്", 27: "ഇരുപത്തിയേഴ്", 29: "ഇരുപത്തിയൊമ്പത്",
    35: "മുപ്പത്തിയഞ്ച്", 38: "മുപ്പത്തിയെട്ട്", 39: "മുപ്പത്തിയൊമ്പത്", 62: "അറുപത്തിരണ്ട്",
    75: "എഴുപത്തിയഞ്ച്", 91: "തൊണ്ണൂറ്റിയൊന്ന്", 99: "തൊണ്ണൂറ്റിയൊമ്പത്",
    101: "നൂറ്റിയൊന്ന്", 205: "ഇരുനൂറ്റിയഞ്ച്", 1008: "ആയിരത്തിയെട്ട്",
    2026: "രണ്ടായിരത്തി ഇരുപത്തിയാറ്",
}  # fmt: skip
UNIT_SPELLINGS = {"രണ്ടു": "രണ്ട്", "അഞ്ചു": "അഞ്ച്", "ഒന്പത്": "ഒമ്പത്", "ഒൻപതു": "ഒമ്പത്"}
TENS = re.compile("(ത്തി|റ്റി) (ഒന്ന്|രണ്ട്|മൂന്ന്|നാല്|അഞ്ച്|ആറ്|ഏഴ്|എട്ട്|ഒമ്പത്)(?= |$)")
GLIDE = {"അ": "യ", "ആ": "യാ", "എ": "യെ", "ഏ": "യേ", "ഒ": "യൊ"}


def joined_as_written(words: str) -> str:
    """indic-numtowords' Malayalam with every unit joined to the number before it (it
    joins some and leaves a space in others) and nine spelt one way."""
    words = " ".join(UNIT_SPELLINGS.get(w, w) for w in words.split())
    return TENS.sub(lambda m: m[1] + GLIDE.get(m[2][0], m[2][0]) + m[2][1:], words)


@pytest.mark.parametrize(("n", "written"), sorted(MALAYALAM_WRITTEN.items()))
def test_a_malayalam_unit_joins_the_number_before_it(n: int, written: str) -> None:
    assert read(str(n), "ml") == written
    assert joined_as_written(unicodedata.normalize("NFC", num2words(n, lang="ml"))) == written


@pytest.mark.parametrize("language", FOUR)
def test_numbers_are_the_published_source_s_words(language: str) -> None:
    """Every number up to 1,000 and a spread beyond, in ASCII and in the language's
    own digits, and grouped as Indians write them, reads as indic-numtowords spells it
    (in NFC, as everything the normaliser gives the voice; Malayalam's units
    joined as written)."""
    zero = SCRIPTS[language].block + 0x66  # each Brahmic block's digits
    digits = "".join(chr(zero + i) for i in range(10))

    def spelt(n: int) -> str:
        words = unicodedata.normalize("NFC", str(num2words(n, lang=language)).strip())
        return joined_as_written(words) if language == "ml" else words

    # (nine digits or more unbroken are a code, read digit by digit: policy)
    for n in [*range(1001), 1947, 2500, 10**5, 1_23_456, 99_99_999]:
        assert read(str(n), language) == spelt(n), n
        native = str(n).translate(str.maketrans("0123456789", digits))
        assert read(native, language) == spelt(n), n
    assert read("12,34,56,789", language) == spelt(12_34_56_789)


def test_past_a_hundred_crore_the_crores_are_counted() -> None:
    """indic-numtowords stops below 10^9; past it the crores are a number of their own."""
    assert read("1,00,00,00,000", "ml") == "നൂറ് കോടി"
    assert read("2,50,00,00,000", "gu") == "બસો પચાસ કરોડ"


SIGNS = re.compile(r"[0-9₹$€£%½¼¾°]")
amounts = st.integers(0, 10**12).map(str)
written = st.one_of(
    amounts.map(lambda n: f"₹{n}"),
    st.tuples(st.integers(0, 99_999), st.integers(0, 99)).map(lambda p: f"₹{p[0]}.{p[1]:02d}"),
    st.tuples(st.integers(1, 28), st.integers(1, 12), st.integers(1900, 2099)).map(
        lambda d: f"{d[0]:02d}/{d[1]:02d}/{d[2]}"
    ),
    st.tuples(st.integers(0, 23), st.integers(0, 59)).map(lambda t: f"{t[0]}:{t[1]:02d}"),
    st.integers(0, 100).map(lambda n: f"{n}%"),
    st.tuples(st.integers(1, 999), st.sampled_from(["km", "kg", "°C", "ml", "cm"])).map(
        lambda u: f"{u[0]} {u[1]}"
    ),
    st.tuples(st.integers(0, 20), st.sampled_from("½¼¾")).map(lambda f: f"{f[0]}{f[1]}"),
    st.tuples(st.integers(1, 99), st.integers(100, 999)).map(lambda r: f"{r[0]}-{r[1]}"),
)


@given(text=written, language=st.sampled_from(sorted({*number_languages(), *FOUR})))
def test_no_digit_or_sign_reaches_the_voice_and_reading_again_changes_nothing(
    text: str, language: str
) -> None:
    once = read(text, language)
    assert not SIGNS.search(once) and not any(ch.isdigit() for ch in once), (text, once)
    assert read(once, language) == once
