"""English as it is read in India: lakh and crore for Indian-grouped numbers,
western grouping otherwise; money in rupees, dollars and the rest."""

from __future__ import annotations

import re

from num2words import num2words

from deployments.normaliser.languages.base import ContextReader, Rule

MONTHS = (
    "January February March April May June July August September October November December"
).split()
CURRENCY_NAMES = {
    "inr": ("rupees", "paise"),
    "usd": ("dollars", "cents"),
    "eur": ("euros", "cents"),
    "gbp": ("pounds", "pence"),
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


class EnglishReader(ContextReader):
    decimal_word = "point"
    minus_word = "minus"
    percent_word = "percent"
    money_and = " and "
    currency_names = CURRENCY_NAMES
    units = UNITS
    abbreviations = ABBREVIATIONS
    vulgar_fractions = FRACTIONS

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

    def time(self, hour: int, minute: int) -> str:
        spoken = self.cardinal(hour % 12 or 12)
        if minute == 0:
            return f"{spoken} o'clock"
        if minute < 10:
            return f"{spoken} oh {self.cardinal(minute)}"
        return f"{spoken} {self.cardinal(minute)}"

    def date(self, day: int, month: int, year: int) -> str:
        return f"{self.ordinal(day)} {MONTHS[month - 1]} {self.year(year)}"

    def ordinal_rules(self) -> list[Rule]:
        return [
            Rule(
                re.compile(r"(\d+)(?:st|nd|rd|th)(?![\w])", re.I),
                lambda m: self.ordinal(int(m[1])),
            )
        ]

    def word_rules(self) -> list[Rule]:
        return [
            Rule(  # a bare year: 1947 -> nineteen forty seven
                re.compile(r"(?<![\w,.])(1[1-9]\d\d|20\d\d)(?!\w|[,.]\d)"),
                lambda m: self.year(int(m[1])),
            ),
            Rule(re.compile(r"\bNo\.\s?(?=\d)"), lambda m: "number "),
        ]
