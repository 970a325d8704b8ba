"""The reader of languages read in full (Hindi, English): dates, times, money,
ranges, fractions, units, ordinals, abbreviations and acronyms, as rules over the
number reader of :mod:`base`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar

import deployments.normaliser.languages.currencies as currencies
import deployments.normaliser.languages.dates as dates
from deployments.normaliser.languages.addresses import AddressReader
from deployments.normaliser.languages.base import NUMBER, Rule, alternatives
from deployments.normaliser.languages.codes import code_rules
from deployments.normaliser.languages.currencies import Currency, currency_of
from deployments.normaliser.languages.dates import MONTH_NAMES, month_number
from deployments.normaliser.languages.units import UNITS, Unit, by_written, found

# AM or PM after a time (looked at, not consumed: the language's rule says it).
AM_PM = r"(?=\s?[AaPp]\.?\s?[Mm]\.?(?![A-Za-z]))"

# Not inside a word: after no letter, digit or Devanagari sign (vowel signs are not
# \w to Python's re).
NOT_AFTER_A_LETTER = r"(?<![\w\u0900-\u0963\u0971-\u097F])"


class InFullReader(AddressReader):
    """Rules shared by languages read in full: phone numbers, e-mail and web
    addresses (:class:`AddressReader`), dates, times, money, ranges, percentages,
    fractions, units, ordinals, abbreviations.

    A language supplies its words (the class attributes and the methods that
    raise ``NotImplementedError``) and may add rules at :meth:`money_rules`,
    :meth:`fraction_rules`, :meth:`ordinal_rules` and :meth:`word_rules`.
    """

    plus_word: str | None = "plus"
    amount_scales = ""  # a regex: words after an amount that scale it (लाख, crore)
    to: str = "to"
    until = ""  # after a range's second amount, where the language says one
    and_: str = "and"
    money_and = " "  # between rupees and paise
    # Units after a number (units.py, both languages' names) and the language's own
    # written units (किमी), lower-cased, with what is said for them.
    unit_table: dict[str, Unit] = by_written(UNITS)  # a language may add its own forms
    units: ClassVar[dict[str, str]] = {}
    abbreviations: Mapping[str, str] = MappingProxyType({})
    # ½ ¼ ¾ ... by name, where the language names them (per reader: Indic readers' words)
    vulgar_fractions: Mapping[str, str] = MappingProxyType({})
    after_time = ""  # a regex for a word that already follows times ("बजे")
    # Ratios (16:9, 1:2): what is said for the colon, and the words that mark a
    # colon as a ratio even where it could be a time (ratio 1:30).
    ratio_word = "to"
    by_word = "by"  # 12x10: twelve by ten
    version_point = "point"  # between the parts of a version number (2.0.1)
    ratio_names = r"ratio|aspect"
    # Acronyms: how the language names each capital letter, those said as words,
    # and digits next to a letter (5G, A1) as the language says them there.
    letter_names: ClassVar[dict[str, str]] = {}
    word_acronyms: ClassVar[dict[str, str]] = {}
    letter_digits: ClassVar[tuple[str, ...]] = ()
    months: tuple[str, ...] = ()  # January..December, as the language names them

    def date(self, day: int, month: int, year: int) -> str:
        raise NotImplementedError

    def time(self, hour: int, minute: int) -> str:
        raise NotImplementedError

    def time_with_seconds(self, hour: int, minute: int, seconds: int) -> str:
        raise NotImplementedError

    def _clock(self, hour: str, minute: str, seconds: str | None) -> str:
        if seconds and int(seconds):
            return self.time_with_seconds(int(hour), int(minute), int(seconds))
        return self.time(int(hour), int(minute))

    def year(self, n: int) -> str:
        return self.cardinal(n)

    def month_year(self, month: int, year: int) -> str:
        """A month of a year (``03-2010``): the month's name and the year."""
        return f"{self.months[month - 1]} {self.year(year)}"

    def day_month(self, day: int, month: int, year: str | None, month_first: bool) -> str:
        """A date written with an English month name (``22 Nov 2026``, ``Nov 22, 2026``)."""
        raise NotImplementedError

    def spelled(self, letters: str) -> str:
        """Letters said one by one, by the language's names for them (पी डी एफ़)."""
        return " ".join(self.letter_names.get(c, c) for c in letters.upper())

    def acronym(self, letters: str) -> str:
        """Capitals said as a word if they are one, else letter by letter."""
        return self.word_acronyms.get(letters) or self.spelled(letters)

    def letter_digit(self, digit: str) -> str:
        return self.letter_digits[int(digit)] if self.letter_digits else self.cardinal(int(digit))

    def house_number(self, n: int) -> str:
        """A number before a letter (221B)."""
        return self.cardinal(n)

    def ratio(self, first: str, second: str, named: bool = False) -> str:
        """``first:second`` as a ratio; ``named``: the word ratio follows it."""
        return f"{self.cardinal(int(first))} {self.ratio_word} {self.cardinal(int(second))}"

    def code_rules(self) -> list[Rule]:
        """Before anything reads digits as a quantity: addresses, PIN codes, codes after
        their names, dates with English month names, alphanumerics."""
        return [
            *self.address_rules(),
            self.pin_code_rule(),
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
            *(Rule(pattern, replace) for pattern, replace in code_rules(self)),
        ]

    def unit_name(self, unit: Unit, quantity: str) -> str:
        """What ``unit`` is called after the number written ``quantity``."""
        raise NotImplementedError

    def _unit_words(self, m: re.Match[str], group: int, quantity: str) -> str | None:
        """The unit written in ``m[group]`` as said after ``quantity``; None where it
        is not a unit here (AC, "5 in the morning")."""
        name = self.units.get(m[group].lower())
        if name is None:
            unit = found(self.unit_table, m, group)
            name = self.unit_name(unit, quantity) if unit else None
        return name

    def _measure(self, m: re.Match[str]) -> str:
        name = self._unit_words(m, 3, m[2])
        if name is None:
            return m[0]
        sign = f"{self.minus_word} " if m[1] else ""
        return f"{sign}{self.quantity(m[2])} {name}"

    def _measure_range(self, m: re.Match[str]) -> str:
        """5-10 km, 10-20%: a range of one unit, said once, after the second amount."""
        name = self.percent_word if m[3] == "%" else self._unit_words(m, 3, m[2])
        if name is None or not self.to:
            return m[0]
        return self.range(self.quantity(m[1]), f"{self.quantity(m[2])} {name}")

    def currency_words(self, currency: Currency, one: bool) -> tuple[str, str]:
        """What the language calls ``currency`` (after one of it, or more) and its
        hundredth ("" where none is in use)."""
        raise NotImplementedError

    def amount(self, text: str) -> str:
        """A sum of money's number (the language may read it otherwise than a count)."""
        return self.quantity(text)

    def money(self, amount: str, currency: Currency) -> str:
        """``amount`` (as written, with commas) of ``currency``, hundredths included (only
        them where there is no whole unit)."""
        whole, _, fraction = amount.partition(".")
        unit, hundredth = self.currency_words(currency, whole == "1")
        if not hundredth:  # yen, won: the decimals are the number's
            return f"{self.amount(amount)} {unit}"
        cents = int((fraction + "00")[:2]) if fraction else 0
        if cents and not whole.strip("0,"):  # ₹0.50: पचास पैसे, $0.99: ninety nine cents
            return f"{self.cardinal(cents)} {hundredth}"
        words = f"{self.amount(whole)} {unit}"
        return words + (f"{self.money_and}{self.cardinal(cents)} {hundredth}" if cents else "")

    def vulgar(self, whole: str | None, symbol: str) -> str:
        words = self.vulgar_fractions[symbol]
        return f"{self.cardinal(int(whole))} {self.and_} {words}" if whole else words

    def money_rules(self, currency: str) -> list[Rule]:
        """Amounts after a currency sign (``Rs.1,50,000/-``: the Indian way of closing
        a sum, not said); before ranges, so ``₹10-20`` is money."""
        return [
            Rule(
                re.compile(rf"({currency})\s?({NUMBER})(?:/-)?", re.I),
                lambda m: self.money(m[2], currency_of(m[1])),
            ),
        ]

    def money_range_rule(self, currency: str) -> Rule:
        """``₹10-20``, ``$5 - $10``: a range of money, the currency said once, at its end
        (not where a scale follows: ``₹1-2 लाख`` is the language's own rule)."""
        scale = rf"|\s?(?:{self.amount_scales})(?!\w)" if self.amount_scales else ""
        return Rule(
            re.compile(
                rf"({currency})\s?({NUMBER})\s?[-–]\s?(?:{currency})?\s?({NUMBER})"
                rf"(?![\w.]{scale})",
                re.I,
            ),
            lambda m: self.range(self.number(m[2]), self.money(m[3], currency_of(m[1]))),
        )

    def amount_rules(self) -> list[Rule]:
        """Rules after ranges (amounts with the currency written after them)."""
        return []

    def fraction(self, numerator: int, denominator: int) -> str:
        raise NotImplementedError

    def mixed(self, whole: int, numerator: int, denominator: int) -> str:
        """A whole number and a fraction, ``2 2/7``, joined as the language joins them."""
        return f"{self.cardinal(whole)} {self.and_} {self.fraction(numerator, denominator)}"

    def fraction_rules(self) -> list[Rule]:
        """``2 2/7`` (a whole and a fraction), ``3/4``, ``२५६३/४१२``: a fraction (after
        dates: ``06/05``, ``12/2027`` are read as dates first)."""
        return [
            Rule(
                re.compile(r"(?<![\w/.,])(\d+) (\d+)/(\d+)(?![\w/]|[.,]\d)"),
                lambda m: self.mixed(int(m[1]), int(m[2]), int(m[3])),
            ),
            Rule(
                re.compile(r"(?<![\w/.,])(\d+)/(\d+)(?![\w/]|[.,]\d)"),
                lambda m: self.fraction(int(m[1]), int(m[2])),
            ),
        ]

    def ordinal_rules(self) -> list[Rule]:
        return []

    def word_rules(self) -> list[Rule]:
        return []

    def rules(self) -> list[Rule]:
        currency = currencies.WRITTEN
        return [
            *self.code_rules(),
            *self.phone_rules(),
            *self.date_rules(),
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
            Rule(  # 10:30, 12:10:10
                re.compile(
                    r"(?<!\d)([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?(?!\d)"
                    rf"({self.after_time})?"
                ),
                lambda m: self._clock(m[1], m[2], m[3]),
            ),
            Rule(  # 9.30 am, 10.30 बजे: a dot for the colon where a time word follows
                re.compile(
                    r"(?<![\d.])([01]?\d|2[0-3])\.([0-5]\d)"
                    + (rf"(?:\s?(?:{self.after_time})|{AM_PM})" if self.after_time else AM_PM)
                ),
                lambda m: self._clock(m[1], m[2], None),
            ),
            Rule(  # what cannot be a time is a ratio: 16:9, 4:3, 1:1
                re.compile(r"(?<![\d:.])(\d{1,3}):(\d{1,3})(?![\d:])"),
                lambda m: self.ratio(m[1], m[2]),
            ),
            Rule(  # 12x10, 200 x 10: dimensions (the second number is read by what
                # follows it: 12x10 ft); 24x7 is round the clock, as 24/7 is
                re.compile(rf"(?<![\w.])(?!0x)({NUMBER})\s?[x×]\s?(?=\d)(?:(7)(?![\w.]))?"),
                lambda m: (
                    self.fraction(24, 7)
                    if m[1] == "24" and m[2]
                    else f"{self.number(m[1])} {self.by_word} {m[2] or ''}"
                ),
            ),
            self.money_range_rule(currency),
            *self.money_rules(currency),
            Rule(  # 500 AED: an ISO code after the amount
                re.compile(rf"(?<![\w.])({NUMBER})\s?({currencies.CODES})(?![\w])"),
                lambda m: self.money(m[1], currency_of(m[2])),
            ),
            Rule(
                re.compile(
                    rf"(?<![\w.])({NUMBER})\s?[-–]\s?({NUMBER})\s?"
                    rf"(%|{alternatives([*self.unit_table, *self.units])})(?![\w])",
                    re.I,
                ),
                self._measure_range,
            ),
            Rule(
                re.compile(rf"(?<![\w.])({NUMBER})\s?[-–]\s?({NUMBER})(?![\w.])"),
                lambda m: self.range(self.number(m[1]), self.number(m[2])) if self.to else m[0],
            ),
            *self.amount_rules(),
            self.long_run_rule(),
            *self.vulgar_rules(),
            *self.fraction_rules(),
            Rule(  # -5°C: the sign belongs to the quantity
                re.compile(
                    rf"(?:(?<![\w.])([-−]))?({NUMBER})\s?"
                    rf"({alternatives([*self.unit_table, *self.units])})(?![\w])",
                    re.I,
                ),
                self._measure,
            ),
            *self.ordinal_rules(),
            *self.abbreviation_rules(),
            *self.word_rules(),
            Rule(  # acronyms of 2-6 capitals
                re.compile(r"(?<![A-Za-z])([A-Z]{2,6})(?![A-Za-z])"), lambda m: self.acronym(m[1])
            ),
            Rule(re.compile(r"\s&\s"), lambda m: f" {self.and_} "),
            *self.number_rules(),
        ]

    def range(self, first: str, second: str) -> str:
        """Two amounts of a range, as the language joins them (दस से बीस)."""
        return f"{first} {self.to} {second}" + (f" {self.until}" if self.until else "")

    def vulgar_rules(self) -> list[Rule]:
        """½, 2½: where the language names them."""
        if not self.vulgar_fractions:
            return []
        return [
            Rule(
                re.compile(rf"(?<!\d)(\d+)?\s?({alternatives(self.vulgar_fractions)})"),
                lambda m: self.vulgar(m[1], m[2]),
            )
        ]

    def abbreviation_rules(self) -> list[Rule]:
        if not self.abbreviations:
            return []
        return [
            Rule(  # at a word's start: ई. (ईसवी) is not the end of वाई.
                re.compile(rf"{NOT_AFTER_A_LETTER}(?:{alternatives(self.abbreviations)})"),
                lambda m: self.abbreviations[m[0]],
            )
        ]

    def date_rules(self) -> list[Rule]:
        """Dates in numbers (:mod:`dates` says which is the day); before ranges and
        fractions, which would read ``06-05`` and ``02/01`` otherwise."""

        def numeric(m: re.Match[str]) -> str:
            year = dates.full_year(m[3])
            found = dates.day_and_month(int(m[1]), int(m[2]), year)
            return self.date(*found, year) if found else m[0]

        def iso(m: re.Match[str]) -> str:
            year, month, day = int(m[1]), int(m[2]), int(m[3])
            valid = dates.day_and_month(day, month, year) == (day, month)
            return self.date(day, month, year) if valid else m[0]

        def day_month(m: re.Match[str]) -> str:
            found = dates.day_and_month(int(m[1]), int(m[2]))
            if not (found and dates.zero_led(m[1], m[2])):
                return m[0]
            return self.day_month(*found, None, False)

        return [
            Rule(dates.ISO_DATE, iso),
            Rule(dates.NUMERIC_DATE, numeric),
            Rule(dates.MONTH_YEAR, lambda m: self.month_year(int(m[1]), int(m[2]))),
            Rule(dates.DAY_MONTH, day_month),
        ]
