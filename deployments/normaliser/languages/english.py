"""English as it is read in India: lakh and crore for Indian-grouped numbers,
western grouping otherwise; money in rupees, dollars and the rest."""

from __future__ import annotations

import re

from num2words import num2words

from deployments.normaliser.languages.base import Rule
from deployments.normaliser.languages.currencies import Currency
from deployments.normaliser.languages.in_full import InFullReader
from deployments.normaliser.languages.units import Unit

MONTHS = tuple(
    "January February March April May June July August September October November December".split()
)
ABBREVIATIONS = {
    "Dr.": "Doctor",
    "Mr.": "Mister",
    "Mrs.": "Missus",
    "Ms.": "Miz",
    "Prof.": "Professor",
    "etc.": "et cetera",
    "vs.": "versus",
    "Jr.": "Junior",
    "Sr.": "Senior",
    "approx.": "approximately",
    "Er.": "Engineer",
    "Adv.": "Advocate",
    "Smt.": "Shrimati",
    "Shri.": "Shri",
    "Lt.": "Lieutenant",
    "Col.": "Colonel",
    "Capt.": "Captain",
    "Maj.": "Major",
    "Gen.": "General",
}
FRACTIONS = {
    "½": "a half",
    "¼": "a quarter",
    "¾": "three quarters",
    "⅓": "a third",
    "⅔": "two thirds",
}
_INDIAN_GROUPING = re.compile(r"^\d{1,2}(?:,\d{2})+,\d{3}$")
# Acronyms said as words; the rest are spelled letter by letter (O T P).
WORD_ACRONYMS = {
    word: word for word in "NASA ISRO COVID UNESCO UNICEF NATO AIIMS SEBI FIFA SIM PIN RAM".split()
} | {"OK": "okay"}
STREET_WORDS = {"St": "Street", "Rd": "Road", "Ave": "Avenue", "Ln": "Lane", "Blvd": "Boulevard"}


def _words(text: str) -> str:
    return text.replace(",", "").replace("-", " ")


