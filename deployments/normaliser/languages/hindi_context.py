"""Hindi readings that the words around a number decide, as an IVR's or a voice
agent's listener hears them said:

- clock ranges, ``10:00-18:00``, ``9.30am-6pm`` -> सुबह दस बजे से शाम छह बजे, and
  24-hour times with the part of the day said before them (``23:45`` -> रात पौने
  बारह बजे; ``06:30`` with its leading zero is the 24-hour clock too);
- financial years and sessions, ``2023-24`` -> दो हज़ार तेईस-चौबीस (the second year
  follows the first: any other pair is a range), ``FY24`` -> एफ़ वाई चौबीस;
- Indian Railways' classes, ``3AC`` -> थर्ड एसी, ``SL`` -> स्लीपर (the short ones
  only where the sentence is about a train);
- flight numbers, ``AI 302`` -> ए आई तीन शून्य दो (where the sentence is about a
  flight, or the airline's code has a digit: ``6E 2134``);
- masked account and card numbers, ``XXXX1234``, ``****4321`` -> एक्स एक्स एक्स एक्स,
  एक दो तीन चार (each hidden digit an एक्स, however it is masked);
- cricket scores and overs, where the sentence is about cricket: ``245/6 रन`` -> छह
  विकेट पर दो सौ पैंतालीस रन, ``120/3`` -> एक सौ बीस रन पर तीन विकेट, ``15.2
  ओवर`` -> पंद्रह पॉइंट दो ओवर (an over has six balls: .5 is no half);
- Roman numbers after a class, chapter or part, ``कक्षा VIII`` -> कक्षा आठ;
- an ordinal written the English way before a Hindi noun is said in Hindi, in the
  noun's gender, ``21st सदी`` -> इक्कीसवीं सदी, ``5th दिन को`` -> पाँचवें दिन को (before
  an English word, or alone, it stays English: ``2nd फ्लोर`` -> सेकंड फ्लोर);
- weekday ranges, ``सोम-शुक्र``, ``Mon-Fri`` -> सोमवार से शुक्रवार.

Each is a rule over the segment's text, run before the rules that would read the
same digits as a plain number, a fraction or a letter and a digit.
"""

from __future__ import annotations

import re
from typing import Protocol

from deployments.normaliser.languages.base import Rule, alternatives

PERIODS = r"सुबह|दोपहर|शाम|रात"
PERIOD_WORDS = PERIODS.split("|")


class SaysHindi(Protocol):
    """What these readings ask of the Hindi reader."""

    to: str

    def cardinal(self, n: int) -> str: ...

    def digits(self, text: str) -> str: ...

    def spelled(self, letters: str) -> str: ...

    def letter_digit(self, digit: str) -> str: ...

    def year(self, n: int) -> str: ...

    def time(self, hour: int, minute: int) -> str: ...

    def clock(self, hour: int, minute: int, pm: bool) -> str: ...

    def ordinal(self, n: int, suffix: str) -> str: ...


def about(words: str) -> re.Pattern[str]:
    """A sentence that mentions one of ``words`` (a regex alternation)."""
    return re.compile(rf"(?<![\w\u0900-\u097F])(?:{words})(?![\w\u0900-\u097F])", re.I)


# -- the clock -------------------------------------------------------------------------

# One side of a clock range: an hour, its minutes after ':' (or '.', with AM/PM), AM/PM.
_SIDE = r"([01]?\d|2[0-3])(?:([:.])([0-5]\d))?(?:\s?([AaPp])\.?\s?[Mm]\.?(?![A-Za-z]))?"
CLOCK_RANGE = re.compile(
    rf"(?:({PERIODS})\s+)?(?<![\d.:,/]){_SIDE}\s?[-–]\s?{_SIDE}(?![\d:.]\d|\d)(?:\s?बजे)?"
)
TWENTY_FOUR = re.compile(
    rf"(?:(?:{PERIODS})\s+)?(?<![\d.:,])(1[3-9]|2[0-3]|0\d)\s?:\s?([0-5]\d)(?![\d:])(?:\s?बजे)?"
)


