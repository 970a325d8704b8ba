"""The reader mechanism: ordered regex rules over a segment's text."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import ClassVar

# A number as people write it: 1250, 1,250, 1,00,000, 3.14 (ASCII digits by now).
NUMBER = r"\d+(?:,\d{2,3})*(?:\.\d+)?"
_ANY_DIGIT = re.compile(r"\d")
_SPACES = re.compile(r"[ \t]{2,}")


def alternatives(words: Iterable[str]) -> str:
    """A regex alternation of ``words``, longest first, each escaped."""
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


def ascii_digits(text: str) -> str:
    """Every Unicode decimal digit (०-९, ০-৯, ௦-௯, ...) as its ASCII digit."""
    return _ANY_DIGIT.sub(lambda m: str(unicodedata.digit(m.group())), text)


def parse_number(text: str) -> tuple[int, str]:
    """``"1,250.50"`` -> ``(1250, "50")``: the whole part and the fraction digits."""
    whole, _, fraction = text.replace(",", "").partition(".")
    return int(whole), fraction


@dataclass(frozen=True)
class Rule:
    pattern: re.Pattern[str]
    replace: Callable[[re.Match[str]], str]


class Reader:
    """Reads a segment's text aloud as words. Subclasses supply the vocabulary and
    add rules; the order of :meth:`rules` matters (most specific first)."""

    decimal_word = "point"
    minus_word = "minus"
    percent_word = "percent"
    max_cardinal_digits = 12

    def cardinal(self, n: int) -> str:
        raise NotImplementedError

    def digits(self, text: str) -> str:
        """Digit by digit, as account and phone numbers are read."""
        return " ".join(self.cardinal(int(d)) for d in text if d.isdigit())

    def number(self, text: str) -> str:
        """A written number (commas and decimals allowed) as words."""
        whole, fraction = parse_number(text)
        if len(str(whole)) > self.max_cardinal_digits:
            words = self.digits(str(whole))
        else:
            words = self.cardinal(whole)
        if fraction:
            words += f" {self.decimal_word} {self.digits(fraction)}"
        return words

    def rules(self) -> list[Rule]:
        return [
            Rule(
                re.compile(rf"({NUMBER})\s?%"), lambda m: f"{self.number(m[1])} {self.percent_word}"
            ),
            Rule(
                re.compile(rf"(?<![\w.])[-−]({NUMBER})"),
                lambda m: f"{self.minus_word} {self.number(m[1])}",
            ),
            Rule(re.compile(NUMBER), lambda m: self.number(m[0])),
        ]

    def read(self, text: str) -> str:
        text = ascii_digits(text)
        for rule in self._compiled_rules:
            text = rule.pattern.sub(rule.replace, text)
        return _SPACES.sub(" ", text).strip()

    @property
    def _compiled_rules(self) -> list[Rule]:
        cached: list[Rule] | None = self.__dict__.get("_rules")
        if cached is None:
            cached = self.__dict__["_rules"] = self.rules()
        return cached


class NumberReader(Reader):
    """The generic reader for a language that supplies only how to say a cardinal."""

    def __init__(
        self, cardinal: Callable[[int], str], decimal_word: str, minus_word: str, percent_word: str
    ) -> None:
        self._cardinal = cardinal
        self.decimal_word = decimal_word
        self.minus_word = minus_word
        self.percent_word = percent_word

    def cardinal(self, n: int) -> str:
        return self._cardinal(n)


class DigitsOnlyReader(Reader):
    """No rules of its own: native digits become ASCII, for the engine to read."""

    def rules(self) -> list[Rule]:
        return []


# Currency signs and abbreviations people write, by ISO code.
CURRENCY_CODES = {
    "₹": "inr",
    "rs": "inr",
    "rs.": "inr",
    "inr": "inr",
    "रु": "inr",
    "रु.": "inr",
    "$": "usd",
    "usd": "usd",
    "€": "eur",
    "£": "gbp",
}


class ContextReader(Reader):
    """Rules shared by languages read in full: phone numbers, dates, times, money,
    ranges, percentages, fractions, units, ordinals, abbreviations.

    A language supplies its words (the class attributes and the methods that
    raise ``NotImplementedError``) and may add rules at :meth:`money_rules`,
    :meth:`fraction_rules`, :meth:`ordinal_rules` and :meth:`word_rules`.
    """

    plus: str = "plus"
    to: str = "to"
    and_: str = "and"
    money_and = " "  # between rupees and paise
    currency_names: ClassVar[dict[str, tuple[str, str]]] = {}  # code -> (unit, hundredth)
    units: ClassVar[dict[str, str]] = {}
    abbreviations: ClassVar[dict[str, str]] = {}
    vulgar_fractions: ClassVar[dict[str, str]] = {}
    after_time = ""  # a regex for a word that already follows times ("बजे")

    def date(self, day: int, month: int, year: int) -> str:
        raise NotImplementedError

    def time(self, hour: int, minute: int) -> str:
        raise NotImplementedError

    def money(self, amount: str, code: str) -> str:
        """``amount`` (as written, with commas) of currency ``code``, hundredths included."""
        unit, hundredth = self.currency_names[code]
        whole, _, fraction = amount.partition(".")
        words = f"{self.number(whole)} {unit}"
        cents = int((fraction + "00")[:2]) if fraction else 0
        return words + (f"{self.money_and}{self.cardinal(cents)} {hundredth}" if cents else "")

    def quantity(self, text: str) -> str:
        """A number before a unit."""
        return self.number(text)

    def vulgar(self, whole: str | None, symbol: str) -> str:
        words = self.vulgar_fractions[symbol]
        return f"{self.cardinal(int(whole))} {self.and_} {words}" if whole else words

    def money_rules(self, currency: str) -> list[Rule]:
        """Amounts after a currency sign; before ranges, so ``₹10-20`` is money."""
        return [
            Rule(
                re.compile(rf"({currency})\s?({NUMBER})", re.I),
                lambda m: self.money(m[2], CURRENCY_CODES[m[1].lower()]),
            )
        ]

    def amount_rules(self) -> list[Rule]:
        """Rules after ranges (amounts with the currency written after them)."""
        return []

    def fraction_rules(self) -> list[Rule]:
        return []

    def ordinal_rules(self) -> list[Rule]:
        return []

    def word_rules(self) -> list[Rule]:
        return []

    def rules(self) -> list[Rule]:
        currency = alternatives(CURRENCY_CODES)
        return [
            Rule(
                re.compile(r"(\+91[\s-]?)?(?<!\d)([6-9]\d{4})[\s-]?(\d{5})(?!\d)"),
                lambda m: (
                    (f"{self.plus} {self.digits('91')}, " if m[1] else "")
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
                re.compile(rf"(?<!\d)([01]?\d|2[0-3]):([0-5]\d)(?!\d)({self.after_time})?"),
                lambda m: self.time(int(m[1]), int(m[2])),
            ),
            *self.money_rules(currency),
            Rule(
                re.compile(rf"(?<![\w.])({NUMBER})\s?[-–]\s?({NUMBER})(?![\w.])"),
                lambda m: f"{self.number(m[1])} {self.to} {self.number(m[2])}",
            ),
            *self.amount_rules(),
            Rule(
                re.compile(rf"(?<!\d)(\d+)?\s?({alternatives(self.vulgar_fractions)})"),
                lambda m: self.vulgar(m[1], m[2]),
            ),
            *self.fraction_rules(),
            Rule(  # -5°C: the sign belongs to the quantity
                re.compile(
                    rf"(?:(?<![\w.])([-−]))?({NUMBER})\s?({alternatives(self.units)})(?![\w])", re.I
                ),
                lambda m: (
                    (f"{self.minus_word} " if m[1] else "")
                    + f"{self.quantity(m[2])} {self.units[m[3].lower()]}"
                ),
            ),
            *self.ordinal_rules(),
            Rule(re.compile(alternatives(self.abbreviations)), lambda m: self.abbreviations[m[0]]),
            *self.word_rules(),
            Rule(re.compile(r"\s&\s"), lambda m: f" {self.and_} "),
            *super().rules(),
        ]

    def _date(self, day: str, month: str, year: str) -> str | None:
        d, mo = int(day), int(month)
        if not (1 <= d <= 31 and 1 <= mo <= 12):
            return None
        y = int(year)
        if len(year) == 2:
            y += 2000 if y < 50 else 1900
        return self.date(d, mo, y)
