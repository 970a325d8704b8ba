"""Telephone numbers as Indian text writes them, read digit by digit in their groups.

- mobiles: ten digits from 6-9, whole or as 5 + 5 (``98765 43210``), with or without
  ``+91``, and an extension after one at the text's end (``+91 9876543210 123``);
- landlines: the STD code with its 0 and the subscriber's number (``0522-2345678``,
  ``०३८६२-३५१७९१``: 11 digits), or without the 0 (``1374-309988``: 10 digits), or
  after ``+91`` (``+91 11 2345 6789``);
- toll-free: ``1800`` and ``1860`` numbers (``1800-180-1551``, ``1800 11 4000``);
- other ways of writing an STD code (it starts with 0): in brackets, joined by a dot,
  or longer than a code (``(02229) 411128``, ``0 (80) 26411128``, ``022.29411128``,
  ``0168911-4573``);
- foreign numbers after their country code (``+49 30 1234567``, ``+1 6234517890``).

The groups are kept as written, a pause (a comma) between them; a mobile written
whole is read as two fives, as people say it. Anything else with a hyphen between
numbers is left to the other rules (a range, a date).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol

Replace = Callable[[re.Match[str]], str]


class SaysDigits(Protocol):
    """What reading a phone number asks of a language's reader (``base.Reader`` is one)."""

    @property
    def plus_word(self) -> str | None: ...  # "+" of +91, where the language has a word

    def digits(self, text: str) -> str: ...

    def spell(self, text: str) -> str: ...


_SEPARATOR = re.compile(r"[\s-]+")
_COUNTRY = r"(\+91[\s-]?)?"

# A mobile; a short group after it at the text's end is its extension (... 123).
MOBILE = re.compile(
    rf"{_COUNTRY}(?<!\d)([6-9]\d{{4}})[\s-]?(\d{{5}})(?!\d)(?:\s(\d{{1,4}})(?=\s*$))?"
)
# STD code + subscriber: 11 digits with the trunk 0, 10 without (then only after
# +91 or with a hyphen, so that two numbers with a space between stay two numbers).
# Not after a currency sign: ₹1000-200000 is a range of money.
LANDLINE = re.compile(
    r"(?<![\w+.,/₹$€£¥-])(?:(0\d{2,4})[\s-](\d{6,8})"
    r"|(\+91[\s-]?)([1-9]\d{1,3})[\s-](\d{2,4}[\s-]?\d{4})"
    r"|([1-9]\d{1,3})-(\d{6,8}))(?![\w.,/-]*\d)"
)
STD = re.compile(
    r"(?<![\w.(])(0\s?\(\d{2,4}\)|\(0\d{2,4}\)|0\d{2,6})[-\s.]?(\d{4,8})(?![\w.]|\.\d)"
)
FOREIGN = re.compile(r"(?<![\w)+])\+(?!91\b)(\d{1,3})((?:[\s-]\d{1,10}){1,4})(?![\w.]|\.\d)")
TOLL_FREE = re.compile(r"(?<![\w+.,/-])(18[06]0)[\s-]?(\d{2,3})[\s-]?(\d{3,4})(?![\w.,/-]*\d)")


def _digit_count(*groups: str | None) -> int:
    return sum(len(_SEPARATOR.sub("", g)) for g in groups if g)


def phone_rules(reader: SaysDigits) -> list[tuple[re.Pattern[str], Replace]]:
    """The patterns and how each is read, in ``reader``'s words for digits (and for
    ``+``, where it has one)."""

    def grouped(*groups: str) -> str:
        return ", ".join(reader.digits(g) for g in groups)

    def country(written: str | None) -> str:
        if not written:
            return ""
        # A language with no word for it keeps the sign, for the engine to say.
        plus = reader.plus_word or "+"
        return f"{plus} {reader.digits('91')}, "

    def landline(m: re.Match[str]) -> str:
        if m[1]:
            code, number, prefix = m[1], m[2], None
        elif m[3]:
            code, number, prefix = m[4], m[5], m[3]
        else:
            code, number, prefix = m[6], m[7], None
            if code.endswith("0") and number.endswith("00"):
                return m[0]  # round numbers: a range (1000-200000), not a phone
        wanted = 11 if m[1] else 10
        if _digit_count(code, number) != wanted:
            return m[0]
        return country(prefix) + grouped(code, *_SEPARATOR.split(number))

    def toll_free(m: re.Match[str]) -> str:
        if _digit_count(m[2], m[3]) not in (6, 7):
            return m[0]
        return grouped(m[1], m[2], m[3])

    def foreign(m: re.Match[str]) -> str:
        plus = reader.plus_word or "+"
        groups = _SEPARATOR.split(m[2].strip())
        return f"{plus} {reader.digits(m[1])}, " + ", ".join(reader.spell(g) for g in groups)

    return [
        (FOREIGN, foreign),
        (STD, lambda m: grouped(m[1], m[2])),
        (MOBILE, lambda m: country(m[1]) + grouped(*(g for g in m.groups()[1:] if g))),
        (TOLL_FREE, toll_free),
        (LANDLINE, landline),
    ]
