"""Dates written in numbers, and which number is the day.

Indian text writes the day first: ``15/08/1947``, ``06-05`` (6 May), ``1.1.2025``.
A date written month first (``10-29-2000``, as American forms print it) is read
month first only where day first cannot be a date (there is no month 29). ISO dates
(``2024-03-15``) are year, month, day. A month and a year (``03-2010``,
``12/2027`` on a card) are read as such when the month has two digits and the
year is 1900-2099.

Two numbers with a hyphen or slash and no year are a date only when one of them is
written with a leading zero (``06-05``, ``02/01``): ``6-5`` and ``10-20`` stay a
range, ``1/2`` a fraction.
"""

from __future__ import annotations

import calendar
import re

# English month names and abbreviations as written in either language.
MONTH_NAMES = "|".join(
    ("Jan(?:uary)?", "Feb(?:ruary)?", "Mar(?:ch)?", "Apr(?:il)?", "May", "June?", "July?",
     "Aug(?:ust)?", "Sept?(?:ember)?", "Oct(?:ober)?", "Nov(?:ember)?", "Dec(?:ember)?")
)  # fmt: skip
_MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()

# Not part of a longer number, time, version or path on either side.
_BEFORE = r"(?<![\w.:/,-])"
_AFTER = r"(?![\w:/-]|[.,]\d)"

ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")
NUMERIC_DATE = re.compile(r"(?<!\d)(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})(?!\d)")
MONTH_YEAR = re.compile(rf"{_BEFORE}(0[1-9]|1[0-2])[/-]((?:19|20)\d\d){_AFTER}")
DAY_MONTH = re.compile(rf"{_BEFORE}(\d{{1,2}})[/-](\d{{1,2}}){_AFTER}")


def month_number(name: str) -> int:
    """1-12 for an English month name or abbreviation (``Nov``, ``November``, ``Sept``)."""
    return _MONTHS.index(name.lower()[:3]) + 1


def full_year(written: str) -> int:
    """A year as written: ``99`` is 1999, ``24`` is 2024, four digits as they are."""
    year = int(written)
    if len(written) == 2:
        year += 2000 if year < 50 else 1900
    return year


def day_and_month(first: int, second: int, year: int | None = None) -> tuple[int, int] | None:
    """(day, month) of two numbers of a date: day first if that is a date, else month
    first if that is one, else None. Without a year, 29 February is a date."""
    for day, month in ((first, second), (second, first)):
        if 1 <= month <= 12 and 1 <= day <= calendar.monthrange(year or 2000, month)[1]:
            return day, month
    return None


def zero_led(*parts: str) -> bool:
    """Whether a part is written with a leading zero (``06``): what makes ``06-05`` a date."""
    return any(len(p) == 2 and p.startswith("0") for p in parts)