class EnglishReader(InFullReader):
    states = (
        "Andhra Pradesh", "Arunachal Pradesh", "Assam", "Bihar", "Chhattisgarh", "Goa",
        "Gujarat", "Haryana", "Himachal Pradesh", "Jharkhand", "Karnataka", "Kerala",
        "Madhya Pradesh", "Maharashtra", "Manipur", "Meghalaya", "Mizoram", "Nagaland",
        "Odisha", "Punjab", "Rajasthan", "Sikkim", "Tamil Nadu", "Telangana", "Tripura",
        "Uttar Pradesh", "Uttarakhand", "West Bengal", "Delhi", "New Delhi", "Chandigarh",
        "Puducherry", "Ladakh", "Jammu and Kashmir", "Bengaluru", "Bangalore", "Mumbai",
        "Chennai", "Kolkata", "Hyderabad", "Pune", "Ahmedabad", "Jaipur", "Lucknow",
    )  # fmt: skip
    decimal_word = "point"
    minus_word = "minus"
    percent_word = "percent"
    money_and = " and "
    abbreviations = ABBREVIATIONS
    vulgar_fractions = FRACTIONS
    word_acronyms = WORD_ACRONYMS
    months = MONTHS

    def cardinal(self, n: int) -> str:
        return _words(num2words(n, lang="en"))

    def number(self, text: str) -> str:
        whole_text, _, fraction = text.partition(".")
        if _INDIAN_GROUPING.match(whole_text):
            words = _words(num2words(int(whole_text.replace(",", "")), lang="en_IN"))
            return words + (f" point {self.digits(fraction)}" if fraction else "")
        return super().number(text)

    def ordinal(self, n: int) -> str:
        return _words(num2words(n, lang="en", to="ordinal"))

    def mixed(self, whole: int, numerator: int, denominator: int) -> str:
        """2 1/2: two and a half (a quarter, a third); 2 2/7: two and two sevenths."""
        if numerator == 1 and 2 <= denominator <= 10:
            part = {2: "half", 4: "quarter"}.get(denominator) or self.ordinal(denominator)
            return f"{self.cardinal(whole)} and a {part}"
        return super().mixed(whole, numerator, denominator)

    def fraction(self, numerator: int, denominator: int) -> str:
        """One half, three quarters, five eighths; 2563/412 is "... over ..."."""
        if (numerator, denominator) == (24, 7):
            return "twenty four seven"
        if not 2 <= denominator <= 10 or numerator >= 100:
            return f"{self.cardinal(numerator)} over {self.cardinal(denominator)}"
        part = {2: "half", 4: "quarter"}.get(denominator) or self.ordinal(denominator)
        if numerator != 1:
            part = "halves" if denominator == 2 else part + "s"
        return f"{self.cardinal(numerator)} {part}"

    def year(self, n: int) -> str:
        return _words(num2words(n, lang="en", to="year"))

    def time(self, hour: int, minute: int) -> str:
        spoken = self.cardinal(hour % 12 or 12)
        if minute == 0:
            return f"{spoken} o'clock"
        if minute < 10:
            return f"{spoken} oh {self.cardinal(minute)}"
        return f"{spoken} {self.cardinal(minute)}"

    def currency_words(self, currency: Currency, one: bool) -> tuple[str, str]:
        """One rupee, five rupees."""
        return (currency.english if one else currency.english_plural), currency.english_hundredth

    def unit_name(self, unit: Unit, quantity: str) -> str:
        """One kilometre, 1.5 kilometres, five kilometres."""
        return unit.english if quantity == "1" else unit.english_plural

    def time_with_seconds(self, hour: int, minute: int, seconds: int) -> str:
        """12:10:10: twelve ten and ten seconds."""
        unit = "second" if seconds == 1 else "seconds"
        return f"{self.time(hour, minute)} and {self.cardinal(seconds)} {unit}"

    def date(self, day: int, month: int, year: int) -> str:
        return f"{self.ordinal(day)} {MONTHS[month - 1]} {self.year(year)}"

    def day_month(self, day: int, month: int, year: str | None, month_first: bool) -> str:
        """As written: "Jan 5, 2024" -> January fifth, twenty twenty four; "5 Jan" ->
        fifth January."""
        name, nth = MONTHS[month - 1], self.ordinal(day)
        spoken = f"{name} {nth}" if month_first else f"{nth} {name}"
        return spoken + ((", " if month_first else " ") + self.year(int(year)) if year else "")

    def house_number(self, n: int) -> str:
        """221B Baker Street: two twenty one B."""
        hundreds, rest = divmod(n, 100)
        if 100 <= n <= 999 and rest >= 10:
            return f"{self.cardinal(hundreds)} {self.cardinal(rest)}"
        return self.cardinal(n)

    def score(self, ours: str, theirs: str) -> str:
        return f"{self.cardinal(int(ours))} {self.cardinal(int(theirs))}"

    def decade(self, text: str) -> str:
        """1990s -> nineteen nineties, 80s -> eighties, 2000s -> two thousands."""
        words = (self.year(int(text)) if len(text) == 4 else self.cardinal(int(text))).split()
        last = words[-1]
        words[-1] = last[:-1] + "ies" if last.endswith("y") else last + "s"
        return " ".join(words)

    def read(self, text: str) -> str:
        # Shouted text is not a row of acronyms: read it in lower case.
        letters = [c for c in text if c.isalpha()]
        if len(letters) >= 8 and sum(c.isupper() for c in letters) > 0.8 * len(letters):
            text = text.lower()
        return super().read(text)

    def ordinal_rules(self) -> list[Rule]:
        return [
            Rule(
                re.compile(r"(\d+)(?:st|nd|rd|th)(?![\w])", re.I),
                lambda m: self.ordinal(int(m[1])),
            )
        ]

    def code_rules(self) -> list[Rule]:
        return [
            *super().code_rules(),
            Rule(  # a score, not a range: won 2-1 -> won two one
                re.compile(
                    r"\b(won|beat|lost|leads?|led|drew|score|scored|trails?)\s"
                    r"(\d{1,2})\s?[-–]\s?(\d{1,2})(?![\w.-])",
                    re.I,
                ),
                lambda m: f"{m[1]} {self.score(m[2], m[3])}",
            ),
            Rule(  # a 3-0 win
                re.compile(
                    r"(?<![\w.])(\d{1,2})\s?[-–]\s?(\d{1,2})"
                    r"(?=\s+(?:win|victory|defeat|loss|lead|draw)\b)",
                    re.I,
                ),
                lambda m: self.score(m[1], m[2]),
            ),
            Rule(
                re.compile(r"(?<![\w])((?:1[1-9]|20)?\d0)'?s(?![\w])"),
                lambda m: self.decade(m[1]),
            ),
            Rule(  # 10:30 am, 10 a.m.: said as letters, as written capitals are
                re.compile(r"(?<=\d)\s?([ap])(\.m\.|m)(?![\w])(\s*$)?"),
                lambda m: (
                    f" {m[1].upper()} M" + ("." if m[2] == ".m." and m[3] is not None else "")
                ),
            ),
        ]

    def word_rules(self) -> list[Rule]:
        return [
            Rule(  # St. Xavier's -> Saint; Baker St. -> Street (Rd., Ave., ...)
                re.compile(r"\bSt\.(?=\s+[A-Z])"), lambda m: "Saint"
            ),
            Rule(
                re.compile(rf"(?<=[A-Za-z] )({'|'.join(STREET_WORDS)})\.(?!\w)"),
                lambda m: STREET_WORDS[m[1]],
            ),
            Rule(  # a bare year: 1947 -> nineteen forty seven; 1100-1799 are mostly
                # counts (1345 people), but round hundreds (fifteen hundred)
                re.compile(r"(?<![\w,.])(1[89]\d\d|20\d\d|1[1-7]00)(?!\w|[,.]\d)"),
                lambda m: self.year(int(m[1])),
            ),
            Rule(  # ... and years after a word that says when: in 1526, since 1757
                re.compile(
                    r"\b(in|since|from|until|till|by|year|of) (1[1-7]\d\d)(?!\w|[,.]\d)", re.I
                ),
                lambda m: f"{m[1]} {self.year(int(m[2]))}",
            ),
            Rule(re.compile(r"\bNo\.\s?(?=\d)"), lambda m: "number "),
        ]