def _clock_rules(reader: SaysHindi) -> list[Rule]:
    def side(hour: int, minute: int, meridiem: str | None, twenty_four: bool) -> str:
        if meridiem:
            return reader.clock(hour, minute, meridiem == "p")
        if twenty_four:
            return reader.clock(hour, minute, hour >= 12)
        return reader.time(hour, minute)

    def clock_range(m: re.Match[str]) -> str:
        period, first, second = m[1], m.groups()[1:5], m.groups()[5:9]
        if not (first[2] or second[2] or first[3] or second[3]):
            return m[0]  # 10-11 बजे: a range of numbers (the range rule reads it)
        sides = []
        for hour, separator, minutes, meridiem in (first, second):
            if (separator == "." and not meridiem) or (int(hour) > 12 and meridiem):
                return m[0]  # 2.30-3.45: decimals; 14pm: no time
            sides.append((int(hour), int(minutes or 0), (meridiem or "").lower()))
        written_24 = any(h > 12 or h == 0 for h, _, _ in sides) or any(
            len(hour) == 2 and hour.startswith("0") for hour, *_ in (first, second)
        )
        (h1, m1, a1), (h2, m2, a2) = sides
        if bool(a1) != bool(a2) and not written_24:  # 10-11am, 9-5pm: the other's AM/PM,
            known = a1 or a2  # unless it puts the start after the end (11-1pm)
            start, end = (
                h1 % 12 + (12 if known == "p" else 0),
                h2 % 12 + (12 if known == "p" else 0),
            )
            a1, a2 = (known, known) if start <= end else ("a" if known == "p" else "p", known)
        first_said, second_said = side(h1, m1, a1, written_24), side(h2, m2, a2, written_24)
        said_before = first_said.split()[0]
        if said_before in PERIOD_WORDS and second_said.startswith(f"{said_before} "):
            second_said = second_said.removeprefix(f"{said_before} ")  # सुबह दस से ग्यारह
        said = f"{first_said} {reader.to} {second_said}"
        return said if (a1 or written_24) or not period else f"{period} {said}"

    return [
        Rule(CLOCK_RANGE, clock_range),
        Rule(TWENTY_FOUR, lambda m: reader.clock(int(m[1]), int(m[2]), int(m[1]) >= 12)),
    ]


# -- years and codes -------------------------------------------------------------------

FINANCIAL_YEAR = re.compile(r"(?<![\w.,/-])((?:19|20)\d\d)\s?[-–]\s?(\d\d)(?![\w.,/-])")
FY = re.compile(r"(?<![A-Za-z])FY\s?'?(\d\d)(?:\s?[-–]\s?(\d\d))?(?![\d\w])")

RAIL_CLASSES = {
    "1A": "फ़र्स्ट एसी",
    "1AC": "फ़र्स्ट एसी",
    "2A": "सेकंड एसी",
    "2AC": "सेकंड एसी",
    "3A": "थर्ड एसी",
    "3AC": "थर्ड एसी",
    "3E": "थर्ड एसी इकॉनमी",
    "EC": "एग्ज़ीक्यूटिव चेयर कार",
    "CC": "चेयर कार",
    "SL": "स्लीपर",
    "2S": "सेकंड सिटिंग",
    "FC": "फ़र्स्ट क्लास",
}
RAIL_ALWAYS = {"1AC", "2AC", "3AC"}  # nothing else is written so
RAIL_CLASS = re.compile(rf"(?<![\w/@.])({alternatives(RAIL_CLASSES)})(?![\w/@])")
ABOUT_TRAINS = about(
    r"ट्रेन|ट्रेनों|रेल|रेलवे|रेलगाड़ी|कोच|बर्थ|सीट|सीटें|टिकट|टिकटें|PNR|पीएनआर|आरक्षण|"
    r"रिज़र्वेशन|रिजर्वेशन|डिब्बा|डिब्बे|श्रेणी|क्लास|IRCTC|आईआरसीटीसी|एक्सप्रेस|राजधानी|"
    r"शताब्दी|वंदे भारत|दुरंतो|वेटिंग|RAC|कन्फ़र्म|कन्फर्म|train|coach|berth|ticket"
)

AIRLINES = (
    "AI IX 6E UK SG G8 QP I5 9I S5 2T EK QR EY SQ BA LH TG AK FZ G9 WY UL MH KU GF J9 AF KL TK CX"
).split()
FLIGHT = re.compile(rf"(?<![\w/@.])({alternatives(AIRLINES)})[\s-]?(\d{{2,4}})(?![\w/@]|[.,]\d)")
ABOUT_FLIGHTS = about(
    r"उड़ान|उड़ानें|उडान|फ़्लाइट|फ्लाइट|flight|विमान|एयरलाइन|एयरलाइंस|बोर्डिंग|गेट|टर्मिनल|"
    r"हवाई|एयरपोर्ट|इंडिगो|IndiGo|एयर इंडिया|Air India|विस्तारा|स्पाइसजेट|SpiceJet|अकासा"
)

