"""The reader mechanism: ordered regex rules over a segment's text."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from deployments.normaliser.languages.phones import phone_rules

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
    # Codes read digit by digit: the words that name them (a regex), what may stand
    # between name and digits ("OTP: 4821", "PIN code 110001"; a regex), and words
    # after digits that make them an amount.
    code_names = (
        r"OTP|PIN|PNR|CVV|UPI|ID|A/c|Acc(?:oun)?t|account|card|ref(?:erence)?|mobile|phone|"
        r"number|no\.|call|dial|helpline|whatsapp|sms|order|train|digits"
    )
    code_glue = r"[:#=-]|is|no\.?|number|code|ending(?: with| in)?"
    amount_after = r"/-"
    plus_word: str | None = None  # "+" of +91, where the language has a word for it

    def cardinal(self, n: int) -> str:
        raise NotImplementedError

    def quantity(self, text: str) -> str:
        """A number before a unit or a percent sign."""
        return self.number(text)

    def digits(self, text: str) -> str:
        """Digit by digit, as account and phone numbers are read."""
        return " ".join(self.cardinal(int(d)) for d in text if d.isdigit())

    def number(self, text: str) -> str:
        """A written number (commas and decimals allowed) as words."""
        whole, fraction = parse_number(text)
        # a long run of digits is a code to key in; with decimals it is a quantity
        if len(str(whole)) > self.max_cardinal_digits + (9 if fraction else 0):
            words = self.digits(str(whole))
        else:
            words = self.cardinal(whole)
        if fraction:
            words += f" {self.decimal_word} {self.digits(fraction)}"
        return words

    def bare_number(self, text: str) -> str:
        """A number standing alone; one written with a leading zero (007, 05) digit by
        digit, as such codes are read (before a unit or in a range it is a quantity)."""
        if len(text) > 1 and text[0] == "0" and text.isdigit():
            return self.digits(text)
        return self.number(text)

    def code_name(self, word: str) -> str:
        """The word before a code, as the language says it (acronyms are spelled later)."""
        return word

    def glue_words(self, text: str) -> str:
        """What stands between a code's name and its digits, as the language says it
        (``:``, ``#``, ``=`` are not said)."""
        return re.sub(r"\s*[:#=]\s*", " ", text)

    def spell(self, text: str) -> str:
        """A code digit by digit, in the groups it was written in; an unbroken mobile
        number in two fives, other long runs in fours (a pause between groups)."""
        groups = re.split(r"[ -]+", text.strip())
        if len(groups) == 1:
            run = groups[0]
            if len(run) == 10 and run[0] in "6789":
                groups = [run[:5], run[5:]]
            elif len(run) > 6:
                groups = [run[i : i + 4] for i in range(0, len(run), 4)]
        return ", ".join(self.digits(group) for group in groups)

    def named_code_rule(self) -> Rule:
        """Digits after a code's name (``OTP 4821``, ``खाता संख्या 1234 5678``) are
        read digit by digit, unless an amount's word follows them."""
        return Rule(
            re.compile(
                rf"(?<![\w/])({self.code_names})((?:\s*(?:{self.code_glue})\s*)*\s*)"
                rf"(\d(?:\d|[ -](?=\d)){{3,}})(?![\d.,]\d|\s?(?:{self.amount_after}))",
                re.I,
            ),
            lambda m: f"{self.code_name(m[1])}{self.glue_words(m[2])}{self.spell(m[3])}",
        )

    def long_run_rule(self) -> Rule:
        """A long unbroken digit run is a number to key in, not a quantity."""
        return Rule(
            re.compile(rf"(?<![\d,./])(\d{{9,}})(?![\d,./]|\s?(?:{self.amount_after}))"),
            lambda m: self.spell(m[1]),
        )

    def phone_rules(self) -> list[Rule]:
        """Telephone numbers, digit by digit in their groups (:mod:`phones`)."""
        return [Rule(pattern, replace) for pattern, replace in phone_rules(self)]

    def rules(self) -> list[Rule]:
        return [
            self.named_code_rule(),
            *self.phone_rules(),
            self.long_run_rule(),
            *self.number_rules(),
        ]

    def number_rules(self) -> list[Rule]:
        """Percentages, signed numbers, then every number left as a quantity."""
        return [
            Rule(
                re.compile(rf"({NUMBER})\s?%"),
                lambda m: f"{self.quantity(m[1])} {self.percent_word}",
            ),
            Rule(
                re.compile(rf"(?<![\w.])[-−]({NUMBER})"),
                lambda m: f"{self.minus_word} {self.number(m[1])}",
            ),
            Rule(re.compile(NUMBER), lambda m: self.bare_number(m[0])),
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


class DigitsOnlyReader(Reader):
    """No rules of its own: native digits become ASCII, for the engine to read."""

    def rules(self) -> list[Rule]:
        return []
