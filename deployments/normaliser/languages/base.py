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
    # Codes read digit by digit: the words that name them (a regex), what may stand
    # between name and digits ("OTP: 4821", "PIN code 110001"; a regex), and words
    # after digits that make them an amount.
    code_names = (
        r"OTP|PIN|PNR|CVV|UPI|ID|A/c|Acc(?:oun)?t|account|card|ref(?:erence)?|mobile|phone|"
        r"number|no\.|call|dial|helpline|whatsapp|sms|order|train"
    )
    code_glue = r"[:#=-]|is|no\.?|number|code|ending(?: with| in)?"
    amount_after = r"/-"

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
        if len(str(whole)) > self.max_cardinal_digits:
            words = self.digits(str(whole))
        else:
            words = self.cardinal(whole)
        if fraction:
            words += f" {self.decimal_word} {self.digits(fraction)}"
        return words

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
            re.compile(rf"(?<![\d,.])(\d{{9,}})(?![\d,.]|\s?(?:{self.amount_after}))"),
            lambda m: self.spell(m[1]),
        )

    def rules(self) -> list[Rule]:
        return [self.named_code_rule(), self.long_run_rule(), *self.number_rules()]

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


# English month names and abbreviations as written in either language.
MONTH_NAMES = "|".join(
    ("Jan(?:uary)?", "Feb(?:ruary)?", "Mar(?:ch)?", "Apr(?:il)?", "May", "June?", "July?",
     "Aug(?:ust)?", "Sept?(?:ember)?", "Oct(?:ober)?", "Nov(?:ember)?", "Dec(?:ember)?")
)  # fmt: skip
_MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()


