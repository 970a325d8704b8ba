"""Codes that mix capital letters and digits, read as people read them out: each
letter by its name, the digits one by one.

- vehicle registrations: the state's letters, the district's number as a number,
  the series' letters, the four digits one by one (``MH 12 AB 1234`` -> एम एच बारह
  ए बी एक दो तीन चार), with or without spaces or hyphens;
- any other run of capitals and digits of six characters or more with at least two
  of each (an IFSC ``SBIN0001234``, a booking ``PNR4X7K92``): letters spelled, digits
  one by one, a pause between the runs.

Shorter mixes (``5G``, ``A1``, ``221B``, ``COVID-19``) have rules of their own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol

Replace = Callable[[re.Match[str]], str]


class SaysCodes(Protocol):
    """What reading a code asks of a language's reader (``in_full.InFullReader`` is one)."""

    def spelled(self, letters: str) -> str: ...

    def cardinal(self, n: int) -> str: ...

    def digits(self, text: str) -> str: ...


VEHICLE = re.compile(r"(?<![\w])([A-Z]{2})[\s-]?(\d{1,2})[\s-]?([A-Z]{1,3})[\s-]?(\d{4})(?![\w])")
MIXED = re.compile(r"(?<![\w])([A-Z0-9]{6,})(?![\w])")
_RUNS = re.compile(r"[A-Z]+|\d+")


def code_rules(reader: SaysCodes) -> list[tuple[re.Pattern[str], Replace]]:
    """The patterns and how each is read, in ``reader``'s words."""

    spelled = reader.spelled

    def vehicle(m: re.Match[str]) -> str:
        return f"{spelled(m[1])} {reader.cardinal(int(m[2]))} {spelled(m[3])} {reader.digits(m[4])}"

    def mixed(m: re.Match[str]) -> str:
        code = m[1]
        if sum(c.isalpha() for c in code) < 2 or sum(c.isdigit() for c in code) < 2:
            return code
        runs = _RUNS.findall(code)
        return ", ".join(reader.digits(r) if r.isdigit() else spelled(r) for r in runs)

    return [(VEHICLE, vehicle), (MIXED, mixed)]