# A mask is said as at most four hidden digits: a listener hears that digits are
# hidden, then the ones shown; twelve एक्स of a card number tell nothing more.
MASK_SAID = 4
MASKED = re.compile(r"(?<![\w*•●])((?:[Xx*•●]{2,}[\s-]?)+)(\d{2,6})(?![\w])")


def _code_rules(reader: SaysHindi) -> list[Rule]:
    def financial_year(m: re.Match[str]) -> str:
        first, second = int(m[1]), int(m[2])
        if second != (first + 1) % 100:
            return m[0]
        # 1999-00: the second year is दो हज़ार, not शून्य
        return (
            f"{reader.year(first)}-{reader.cardinal(second) if second else reader.year(first + 1)}"
        )

    def fy(m: re.Match[str]) -> str:
        said = f"{reader.spelled('FY')} {reader.cardinal(int(m[1]))}"
        return said + (f"-{reader.cardinal(int(m[2]))}" if m[2] else "")

    def rail(m: re.Match[str]) -> str:
        if m[1] in RAIL_ALWAYS or ABOUT_TRAINS.search(m.string):
            return RAIL_CLASSES[m[1]]
        return m[0]

    def flight(m: re.Match[str]) -> str:
        code = m[1]
        if not (ABOUT_FLIGHTS.search(m.string) or any(c.isdigit() for c in code)):
            return m[0]
        letters = " ".join(
            reader.letter_digit(c) if c.isdigit() else reader.spelled(c) for c in code
        )
        return f"{letters} {reader.digits(m[2])}"

    def masked(m: re.Match[str]) -> str:
        hidden = sum(not c.isspace() and c != "-" for c in m[1])
        return f"{' '.join(['एक्स'] * min(hidden, MASK_SAID))}, {reader.digits(m[2])}"

    return [
        Rule(MASKED, masked),
        Rule(FY, fy),
        Rule(FINANCIAL_YEAR, financial_year),
        Rule(RAIL_CLASS, rail),
        Rule(FLIGHT, flight),
    ]


# -- cricket ---------------------------------------------------------------------------

# (not मैच or टेस्ट: a match's date, 12/3, and an exam's marks are no score)
ABOUT_CRICKET = about(
    r"रन|रनों|विकेट|ओवर|ओवरों|स्कोर|बल्लेबाज़ी|बल्लेबाजी|गेंदबाज़ी|गेंदबाजी|पारी|क्रिकेट|"
    r"वनडे|टी20|टी-20|T20|IPL|आईपीएल|ऑल आउट"
)
SCORE = re.compile(
    r"(?<![\w/.,])(\d{1,3})\s?/\s?(\d{1,2})(?![\w/]|[.,]\d)(\s+रन(?![\w\u0900-\u097F]))?"
)
OVERS = re.compile(r"(?<![\w.])(\d{1,2})\.([1-5])\s?(ओवर(?:ों)?)(?![\w\u0900-\u097F])")


def _cricket_rules(reader: SaysHindi) -> list[Rule]:
    def score(m: re.Match[str]) -> str:
        runs, wickets = int(m[1]), int(m[2])
        if wickets > 10 or not ABOUT_CRICKET.search(m.string):
            return m[0]
        if m[3]:  # 245/6 रन बनाए: छह विकेट पर दो सौ पैंतालीस रन
            return f"{reader.cardinal(wickets)} विकेट पर {reader.cardinal(runs)} रन"
        return f"{reader.cardinal(runs)} रन पर {reader.cardinal(wickets)} विकेट"

    return [
        Rule(SCORE, score),
        Rule(
            OVERS,
            lambda m: f"{reader.cardinal(int(m[1]))} पॉइंट {reader.cardinal(int(m[2]))} {m[3]}",
        ),
    ]


# -- words -----------------------------------------------------------------------------

