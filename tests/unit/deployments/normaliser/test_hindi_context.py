"""Hindi that the words around a number decide (languages/hindi_context.py and the
Hindi reader's sums): what a caller of an IVR or a voice agent hears, written by
hand as a Hindi speaker says it aloud, each class with a sentence where the same
digits mean something else and are read so."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deployments.normaliser.languages.hindi_context import WEEKDAYS, roman
from deployments.normaliser.normaliser import TextNormaliser
from deployments.reading import ReadingOptions

ROUND_FIVE = [
    # two clock times joined by a dash are a range; 24-hour times say the day's part
    ("दुकान 10:00-18:00 तक खुली है।", "दुकान सुबह दस बजे से शाम छह बजे तक खुली है।"),
    ("09:00-17:00", "सुबह नौ बजे से शाम पाँच बजे"),
    ("दुकान 9.30am-6pm खुली है।", "दुकान सुबह साढ़े नौ बजे से शाम छह बजे खुली है।"),
    ("10-11am के बीच", "सुबह दस बजे से ग्यारह बजे के बीच"),
    ("11-1pm", "सुबह ग्यारह बजे से दोपहर एक बजे"),
    ("शाम 5:00-7:00 बजे", "शाम पाँच बजे से सात बजे"),
    ("ट्रेन 23:45 बजे छूटेगी।", "ट्रेन रात पौने बारह बजे छूटेगी।"),
    ("शाम 18:30 बजे", "शाम साढ़े छह बजे"),
    ("00:30 बजे", "रात साढ़े बारह बजे"),
    ("06:30 बजे", "सुबह साढ़े छह बजे"),
    ("10:30 बजे", "साढ़े दस बजे"),  # the 12-hour clock says no part of the day
    ("10-11 बजे", "दस से ग्यारह बजे"),
    ("2.5-3.5 किलो", "ढाई से साढ़े तीन किलो"),  # decimals, not times
    # paise without rupees
    ("₹0.50 का सिक्का", "पचास पैसे का सिक्का"),
    ("Rs 0.75", "पचहत्तर पैसे"),
    ("₹1.50", "एक रुपया पचास पैसे"),
    # decimal percentages
    ("ब्याज दर 7.25% है।", "ब्याज दर सात दशमलव दो पाँच प्रतिशत है।"),
    ("5.5% की बढ़त", "साढ़े पाँच प्रतिशत की बढ़त"),
    # financial years and sessions: the second year follows the first
    ("वित्त वर्ष 2023-24 में", "वित्त वर्ष दो हज़ार तेईस-चौबीस में"),
    ("FY 2024-25", "एफ़ वाई दो हज़ार चौबीस-पच्चीस"),
    ("FY24", "एफ़ वाई चौबीस"),
    ("सत्र 1999-00", "सत्र उन्नीस सौ निन्यानवे-दो हज़ार"),
    ("2019-22 के बीच", "दो हज़ार उन्नीस से बाईस के बीच"),  # a range
    # trains' classes
    ("3AC का टिकट", "थर्ड एसी का टिकट"),
    ("ट्रेन में 2A की बर्थ", "ट्रेन में सेकंड एसी की बर्थ"),
    ("SL कोच", "स्लीपर कोच"),
    ("CC में सीट", "चेयर कार में सीट"),
    ("फ्लैट 2A में", "फ्लैट टू ए में"),  # no train: a flat's number
    # flight numbers, digit by digit
    ("उड़ान AI 302 दिल्ली जाएगी।", "उड़ान ए आई तीन शून्य दो दिल्ली जाएगी।"),
    ("6E 2134 गेट 5 से", "सिक्स ई दो एक तीन चार गेट पाँच से"),
    ("UK 2024", "यू के दो हज़ार चौबीस"),  # no flight
    # masked numbers: a few hidden digits, then the ones shown
    ("खाता XXXX1234 से", "खाता एक्स एक्स एक्स एक्स, एक दो तीन चार से"),
    ("कार्ड ****4321", "कार्ड एक्स एक्स एक्स एक्स, चार तीन दो एक"),
    ("XXXX XXXX XXXX 1234", "एक्स एक्स एक्स एक्स, एक दो तीन चार"),
    # cricket: a score is runs for wickets, an over's balls are no decimal
    ("भारत ने 245/6 रन बनाए।", "भारत ने छह विकेट पर दो सौ पैंतालीस रन बनाए।"),
    ("स्कोर 120/3 (15.2 ओवर)", "स्कोर एक सौ बीस रन पर तीन विकेट (पंद्रह पॉइंट दो ओवर)"),
    ("4.5 ओवर में", "चार पॉइंट पाँच ओवर में"),
    ("3/4 हिस्सा", "तीन चौथाई हिस्सा"),  # no cricket: a fraction
    # lakhs and crores with decimals, as the sum they make
    ("₹3.2 करोड़ का घोटाला", "तीन करोड़ बीस लाख रुपये का घोटाला"),
    ("12.34 करोड़", "बारह करोड़ चौंतीस लाख"),
    ("3.2 लाख", "तीन लाख बीस हज़ार"),
    ("1.25 लाख", "सवा लाख"),
    ("₹2.5 लाख", "ढाई लाख रुपये"),
    ("2.75 करोड़ लोग", "पौने तीन करोड़ लोग"),
    ("2.4k", "दो हज़ार चार सौ"),
    ("1¼ किलो", "सवा किलो"),
    # English ordinals: Hindi before a Hindi noun, in its gender; English otherwise
    ("21st सदी", "इक्कीसवीं सदी"),
    ("5th दिन को", "पाँचवें दिन को"),
    ("5th दिन", "पाँचवाँ दिन"),
    ("2nd फ्लोर", "सेकंड फ्लोर"),
    ("1st", "फ़र्स्ट"),
    # Roman numbers after a class, chapter or part
    ("कक्षा VIII", "कक्षा आठ"),
    ("कक्षा XII के छात्र", "कक्षा बारह के छात्र"),
    ("अध्याय IV", "अध्याय चार"),
    # units voice agents say
    ("100 Mbps इंटरनेट", "एक सौ एमबीपीएस इंटरनेट"),
    ("1200 sq ft का फ्लैट", "बारह सौ वर्ग फ़ुट का फ्लैट"),
    ("98.6°F बुखार", "अट्ठानवे दशमलव छह डिग्री फ़ारेनहाइट बुखार"),
    # weekday ranges
    ("सोमवार-शुक्रवार", "सोमवार से शुक्रवार"),
    ("सोम-शुक्र 10 बजे से", "सोमवार से शुक्रवार दस बजे से"),
    ("Mon-Fri", "सोमवार से शुक्रवार"),
]

_normaliser = TextNormaliser()


@pytest.mark.parametrize(("written", "said"), ROUND_FIVE)
def test_hindi_reads_what_the_context_says(written: str, said: str) -> None:
    assert _normaliser.normalise(written, ReadingOptions("hi", "high")).text == said


def test_english_says_cents_alone_below_a_dollar() -> None:
    english = ReadingOptions("en", "high")
    assert _normaliser.normalise("$0.99", english).text == "ninety nine cents"


@pytest.mark.parametrize(
    ("numeral", "value"), [("I", 1), ("IV", 4), ("VIII", 8), ("IX", 9), ("XII", 12), ("XIX", 19)]
)
def test_roman_numbers(numeral: str, value: int) -> None:
    assert roman(numeral) == value


SIGNS = re.compile(r"[0-9₹%/:*]")
hours, minutes = st.integers(0, 23), st.integers(0, 59)
clock = st.tuples(hours, minutes).map(lambda t: f"{t[0]:02d}:{t[1]:02d}")
twelve = st.tuples(st.integers(1, 12), st.sampled_from(["am", "pm", " AM", " PM"]))
situations = st.one_of(
    st.tuples(clock, clock).map(lambda c: f"दुकान {c[0]}-{c[1]} तक खुली है।"),
    st.tuples(twelve, twelve).map(lambda t: f"{t[0][0]}{t[0][1]}-{t[1][0]}{t[1][1]}"),
    clock.map(lambda c: f"ट्रेन {c} बजे छूटेगी।"),
    st.integers(1990, 2040).map(lambda y: f"वित्त वर्ष {y}-{(y + 1) % 100:02d} में"),
    st.tuples(st.integers(2, 12), st.integers(0, 9999)).map(
        lambda m: f"खाता {'X' * m[0]}{m[1]:04d} से"
    ),
    st.tuples(st.integers(0, 450), st.integers(0, 10), st.integers(0, 49), st.integers(1, 5)).map(
        lambda s: f"भारत ने {s[0]}/{s[1]} रन बनाए ({s[2]}.{s[3]} ओवर)"
    ),
    st.tuples(st.integers(0, 999), st.integers(1, 99), st.sampled_from(["लाख", "करोड़"])).map(
        lambda a: f"₹{a[0]}.{a[1]} {a[2]} का बजट"
    ),
    st.tuples(st.integers(1, 120), st.sampled_from(["st", "nd", "rd", "th"])).map(
        lambda o: f"{o[0]}{o[1]} सदी में"
    ),
    st.integers(1, 39).map(
        lambda n: (
            "कक्षा "
            + "X" * (n // 10)
            + ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"][n % 10]
        )
    ),
    st.tuples(st.sampled_from(sorted(WEEKDAYS)), st.sampled_from(sorted(WEEKDAYS))).map(
        lambda d: f"{d[0]}-{d[1]} दस बजे से"
    ),
)


@given(text=situations)
def test_no_digit_or_sign_reaches_the_voice_and_reading_again_changes_nothing(text: str) -> None:
    hindi = ReadingOptions("hi", "high")
    once = _normaliser.normalise(text, hindi).text
    assert not SIGNS.search(once), (text, once)
    assert _normaliser.normalise(once, hindi).text == once