def month_number(name: str) -> int:
    """1-12 for an English month name or abbreviation (``Nov``, ``November``, ``Sept``)."""
    return _MONTHS.index(name.lower()[:3]) + 1


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
    # Ratios (16:9, 1:2): what is said for the colon, and the words that mark a
    # colon as a ratio even where it could be a time (ratio 1:30).
    ratio_word = "to"
    version_point = "point"  # between the parts of a version number (2.0.1)
    ratio_names = r"ratio|aspect"
    # Acronyms: how the language names each capital letter, those said as words,
    # and digits next to a letter (5G, A1) as the language says them there.
    letter_names: ClassVar[dict[str, str]] = {}
    word_acronyms: ClassVar[dict[str, str]] = {}
    letter_digits: ClassVar[tuple[str, ...]] = ()

    def date(self, day: int, month: int, year: int) -> str:
        raise NotImplementedError

    def time(self, hour: int, minute: int) -> str:
        raise NotImplementedError

    def day_month(self, day: int, month: int, year: str | None, month_first: bool) -> str:
        """A date written with an English month name (``22 Nov 2026``, ``Nov 22, 2026``)."""
        raise NotImplementedError

    def acronym(self, letters: str) -> str:
        """Capitals said as a word if they are one, else letter by letter."""
        return self.word_acronyms.get(letters) or " ".join(
            self.letter_names.get(c, c) for c in letters
        )

    def letter_digit(self, digit: str) -> str:
        return self.letter_digits[int(digit)] if self.letter_digits else self.cardinal(int(digit))

    def house_number(self, n: int) -> str:
        """A number before a letter (221B)."""
        return self.cardinal(n)

    def ratio(self, first: str, second: str, named: bool = False) -> str:
        """``first:second`` as a ratio; ``named``: the word ratio follows it."""
        return f"{self.cardinal(int(first))} {self.ratio_word} {self.cardinal(int(second))}"

    def code_rules(self) -> list[Rule]:
        """Before anything reads digits as a quantity: codes after their names, dates
        with English month names, alphanumerics."""
        return [
            self.named_code_rule(),
            Rule(
                re.compile(
                    rf"(?<!\d)(\d{{1,2}})(?:st|nd|rd|th)?\s+({MONTH_NAMES})(?:\.(?!\s*$))?,?"
                    r"(?:\s+(\d{4}))?(?!\w)",
                    re.I,
                ),
                lambda m: self.day_month(int(m[1]), month_number(m[2]), m[3], False),
            ),
            Rule(
                re.compile(
                    rf"(?<![\w])({MONTH_NAMES})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?!\d)"
                    r"(?:,?\s+(\d{4}))?(?!\w)",
                    re.I,
                ),
                lambda m: self.day_month(int(m[2]), month_number(m[1]), m[3], True),
            ),
            Rule(  # versions: 2.0.1, v1.12.10 (1.1.25 without the v is a date)
                re.compile(r"(?<![\w.])(v)?(\d+)\.(\d+)\.(\d+)(?![\w.]|\.\d)"),
                lambda m: (
                    f" {self.version_point} ".join(self.cardinal(int(p)) for p in m.groups()[1:])
                    if m[1] or len(m[4]) == 1
                    else m[0]
                ),
            ),
            Rule(re.compile(r"(?<![\w-])([A-Z]{2,})-(?=\d)"), lambda m: f"{m[1]} "),  # COVID-19
            Rule(
                re.compile(r"(?<![\w])(\d)([A-Z])(?![\w])"),  # 5G, 4K
                lambda m: f"{self.letter_digit(m[1])} {self.acronym(m[2])}",
            ),
            Rule(
                re.compile(r"(?<![\w])([A-Z])(\d)(?![\w])"),  # A1
                lambda m: f"{self.acronym(m[1])} {self.letter_digit(m[2])}",
            ),
            Rule(
                re.compile(r"(?<![\w])(\d{2,4})([A-Z])(?![\w])"),  # 221B
                lambda m: f"{self.house_number(int(m[1]))} {self.acronym(m[2])}",
            ),
        ]

    def money(self, amount: str, code: str) -> str:
        """``amount`` (as written, with commas) of currency ``code``, hundredths included."""
        unit, hundredth = self.currency_names[code]
        whole, _, fraction = amount.partition(".")
        words = f"{self.number(whole)} {unit}"
        cents = int((fraction + "00")[:2]) if fraction else 0
        return words + (f"{self.money_and}{self.cardinal(cents)} {hundredth}" if cents else "")

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
            *self.code_rules(),
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
            Rule(  # a ratio named as one: "ratio of 1:30", "1:30 का अनुपात"
                re.compile(
                    rf"(?<![\w:])(?:((?:{self.ratio_names})\W{{0,12}}?)(\d{{1,3}}):(\d{{1,3}})"
                    rf"|(\d{{1,3}}):(\d{{1,3}})(?=\s*\S{{0,3}}\s*(?:{self.ratio_names})))(?![\d:])",
                    re.I,
                ),
                lambda m: (
                    m[1] + self.ratio(m[2], m[3]) if m[1] else self.ratio(m[4], m[5], named=True)
                ),
            ),
            Rule(
                re.compile(rf"(?<!\d)([01]?\d|2[0-3]):([0-5]\d)(?!\d)({self.after_time})?"),
                lambda m: self.time(int(m[1]), int(m[2])),
            ),
            Rule(  # what cannot be a time is a ratio: 16:9, 4:3, 1:1
                re.compile(r"(?<![\d:.])(\d{1,3}):(\d{1,3})(?![\d:])"),
                lambda m: self.ratio(m[1], m[2]),
            ),
            *self.money_rules(currency),
            Rule(
                re.compile(rf"(?<![\w.])({NUMBER})\s?[-–]\s?({NUMBER})(?![\w.])"),
                lambda m: f"{self.number(m[1])} {self.to} {self.number(m[2])}",
            ),
            *self.amount_rules(),
            self.long_run_rule(),
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
            Rule(  # acronyms of 2-6 capitals
                re.compile(r"(?<![A-Za-z])([A-Z]{2,6})(?![A-Za-z])"), lambda m: self.acronym(m[1])
            ),
            Rule(re.compile(r"\s&\s"), lambda m: f" {self.and_} "),
            *self.number_rules(),
        ]

    def _date(self, day: str, month: str, year: str) -> str | None:
        d, mo = int(day), int(month)
        if not (1 <= d <= 31 and 1 <= mo <= 12):
            return None
        y = int(year)
        if len(year) == 2:
            y += 2000 if y < 50 else 1900
        return self.date(d, mo, y)
