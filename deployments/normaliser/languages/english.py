"""English as it is read in India: lakh and crore for Indian-grouped numbers,
western grouping otherwise; money in rupees, dollars and the rest."""

from __future__ import annotations

import re

from num2words import num2words

from deployments.normaliser.languages.base import NUMBER, Reader, Rule, alternatives

MONTHS = (
    "January February March April May June July August September October November December"
).split()
CURRENCIES = {
    "₹": ("rupees", "paise"),
    "rs": ("rupees", "paise"),
    "rs.": ("rupees", "paise"),
    "inr": ("rupees", "paise"),
    "$": ("dollars", "cents"),
    "usd": ("dollars", "cents"),
    "€": ("euros", "cents"),
    "£": ("pounds", "pence"),
}
UNITS = {
    "km/h": "kilometres per hour",
    "kmph": "kilometres per hour",
    "km": "kilometres",
    "kg": "kilograms",
    "cm": "centimetres",
    "mm": "millimetres",
    "ml": "millilitres",
    "m": "metres",
    "g": "grams",
    "mg": "milligrams",
    "l": "litres",
    "°c": "degrees Celsius",
    "°f": "degrees Fahrenheit",
    "°": "degrees",
    "gb": "gigabytes",
    "mb": "megabytes",
    "kw": "kilowatts",
    "hrs": "hours",
    "hr": "hours",
    "mins": "minutes",
    "min": "minutes",
}
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
}
FRACTIONS = {
    "½": "a half",
    "¼": "a quarter",
    "¾": "three quarters",
    "⅓": "a third",
    "⅔": "two thirds",
}
_INDIAN_GROUPING = re.compile(r"^\d{1,2}(?:,\d{2})+,\d{3}$")


def _words(text: str) -> str:
    return text.replace(",", "").replace("-", " ")


class EnglishReader(Reader):
    decimal_word = "point"
    minus_word = "minus"
    percent_word = "percent"

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

    def year(self, n: int) -> str:
        return _words(num2words(n, lang="en", to="year"))

    def money(self, amount: str, unit: tuple[str, str]) -> str:
        whole, _, fraction = amount.partition(".")
        words = f"{self.number(whole)} {unit[0]}"
        cents = int((fraction + "00")[:2]) if fraction else 0
        return words + (f" and {self.cardinal(cents)} {unit[1]}" if cents else "")

    def time(self, hour: int, minute: int) -> str:
        spoken = self.cardinal(hour % 12 or 12)
        if minute == 0:
            return f"{spoken} o'clock"
        if minute < 10:
            return f"{spoken} oh {self.cardinal(minute)}"
        return f"{spoken} {self.cardinal(minute)}"

    def rules(self) -> list[Rule]:
        currency = r"₹|Rs\.?|INR|\$|USD|€|£"
        units = alternatives(UNITS)
        return [
            Rule(
                re.compile(r"(\+91[\s-]?)?(?<!\d)([6-9]\d{4})[\s-]?(\d{5})(?!\d)"),
                lambda m: (
                    ("plus nine one, " if m[1] else "")
                    + f"{self.digits(m[2])}, {self.digits(m[3])}"
                ),
            ),
            Rule(
                re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)"),
                lambda m: self._date(m[3], m[2], m[1]) or m[0],
            ),
            Rule(
                re.compile(r"(?<!\d)(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})(?!\d)"),
                lambda m: self._date(m[1], m[2], m[3]) or m[0],
            ),
            Rule(
                re.compile(r"(?<!\d)([01]?\d|2[0-3]):([0-5]\d)(?!\d)"),
                lambda m: self.time(int(m[1]), int(m[2])),
            ),
            Rule(
                re.compile(rf"({currency})\s?({NUMBER})", re.I),
                lambda m: self.money(m[2], CURRENCIES[m[1].lower()]),
            ),
            Rule(re.compile(rf"({NUMBER})\s?%"), lambda m: f"{self.number(m[1])} percent"),
            Rule(
                re.compile(rf"(?<![\w.])({NUMBER})\s?[-–]\s?({NUMBER})(?![\w.])"),
                lambda m: f"{self.number(m[1])} to {self.number(m[2])}",
            ),
            Rule(
                re.compile(r"(?<!\d)(\d+)?\s?([½¼¾⅓⅔])"),
                lambda m: (f"{self.cardinal(int(m[1]))} and " if m[1] else "") + FRACTIONS[m[2]],
            ),
            Rule(
                re.compile(rf"({NUMBER})\s?({units})(?![\w])", re.I),
                lambda m: f"{self.number(m[1])} {UNITS[m[2].lower()]}",
            ),
            Rule(
                re.compile(r"(\d+)(?:st|nd|rd|th)(?![\w])", re.I),
                lambda m: self.ordinal(int(m[1])),
            ),
            Rule(
                re.compile(r"(?<![\w,.])(1[1-9]\d\d|20\d\d)(?!\w|[,.]\d)"),
                lambda m: self.year(int(m[1])),
            ),
            Rule(re.compile(alternatives(ABBREVIATIONS)), lambda m: ABBREVIATIONS[m[0]]),
            Rule(re.compile(r"\bNo\.\s?(?=\d)"), lambda m: "number "),
            Rule(re.compile(r"\s&\s"), lambda m: " and "),
            *super().rules(),
        ]

    def _date(self, day: str, month: str, year: str) -> str | None:
        d, mo = int(day), int(month)
        if not (1 <= d <= 31 and 1 <= mo <= 12):
            return None
        y = int(year)
        if len(year) == 2:
            y += 2000 if y < 50 else 1900
        return f"{self.ordinal(d)} {MONTHS[mo - 1]} {self.year(y)}"