PARTS = (
    r"कक्षा|क्लास|अध्याय|भाग|खंड|चरण|फेज़|फेज|सेमेस्टर|सत्र|ग्रेड|Class|Chapter|Part|Phase|"
    r"Std\.?|Standard|Semester|Grade"
)
ROMAN_VALUES = {"I": 1, "V": 5, "X": 10}
ROMAN_AFTER_PART = re.compile(
    rf"(?<![\w\u0900-\u097F])({PARTS})\s+(?=[IVX])(X{{0,3}}(?:IX|IV|V?I{{0,3}}))(?![\w])"
)

WEEKDAYS = {
    "सोमवार": "सोमवार", "सोम": "सोमवार", "Monday": "सोमवार", "Mon": "सोमवार",
    "मंगलवार": "मंगलवार", "मंगल": "मंगलवार", "Tuesday": "मंगलवार", "Tue": "मंगलवार",
    "Tues": "मंगलवार",
    "बुधवार": "बुधवार", "बुध": "बुधवार", "Wednesday": "बुधवार", "Wed": "बुधवार",
    "गुरुवार": "गुरुवार", "गुरु": "गुरुवार", "बृहस्पतिवार": "बृहस्पतिवार",
    "Thursday": "गुरुवार", "Thu": "गुरुवार", "Thur": "गुरुवार", "Thurs": "गुरुवार",
    "शुक्रवार": "शुक्रवार", "शुक्र": "शुक्रवार", "Friday": "शुक्रवार", "Fri": "शुक्रवार",
    "शनिवार": "शनिवार", "शनि": "शनिवार", "Saturday": "शनिवार", "Sat": "शनिवार",
    "रविवार": "रविवार", "रवि": "रविवार", "इतवार": "इतवार", "Sunday": "रविवार", "Sun": "रविवार",
}  # fmt: skip
_DAY = alternatives(WEEKDAYS)
DAY_RANGE = re.compile(
    rf"(?<![\w\u0900-\u097F])({_DAY})\.?\s?[-–]\s?({_DAY})\.?(?![\w\u0900-\u097F])"
)


FEMININE_COUNTED = (
    "सदी शताब्दी कक्षा मंज़िल मंजिल वर्षगाँठ वर्षगांठ सालगिरह जयंती पुण्यतिथि बार पीढ़ी किस्त "
    "क़िस्त पंक्ति लोकसभा विधानसभा बटालियन"
).split()
MASCULINE_COUNTED = (
    "स्थान दिन साल वर्ष अध्याय संस्करण भाग चरण दौर पायदान महीना सप्ताह हफ़्ता हफ्ता दशक खंड"
).split()
ORDINAL_BEFORE_NOUN = re.compile(
    rf"(?<![\w])(\d+)(?:st|nd|rd|th)\s+({alternatives([*FEMININE_COUNTED, *MASCULINE_COUNTED])})"
    r"(?![\w\u0900-\u097F])",
    re.I,
)
POSTPOSITION_NEXT = re.compile(r"\s+(?:में|से|को|पर|का|की|के|तक|ने)(?![\w\u0900-\u097F])")


def roman(numeral: str) -> int:
    values = [ROMAN_VALUES[c] for c in numeral]
    return sum(-v if v < next_ else v for v, next_ in zip(values, [*values[1:], 0], strict=True))


def _word_rules(reader: SaysHindi) -> list[Rule]:
    def ordinal(m: re.Match[str]) -> str:
        if m[2] in FEMININE_COUNTED:
            suffix = "वीं"
        else:  # पाँचवाँ दिन; before a postposition पाँचवें दिन को
            suffix = "वें" if POSTPOSITION_NEXT.match(m.string, m.end()) else "वाँ"
        return f"{reader.ordinal(int(m[1]), suffix)} {m[2]}"

    return [
        Rule(ORDINAL_BEFORE_NOUN, ordinal),
        Rule(ROMAN_AFTER_PART, lambda m: f"{m[1]} {reader.cardinal(roman(m[2]))}"),
        Rule(DAY_RANGE, lambda m: f"{WEEKDAYS[m[1]]} {reader.to} {WEEKDAYS[m[2]]}"),
    ]


def context_rules(reader: SaysHindi) -> list[Rule]:
    """Every reading above, in ``reader``'s words, in the order they must run."""
    return [
        *_code_rules(reader),
        *_cricket_rules(reader),
        *_clock_rules(reader),
        *_word_rules(reader),
    ]
