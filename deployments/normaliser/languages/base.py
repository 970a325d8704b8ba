"""The reader mechanism: ordered regex rules over a segment's text."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass

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
